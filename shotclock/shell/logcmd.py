"""``shotclock log``: read the decision log -- list, show, export, stats, verify."""

from __future__ import annotations

import csv
import io
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

import msgspec

from shotclock.core.clocks import Clock, DamagedRecord, clocks_from, players_at_start, replay_events, stats
from shotclock.core.codec import pretty, text as json_text
from shotclock.errors import LogError, ShotclockError, one_line
from shotclock.shell.files import output_file, refuse_overwrite
from shotclock.shell.logsource import open_log, state_dir


def _list_tables(args, out) -> int:
    """The floor archive's tables: records and the time they span."""
    from shotclock.adapters.archive import tables, venues
    from shotclock.shell.logsource import venue_of

    rows = tables(args.collected, venue_of(args))
    if not rows:
        print(f"no records in the archive in {args.collected}", file=out)
        return 0
    print(f"{'TABLE':<12} {'RECORDS':>8}  {'FIRST (local)':<19}  {'LAST (local)':<19}", file=out)
    for table, count, first, last in rows:
        print(f"{table:<12} {count:>8}  {local(first):<19}  {local(last):<19}", file=out)
    print("see one table with: shotclock log --collected DIR --table ID", file=out)
    held = venues(args.collected)
    if len(held) > 1 and venue_of(args) is None:  # a tour's database: a table 7 of each venue is listed as one
        print(f"venues: {', '.join(held)} (one venue's tables: --venue NAME)", file=out)
    return 0


def _clocks(decision_log) -> tuple[list[Clock], dict[int, dict]]:
    """Every clock (numbered 1, 2, 3... in ``number``), and the session record of each clock by its number.

    A device's log numbers its clocks from its oldest; the floor's archive (a table's device logs, one
    chain each) in the order their starts arrived, so a clock keeps its number (shotclock.adapters.archive)."""
    chains = getattr(decision_log, "chains", None)
    parts = list(zip(chains, decision_log.logs)) if chains is not None else [(None, decision_log)]
    found = []
    for chain, part in parts:
        sessions = part.sessions()
        rows = part.rows("WHERE clock IS NOT NULL")
        try:
            clocks = clocks_from(rows)
        except DamagedRecord as exc:
            where = f" ({decision_log.describe(chain)})" if chain is not None else ""
            raise LogError(f"{decision_log.path}{where}: {exc} (see 'shotclock log verify')") from None
        if any(clock.seat is not None for clock in clocks):  # seat tracking: the player each clock was for
            names = players_at_start(part.rows("WHERE type IN ('seat', 'seats', 'seats_restored') OR "
                                               "(type = 'start' AND clock = id)"))
            for clock in clocks:
                clock.player = names.get(clock.id, "")
        found += [(chain, clock, sessions.get(clock.session, {})) for clock in clocks]
    if chains is not None:
        for chain, clock, _ in found:  # the archive numbers every start record the way clocks_from finds them
            clock.number = decision_log.numbers[(chain.number, clock.id)]
        found.sort(key=lambda item: item[1].number)
    else:
        for number, (_, clock, _) in enumerate(found, start=1):
            clock.number = number
    return [clock for _, clock, _ in found], {clock.number: session for _, clock, session in found}


def _warn_unless_verified(decision_log, clocks: list[Clock] | None = None) -> None:
    """One warning line on stderr when the chain does not verify: the figures may not be the truth.

    ``clocks``: only the records from the first of these clocks on are checked (a long log lists fast).
    """
    since = min(c.records[0]["id"] for c in clocks) - 1 if clocks else None  # the input that called it
    try:
        ok, message = decision_log.verify(since)
    except (sqlite3.Error, ValueError, IndexError) as exc:
        ok, message = False, f"cannot check the chain ({exc})"
    if not ok:
        print(f"shotclock: warning: {decision_log.path} does not verify: {message} (see 'shotclock log verify')",
              file=sys.stderr)


def utc_seconds(utc: str) -> float:
    """A logged UTC time (``2026-11-30T01:02:03.000000Z``) as seconds since the epoch."""
    return datetime.fromisoformat(utc.replace("Z", "+00:00")).timestamp()


