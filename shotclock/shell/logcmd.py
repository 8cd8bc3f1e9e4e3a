"""``shotclock log``: read the decision log -- list, show, export, stats, verify."""

from __future__ import annotations

import csv
import json
import sys
from datetime import datetime
from pathlib import Path

from shotclock.core.clocks import Clock, clocks_from, replay_events, stats
from shotclock.errors import LogError, ShotclockError


def _open(args):
    from shotclock.adapters.log import DecisionLog, default_state_dir

    return DecisionLog(args.state_dir or default_state_dir(), readonly=True)


def _clocks(decision_log) -> tuple[list[Clock], dict]:
    sessions = decision_log.sessions()
    rows = decision_log.rows("WHERE clock IS NOT NULL")
    return clocks_from(rows, {sid: s["mode"] for sid, s in sessions.items()}), sessions


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
    """Recent clocks, one line each."""
    out = out or sys.stdout
    decision_log = _open(args)
    clocks, sessions = _clocks(decision_log)
    clocks = clocks[-args.limit:]
    if not clocks:
        print(f"no clocks in {decision_log.path}", file=out)
        return 0
    print(f"{'ID':>6}  {'STARTED (local)':<19}  {'TABLE':<12} {'MODE':<5} {'STREET':<7} {'BET':<4} "
          f"{'OUTCOME':<15} {'LEFT':>6} {'PAUSES':>6} {'EXT':>3}", file=out)
    for c in clocks:
        left = f"{c.remaining:.2f}" if c.remaining is not None else "-"
        table = sessions.get(c.session, {}).get("table", "?")[:12]
        print(f"{c.id:>6}  {local(c.started_utc):<19}  {table:<12} {c.mode:<5} {c.street or '-':<7} "
              f"{_yes(c.facing_bet):<4} {_outcome(c):<15} {left:>6} {c.pauses:>6} {c.extensions:>3}", file=out)
    return 0


def _find(clocks, clock_id) -> Clock:
    for c in clocks:
        if c.id == clock_id:
            return c
    raise ShotclockError(f"no clock {clock_id} in the log (see 'shotclock log' for the ids)")