def local(utc: str | None) -> str:
    """A logged UTC time as local time, to the second."""
    if not utc:
        return "-"
    return datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _yes(value) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _outcome(c: Clock) -> str:
    if c.outcome is None:
        return "interrupted" if c.interrupted else "open"
    return c.kind.replace("_", " ").replace("acted at zero", "acted at 0")


def cmd_list(args, out=None) -> int:
    """Recent clocks, one line each, numbered 1, 2, 3... from the oldest in the log."""
    out = out or sys.stdout
    if getattr(args, "collected", None) and not args.table:
        return _list_tables(args, out)
    decision_log = open_log(args)
    clocks, sessions = _clocks(decision_log)
    clocks = clocks[-args.limit:]
    if not clocks:
        print(f"no clocks in {decision_log.path}", file=out)
        _warn_unless_verified(decision_log)
        return 0
    names = {c.number: str(sessions.get(c.number, {}).get("table", "?")) for c in clocks}
    width = _table_width(max(map(len, names.values())))
    print(f"{'CLOCK':>6}  {'STARTED (local)':<19}  {'TABLE':<{width}} {'MODE':<5} {'STREET':<7} {'BET':<4} "
          f"{'OUTCOME':<15} {'LEFT':>6} {'PAUSES':>6} {'EXT':>3} {'SEAT':>4}  PLAYER", file=out)
    for c in clocks:
        left = f"{c.remaining:.2f}" if c.remaining is not None else "-"
        table = names[c.number][:width]
        seat = "-" if c.seat is None else str(c.seat)
        print(f"{c.number:>6}  {local(c.started_utc):<19}  {table:<{width}} {c.mode:<5} {c.street or '-':<7} "
              f"{_yes(c.facing_bet_at_start):<4} {_outcome(c):<15} {left:>6} {c.pauses:>6} {c.extensions:>3} "
              f"{seat:>4}  {one_line(c.player) or '-'}".rstrip(), file=out)
    _warn_unless_verified(decision_log, clocks)  # last: a listing that fails says only why
    return 0


LIST_FIXED = 89  # the list's width without its TABLE column and the PLAYER name at its end
TABLE_MIN = 12  # the TABLE column is never narrower, nor wider than a table name may be (TABLE_NAME_MAX)


def _table_width(longest: int) -> int:
    """The TABLE column's width: the longest name, cut to what the terminal has room for (at least 12);
    whole names when the list goes to a file or a pipe."""
    import shutil

    from shotclock.config.schema import TABLE_NAME_MAX

    width = min(max(longest, TABLE_MIN), TABLE_NAME_MAX)
    if sys.stdout.isatty():
        width = min(width, max(TABLE_MIN, shutil.get_terminal_size().columns - LIST_FIXED))
    return width


def _find(clocks, number) -> Clock:
    if 1 <= number <= len(clocks):
        return clocks[number - 1]
    if not clocks:
        raise ShotclockError(f"no clock {number}: the log holds no clocks")
    raise ShotclockError(f"no clock {number}: the log holds clocks 1 to {len(clocks)} (see 'shotclock log')")


def cmd_show(args, out=None) -> int:
    """One clock's full timeline."""
    out = out or sys.stdout
    decision_log = open_log(args)
    clocks, sessions = _clocks(decision_log)
    c = _find(clocks, args.id)
    session = sessions.get(c.number, {})
    print(f"clock {c.number} · table {session.get('table', '?')!r} · {c.mode} mode · started {local(c.started_utc)} "
          f"({c.started_utc} UTC)", file=out)
    print(f"outcome: {_outcome(c)}" + (f", {c.remaining:.3f} s left" if c.remaining is not None else "") +
          f" · facing a bet: {_yes(c.facing_bet)} · pauses {c.pauses} · extensions {c.extensions} · "
          f"ran {c.running_seconds:.3f} s", file=out)
    session_id, t0 = c.session, c.started_t
    for r in c.records:
        if r["session"] != session_id:
            print(f"  --- {_restart_cause(r)} (session {r['session']}) ---", file=out)
            session_id, t0 = r["session"], r["t"]
        fields = {k: v for k, v in r.items() if k not in ("id", "session", "clock", "type", "t", "utc")}
        detail = " ".join(f"{k}={readable(k, v, t0)}" for k, v in fields.items() if v is not None)
        offset = round(r["t"] - t0, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
        if r["id"] == c.cancel_pause:
            detail += " (the press of the floor's hold that cancelled the clock: not counted as a pause)"
        print(f"  {offset:+10.3f} s  {local(r['utc'])}  #{r['id']:<6} {r['type']:<11} {detail}", file=out)
    _warn_unless_verified(decision_log, [c])  # the proof of a ruling: say when its records do not check out
    return 0


MOMENTS = ("round", "after", "pressed")  # fields that are a moment on the device's monotonic clock, as ``t`` is
DURATIONS = ("remaining", "seconds", "left")  # fields that are a number of seconds


def seconds_text(value: float) -> str:
    """Seconds as a person reads them: to the millisecond, without trailing zeros (``27.85``, ``30``)."""
    return f"{value:.3f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"


def readable(name: str, value, t0: float) -> str:
    """A record's field for ``log show``: a moment as an offset on the clock's timeline (``+2.151 s``, like the
    first column), a duration in seconds (``27.85 s``), any other number to the millisecond, the rest as JSON.

    Example::

        >>> readable("remaining", 27.84956, 0), readable("round", 823.240132124, 821.09), readable("event", "call", 0)
        ('27.85 s', '+2.150 s', '"call"')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return json_text(value)
    if name in MOMENTS:
        return f"{round(value - t0, 3) + 0.0:+.3f} s"
    if name in DURATIONS:
        return f"{seconds_text(value)} s"
    return seconds_text(value) if isinstance(value, float) else str(value)


def _restart_cause(record: dict) -> str:
    """How a clock's session ended, from the first record of the next one (its ``cause``; older logs have none: a power cut)."""
    if record.get("cause") == "stop":
        return "stopped: the device was stopped (a quit or a service stop) and started again"
    if record.get("cause") == "crash":
        return "crashed: the device process died and was started again"
    return "power cut: the device restarted"


CSV_FIELDS = ["clock", "session", "table", "mode", "street", "started_utc", "decided_utc", "facing_bet_at_start",
              "facing_bet", "outcome", "by", "remaining", "at_zero", "pauses", "extensions", "running_seconds",
              "interrupted"]


def cmd_export(args, out=None) -> int:
    """Clocks as CSV, every record as JSON Lines, or one clock's inputs in the replay format.

    Everything is read and checked before anything is written, and ``--out`` / ``--config-out``
    are written whole or not at all.
    """
    decision_log = open_log(args)
    if args.config_out and args.replay is None:
        raise ShotclockError("--config-out goes with --replay N")
    protected = {"the decision log": decision_log.path}
    for option in ("out", "config_out"):
        if getattr(args, option):
            refuse_overwrite(f"--{option.replace('_', '-')}", getattr(args, option), protected)
    if args.replay is not None:
        clocks, sessions = _clocks(decision_log)
        c = _find(clocks, args.replay)
        session = sessions.get(c.number, {})
        try:
            events = replay_events(c, *_seats_at_start(decision_log, c, session))
        except ValueError as exc:
            raise ShotclockError(str(exc).replace(f"clock {c.id}", f"clock {c.number}")) from None
        config = session.get("config") or {}
        header = {"source": f"clock {c.number}, table {session.get('table', '?')!r}, started {c.started_utc}",
                  "config": rule_config(config, c.mode)}
        level = _level_at_start(decision_log, c)
        if level is not None:  # the rules of the level it was played at, written out: the replay needs no levels
            header["config"] = {**header["config"], **level_config(config, level), "mode": c.mode}
            header["level"] = level
        on_top = _rule_set_at_start(decision_log, c, config)  # a named rule set layered on the level's rules
        header["config"].update(on_top)
        values = {**config, **header["config"]}
        lines = [json_text(header)] + [json_text(e) for e in events]
        if args.config_out:
            with output_file("--config-out", args.config_out) as f:
                f.write(config_toml(values or {"mode": c.mode}))
        _write(args, lambda target: target.write("\n".join(lines) + "\n"), out)
        _warn_unless_verified(decision_log, [c])
    elif args.csv:
        clocks, sessions = _clocks(decision_log)

        def write_csv(target):
            writer = csv.DictWriter(target, CSV_FIELDS)
            writer.writeheader()
            for c in clocks:
                row = {f: getattr(c, f, None) for f in CSV_FIELDS}
                row["clock"] = c.number
                row["table"] = sessions.get(c.number, {}).get("table")
                writer.writerow(row)
        _write(args, write_csv, out, newline="")
        _warn_unless_verified(decision_log)
    else:
        rows = _all_rows(decision_log)
        _write(args, lambda target: target.writelines(
            json_text(row) + "\n" for row in rows), out)
        _warn_unless_verified(decision_log)
    return 0


def _rule_set_at_start(decision_log, clock: Clock, values: dict) -> dict:
    """The rule changes of the named rule set the clock started under (the table's last ``rule_set`` record before
    the clock, in its session: a rule set is taken at a new hand), so its replay rules by the rules the table ran it
    by; {} for the table's own rules."""
    from shotclock.config.levels import rule_set_changes

    rows = _log_of(decision_log, clock).rows(
        "WHERE id = (SELECT MAX(id) FROM records WHERE type = 'rule_set' AND id < ?)", (clock.id,))
    name = rows[0].get("rule_set") if rows and rows[0]["session"] == clock.session else None
    return dict(rule_set_changes(values).get(name, ())) if isinstance(name, str) else {}


def _seats_at_start(decision_log, clock: Clock, session: dict) -> tuple[dict | None, object]:
    """With seat tracking: the ``seats`` record the clock started with (the last one before its start) and the
    session's settings, for the export's prologue; (None, None) without."""
    from shotclock.config.loading import config_from

    values = session.get("config") or {}
    if not values.get("seats.track"):
        return None, None
    part = _log_of(decision_log, clock)  # the floor's archive: the device log this clock is in
    rows = part.rows("WHERE id = (SELECT MAX(id) FROM records WHERE type IN ('seats', 'seats_restored') AND id < ?)",
                     (clock.id,))
    return (rows[0] if rows else None), config_from(values, "the session's configuration").settings


def _log_of(decision_log, clock: Clock):
    """The device log ``clock`` is in: the log itself, or in the floor's archive the chain it came in."""
    for chain, log in zip(getattr(decision_log, "chains", None) or (), getattr(decision_log, "logs", ())):
        if decision_log.numbers.get((chain.number, clock.id)) == clock.number:
            return log
    return decision_log


def _level_at_start(decision_log, clock: Clock) -> int | None:
    """The tournament level the table was at when ``clock`` started (its last ``level`` or ``level_restored``
    record before the start), or None when none was set."""
    from shotclock.core.levels import rhythm_from_records

    rows = _log_of(decision_log, clock).rows(
        "WHERE id = (SELECT MAX(id) FROM records WHERE type IN ('level', 'level_restored') AND id < ?)", (clock.id,))
    try:
        found = rhythm_from_records(rows)
    except (ValueError, TypeError, KeyError):
        return None
    return found[0].level if found is not None else None


def level_config(values: dict, level: int) -> dict:
    """The rule keys a session's ``[levels.N]`` sections change at ``level`` (dotted keys and values)."""
    from shotclock.config.levels import level_rules
    from shotclock.core.rhythm import level_changes
    from shotclock.core.settings import Settings

    return level_changes(Settings(levels=level_rules(values)), level)


def _all_rows(decision_log) -> list[dict]:
    """Every record; from the floor's archive, chain after chain, each record with its ``chain`` (the device's
    ids start again at 1 in a new device log)."""
    if getattr(decision_log, "chains", None) is None:
        return decision_log.rows()
    return [dict(row, chain=chain.number) for chain, part in zip(decision_log.chains, decision_log.logs)
            for row in part.rows()]


def _write(args, write, out, newline=None) -> None:
    """Hand ``write`` the --out file (written whole or not at all) or standard output."""
    if args.out:
        with output_file("--out", args.out, newline=newline) as f:
            write(f)
    else:
        write(out or sys.stdout)


RULE_SECTIONS = ("clock.", "shot.", "seats.")


def rule_config(values: dict, mode: str) -> dict:
    """The keys of a session's configuration that decide rulings: the mode and the clock, shot and seats sections."""
    from shotclock.config.schema import KEYS

    rules = {k: v for k, v in values.items() if k in KEYS and k.startswith(RULE_SECTIONS)}
    return {"mode": values.get("mode", mode), **rules}


def config_toml(values: dict) -> str:
    """A configuration (dotted keys) as a TOML file."""
    from shotclock.config.schema import is_key

    sections: dict[str, list[str]] = {}
    for name, value in values.items():
        if not is_key(name):
            continue
        head, _, leaf = name.rpartition(".")
        text = "true" if value is True else "false" if value is False else json_text(value)
        sections.setdefault(head, []).append(f"{leaf} = {text}")
    lines = sections.pop("", [])
    for head, body in sections.items():
        lines += ["", f"[{head}]", *body]
    return "\n".join(lines) + "\n"


def stats_heading(result: dict) -> str:
    """The first line of ``log stats``: the clocks called, split into those ruled, the floor's cancels, those the
    hand's flow ended quietly and those still open (every clock in exactly one)."""
    outcomes = result["outcomes"]
    cancelled = outcomes.get("cancelled", 0)
    quiet = sum(n for kind, n in outcomes.items() if kind.startswith("ended_by_"))
    ruled = sum(outcomes.values()) - cancelled - quiet
    return (f"clocks called: {result['clocks']} ({ruled} ruled, {cancelled} cancelled by the floor, "
            f"{quiet} ended quietly by the hand's flow, {result['open']} still open)")


def cmd_stats(args, out=None) -> int:
    """Clocks called, rulings by outcome, decision times, clocks per hour (counted on UTC, across reboots)."""
    out = out or sys.stdout
    decision_log = open_log(args)
    clocks, _ = _clocks(decision_log)
    try:
        result = stats(clocks, utc_seconds)
    except ValueError as exc:  # a damaged UTC time
        raise LogError(f"{decision_log.path}: a clock's UTC time is damaged ({exc}); see 'shotclock log verify'") \
            from None
    _warn_unless_verified(decision_log)
    if args.json:
        print(pretty(result), file=out)
        return 0
    print(stats_heading(result), file=out)
    for outcome, n in sorted(result["outcomes"].items()):
        print(f"  {outcome:<14} {n}", file=out)
    fmt = lambda v, unit="s": "-" if v is None else f"{v} {unit}"
    print(f"decision time: median {fmt(result['decision_seconds_median'])}, "
          f"90th percentile {fmt(result['decision_seconds_p90'])}", file=out)
    print(f"clocks per hour: {fmt(result['clocks_per_hour'], '')}".rstrip(), file=out)
    return 0


def cmd_ledger(args, out=None) -> int:
    """The time ledger per seat and player (:mod:`shotclock.core.ledger`) as a table, CSV or JSON."""
    from shotclock.core.ledger import COLUMNS, ledger

    out = out or sys.stdout
    if getattr(args, "collected", None) and not getattr(args, "table", None):
        from shotclock.adapters.archive import table_log, tables
        from shotclock.shell.logsource import venue_of

        rows, by_name = [], True  # the whole floor: a player is the same player at any table
        for table, *_ in tables(args.collected, venue_of(args)):
            log = table_log(args.collected, table, venue_of(args))
            rows += [dict(row, chain=(table, row.get("chain"))) for row in _all_rows(log)]
    else:
        decision_log = open_log(args)
        rows, by_name = _all_rows(decision_log), args.by_name
        _warn_unless_verified(decision_log)
    lines = [msgspec.structs.asdict(e.line()) for e in ledger(rows, by_name=by_name)]
    if args.json:
        print(pretty(lines), file=out)
        return 0
    if args.csv:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows([["" if line[c] is None else line[c] for c in COLUMNS] for line in lines])
        return 0
    if not lines:
        print("no decisions with a seat (seat tracking is off, or no clock ran)", file=out)
        return 0
    show = lambda v: "-" if v is None else str(v)
    head = ("seat", "player", "decisions", "median s", "p95 s", "max s", "called", "ext", "bank s", "against")
    table = [head] + [tuple(show(line[c]) if c != "seat" else (show(line[c]) if line[c] else "*") for c in COLUMNS)
                      for line in lines]
    widths = [max(len(one_line(row[i])) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(one_line(v).ljust(w) for v, w in zip(row, widths)).rstrip(), file=out)
    return 0


def cmd_verify(args, out=None) -> int:
    """Check SQLite's integrity and the hash chain; exit 1 naming the first bad record.

    A log that cannot be read at all (not a database, damaged) fails the check too: exit 1.
    Only a log that is not there, or an unreadable archive path, is a usage error (exit 2).
    """
    out = out or sys.stdout
    decision_log = open_log(args)
    if args.archive:
        return _verify_archive(args.archive, decision_log, out)
    try:
        integrity = decision_log.integrity()
        if integrity != "ok":
            print(f"FAIL: {decision_log.path}: SQLite integrity check: {integrity}", file=out)
            return 1
        ok, message = decision_log.verify()
    except (sqlite3.Error, ValueError, IndexError) as exc:  # not a database; a damaged meta value
        ok, message = False, f"cannot be checked: {exc}"
    print(("" if ok else "FAIL: ") + f"{decision_log.path}: {message}", file=out)
    return 0 if ok else 1


def _verify_archive(path, decision_log, out) -> int:
    """An archive's own chain, and that the live log's chain goes on from where it ends."""
    from shotclock.adapters.log import verify_archive

    if not Path(path).is_file():
        raise ShotclockError(f"--archive {path}: no such file")
    ok, message, last = verify_archive(path)
    if ok:
        anchor = decision_log.anchor()
        if anchor is not None and last[0] == anchor[0] and last[1] != anchor[1]:
            ok, message = False, f"record {last[0]} differs from the one the live log continues from"
        elif anchor is not None and last[0] == anchor[0]:
            message += "; the live log continues from its last record"
    print(("" if ok else "FAIL: ") + f"{path}: {message}", file=out)
    return 0 if ok else 1


def cmd_log(args) -> int:
    """Dispatch ``shotclock log …``; a damaged log is named in one line, never a traceback.

    What a command prints is held until it is done, so a record that turns out damaged halfway
    leaves nothing half-printed on standard output.
    """
    if getattr(args, "table", None) and not getattr(args, "collected", None):
        raise ShotclockError("--table needs --collected DIR (the floor's archive); this device's log is one table's")
    from shotclock.shell.edgereplay import cmd_replay_edges

    held = io.StringIO()
    command = {"show": cmd_show, "export": cmd_export, "stats": cmd_stats, "verify": cmd_verify, "ledger": cmd_ledger,
               "replay": cmd_replay_edges}.get(args.log_command, cmd_list)
    try:
        code = command(args, held)
    except sqlite3.Error as exc:  # a damaged or locked file, among others
        raise LogError(f"cannot read the decision log in {state_dir(args)}: {exc} "
                       "(see 'shotclock log verify')") from None
    except (KeyError, TypeError, ValueError) as exc:  # a value of the wrong kind in a record that verifies
        raise LogError(f"the decision log in {state_dir(args)} holds a record shotclock cannot read "
                       f"({type(exc).__name__}: {exc}); see 'shotclock log verify'") from None
    sys.stdout.write(held.getvalue())
    return code