def cmd_show(args, out=None) -> int:
    """One clock's full timeline."""
    out = out or sys.stdout
    decision_log = _open(args)
    clocks, sessions = _clocks(decision_log)
    c = _find(clocks, args.id)
    session = sessions.get(c.session, {})
    print(f"clock {c.id} · table {session.get('table', '?')!r} · {c.mode} mode · started {local(c.started_utc)} "
          f"({c.started_utc} UTC)", file=out)
    print(f"outcome: {_outcome(c)}" + (f", {c.remaining:.3f} s left" if c.remaining is not None else "") +
          f" · facing a bet: {_yes(c.facing_bet)} · pauses {c.pauses} · extensions {c.extensions} · "
          f"ran {c.running_seconds:.3f} s", file=out)
    session_id, t0 = c.session, c.started_t
    for r in c.records:
        if r["session"] != session_id:
            print(f"  --- power cut: the device restarted (session {r['session']}) ---", file=out)
            session_id, t0 = r["session"], r["t"]
        fields = {k: v for k, v in r.items() if k not in ("id", "session", "clock", "type", "t", "utc")}
        detail = " ".join(f"{k}={json.dumps(v)}" for k, v in fields.items() if v is not None)
        offset = round(r["t"] - t0, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
        print(f"  {offset:+10.3f} s  {local(r['utc'])}  #{r['id']:<6} {r['type']:<11} {detail}", file=out)
    return 0


CSV_FIELDS = ["id", "session", "table", "mode", "street", "started_utc", "decided_utc", "facing_bet", "outcome",
              "by", "remaining", "at_zero", "pauses", "extensions", "running_seconds", "interrupted"]


def cmd_export(args, out=None) -> int:
    """Clocks as CSV, every record as JSON Lines, or one clock's inputs in the replay format."""
    out = out or sys.stdout
    decision_log = _open(args)
    target = open(args.out, "w", encoding="utf-8", newline="") if args.out else out
    try:
        if args.replay is not None:
            clocks, sessions = _clocks(decision_log)
            c = _find(clocks, args.replay)
            try:
                events = replay_events(c)
            except ValueError as exc:
                raise ShotclockError(str(exc)) from None
            for e in events:
                target.write(json.dumps(e, separators=(",", ":")) + "\n")
            if args.config_out:
                Path(args.config_out).write_text(config_toml(sessions[c.session]["config"]), encoding="utf-8")
        elif args.csv:
            clocks, sessions = _clocks(decision_log)
            writer = csv.DictWriter(target, CSV_FIELDS)
            writer.writeheader()
            for c in clocks:
                row = {f: getattr(c, f, None) for f in CSV_FIELDS}
                row["table"] = sessions.get(c.session, {}).get("table")
                writer.writerow(row)
        else:
            for row in decision_log.rows():
                target.write(json.dumps(row, separators=(",", ":"), ensure_ascii=False) + "\n")
    finally:
        if args.out:
            target.close()
    return 0


def config_toml(values: dict) -> str:
    """A configuration (dotted keys) as a TOML file."""
    from shotclock.config import KEYS

    sections: dict[str, list[str]] = {}
    for name, value in values.items():
        if name not in KEYS:
            continue
        head, _, leaf = name.rpartition(".")
        text = "true" if value is True else "false" if value is False else json.dumps(value, ensure_ascii=False)
        sections.setdefault(head, []).append(f"{leaf} = {text}")
    lines = sections.pop("", [])
    for head, body in sections.items():
        lines += ["", f"[{head}]", *body]
    return "\n".join(lines) + "\n"


def cmd_stats(args, out=None) -> int:
    """Clocks called, rulings by outcome, decision times, clocks per hour."""
    out = out or sys.stdout
    decision_log = _open(args)
    clocks, _ = _clocks(decision_log)
    result = stats(clocks)
    if args.json:
        print(json.dumps(result, indent=2), file=out)
        return 0
    print(f"clocks called: {result['clocks']} ({result['open']} without a decision)", file=out)
    for outcome, n in sorted(result["outcomes"].items()):
        print(f"  {outcome:<14} {n}", file=out)
    fmt = lambda v, unit="s": "-" if v is None else f"{v} {unit}"
    print(f"decision time: median {fmt(result['decision_seconds_median'])}, "
          f"90th percentile {fmt(result['decision_seconds_p90'])}", file=out)
    print(f"clocks per hour: {fmt(result['clocks_per_hour'], '')}".rstrip(), file=out)
    return 0


def cmd_verify(args, out=None) -> int:
    """Check SQLite's integrity and the hash chain; exit 1 naming the first bad record."""
    out = out or sys.stdout
    decision_log = _open(args)
    if args.archive:
        return _verify_archive(args.archive, decision_log, out)
    integrity = decision_log.integrity()
    if integrity != "ok":
        print(f"FAIL: {decision_log.path}: SQLite integrity check: {integrity}", file=out)
        return 1
    ok, message = decision_log.verify()
    print(("" if ok else "FAIL: ") + f"{decision_log.path}: {message}", file=out)
    return 0 if ok else 1


def _verify_archive(path, decision_log, out) -> int:
    """An archive's own chain, and that the live log's chain goes on from where it ends."""
    from shotclock.adapters.log import verify_archive

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
    """Dispatch ``shotclock log …``."""
    try:
        return {"show": cmd_show, "export": cmd_export, "stats": cmd_stats, "verify": cmd_verify}.get(
            args.log_command, cmd_list)(args)
    except LogError:
        raise
    except Exception as exc:  # sqlite3.DatabaseError on a damaged file, among others
        if type(exc).__module__ == "sqlite3":
            raise LogError(f"cannot read the decision log: {exc}") from None
        raise
