"""``shotclock floor report``: the slow-play report from the floor's archive, for the tournament director.

Reads the collector's archive (``collected.db``, or its PostgreSQL database: :mod:`shotclock.adapters.archive`)
read-only, table by table
and device log (chain) by device log in the device's own order, and hands the records to the pure report
(:mod:`shotclock.core.slowplay`). The same function answers the dashboard's ``report`` question
(:mod:`shotclock.floor.answers`), so the CSV, the terminal and the page show the same numbers.

A floor day is read in this machine's local time (the venue's): it runs from 06:00 to 06:00.
"""

from __future__ import annotations

import csv
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from shotclock.adapters.archive import Store, chains, open_store
from shotclock.core.codec import decode, encode, pretty
from shotclock.core.fields import FIELDS
from shotclock.core.topics import check_name
from shotclock.core.slowplay import COLUMNS, DAY, DAY_TURNS_AT_HOUR, RECORDS, Report, report
from shotclock.errors import LogError, ShotclockError

HEADINGS = ("player", "tables", "decisions", "median s", "p95 s", "max s", "called", "ext", "bank s", "against",
            "dead", "checked", "warned", "own clock", "marks")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run a cell that starts so


def floor_day(utc: str) -> str:
    """The floor day (YYYY-MM-DD, local time, from 06:00 to 06:00) of a record's UTC time."""
    when = datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone()
    return (when - timedelta(hours=DAY_TURNS_AT_HOUR)).date().isoformat()


def floor_time(utc: str) -> str:
    """A record's UTC time as the floor's local time of day (HH:MM), as the report names when a mark was made."""
    return datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone().strftime("%H:%M")


def day_problem(text: str) -> str | None:
    """None when ``text`` is a date as YYYY-MM-DD, else the problem in one line."""
    if DAY.fullmatch(text):
        try:
            date.fromisoformat(text)
            return None
        except ValueError:
            pass
    return f"--day {text!r} is not a date as YYYY-MM-DD (for example 2026-12-01)"


def archive_rows(db: Store) -> list[dict]:
    """The records the report reads (:data:`shotclock.core.slowplay.RECORDS`), each with its ``table`` and
    ``chain``, table by table and chain by chain in the device's order."""
    kinds = ",".join("?" * len(RECORDS))
    rows = []
    for (table,) in db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id").fetchall():
        for chain in chains(db, table):
            boots = ",".join("?" * len(chain.boots))
            for seq, clock, kind, t, utc, data in db.execute(
                    f"SELECT seq, clock, type, t, utc, data FROM events WHERE table_id = ? AND boot IN ({boots}) "
                    f"AND type IN ({kinds}) ORDER BY seq", (table, *chain.boots, *RECORDS)):
                try:
                    row = decode(data)
                except ValueError:
                    row = None
                if not isinstance(row, dict):
                    raise LogError(f"table {table} record {seq} ({kind}) is damaged: its data is not a JSON object")
                row.update(table=table, chain=chain.number, id=seq, clock=clock, type=kind, t=t, utc=utc)
                rows.append(row)
    return rows


def archive_report(db: Store, day: str | None = None, table: str | None = None,
                   sort: str = "median_s", level: int | None = None) -> Report:
    """The slow-play report of the archive open as ``db`` (one snapshot of it)."""
    try:
        with db.reading():
            rows = archive_rows(db)
        return report(rows, day=day, table=table, day_of=floor_day, sort=sort, time_of=floor_time,
                      level=level)
    except ValueError as exc:  # a damaged UTC time (the archive only takes well-formed ones)
        raise LogError(f"a record's UTC time in the archive is damaged: {exc}") from None


def open_archive(spec: str | Path, venue: str | None = None) -> Store:
    """The archive ``spec`` names (its folder, as ``floor collect --archive`` takes it, the file itself, or a
    ``postgresql://`` database), read-only; ``venue``'s records only when given."""
    return open_store(spec, readonly=True, venue=venue)


def cmd_report(args, out=None) -> int:
    """``shotclock floor report``: the report as a table, CSV (``--csv FILE`` or ``-``) or JSON; exit 2 on a missing
    archive, a bad date or an unknown table (one line)."""
    out = out or sys.stdout
    if args.day is not None and day_problem(args.day):
        raise ShotclockError(day_problem(args.day))
    level = getattr(args, "level", None)
    if level is not None and FIELDS["level"].value_problem(level):
        raise ShotclockError(f"--level: {FIELDS['level'].value_problem(level)}")
    venue = getattr(args, "venue", None)
    if venue is not None and check_name("--venue", venue):
        raise ShotclockError(check_name("--venue", venue))
    db = open_archive(args.archive, venue)
    try:
        result = archive_report(db, args.day, args.table, args.sort, level)
    except db.errors as exc:  # not a database, damaged, the server gone
        raise LogError(f"cannot read the archive {db.name}: {exc}") from None
    finally:
        db.close()
    if args.table is not None and args.table not in result.tables:
        raise ShotclockError(f"--table {args.table!r}: no such table in the archive "
                             f"(tables: {', '.join(result.tables) or 'none'})")
    if args.json:
        print(pretty({"players": result.players, "unnamed_decisions": result.unnamed_decisions,
                      "days": result.days, "tables": result.tables, "levels": result.levels}), file=out)
    elif args.csv == "-":
        write_csv(result, out)
    elif args.csv:
        from shotclock.shell.files import output_file

        with output_file("--csv", args.csv, newline="") as f:
            write_csv(result, f)
        print(f"{len(result.players)} players written to {args.csv}", file=out)
    else:
        print_table(result, args, out)
    return 0


def write_csv(result: Report, out) -> None:
    """One header line (:data:`COLUMNS`) and one line a player; seconds with a dot, no time left empty."""
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for line in result.players:
        cells = ["" if line[c] is None else line[c] for c in COLUMNS]
        if cells[0].startswith(FORMULA_START):  # a name as text, never a formula
            cells[0] = "'" + cells[0]
        writer.writerow(cells)


def print_table(result: Report, args, out) -> None:
    """The report as aligned columns, with what it covers above and what it leaves out below."""
    where = f"table {args.table}" if args.table else "every table"
    when = f"floor day {args.day} (06:00 to 06:00 local time)" if args.day else "every day"
    print(f"slow-play report: {where}, {when}; sorted by {args.sort}", file=out)
    if not result.players:
        print("no decisions of a named player (seat tracking off, no names given, or nothing on that day)", file=out)
    else:
        show = lambda v: "-" if v is None else str(v)
        rows = [HEADINGS] + [tuple(show(line[c]) for c in COLUMNS) for line in result.players]
        widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS))]
        for row in rows:
            print("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip(), file=out)
    if result.unnamed_decisions:
        print(f"({result.unnamed_decisions} decisions at seats with no name are not in the report)", file=out)



MAX_ANSWER_BYTES = 60_000  # the answer's lines stay inside the broker's 64 KiB packets (with room for the rest)
REUSE_SECONDS = 30.0  # an answer is reused this long though new records arrived (a report of a big archive
                      # takes the collector's answering thread about 2 s: bench/report_speed.py)
KEEP_ANSWERS = 16
_answers: dict[tuple, tuple[int | None, float, dict]] = {}  # (archive, day, table, level) → (newest, when, answer)


def answer_report(db: Store, question: dict, now: float | None = None) -> dict:
    """The dashboard's ``report`` question (``day``, ``table``, ``level``: each optional) answered from the archive ``db``:
    ``columns`` (:data:`COLUMNS`), ``players`` (a list of values a player, the longest median first, as many as
    fit in one message), ``total`` (every player), ``unnamed_decisions``, ``days``, ``tables`` and ``levels`` (the
    filters' choices), ``as_of`` (UTC). An answer is reused until the archive has a new record and it is
    :data:`REUSE_SECONDS` old (``now``: the monotonic time, seconds)."""
    import time

    now = time.monotonic() if now is None else now
    day, table, level = question.get("day"), question.get("table"), question.get("level")
    if day is not None and day_problem(day):
        return {"ok": False, "reason": day_problem(day).replace("--day", "day", 1)}
    (newest,) = db.execute(f"SELECT MAX({db.arrival}) FROM events").fetchone()
    key = (str(db.name), db.venue, day, table, level)
    kept = _answers.get(key)
    if kept is not None and (kept[0] == newest or now - kept[1] < REUSE_SECONDS):
        return kept[2]
    result = archive_report(db, day, table, level=level)
    if table is not None and table not in result.tables:
        return {"ok": False, "reason": f"no table {table!r} in the archive"}
    lines, size = [], 0
    for line in result.players:
        values = [line[c] for c in COLUMNS]
        size += len(encode(values)) + 1
        if size > MAX_ANSWER_BYTES:
            break
        lines.append(values)
    answer = {"ok": True, "columns": list(COLUMNS), "players": lines, "total": len(result.players),
              "unnamed_decisions": result.unnamed_decisions, "days": result.days, "tables": result.tables,
              "levels": result.levels, **({"day": day} if day else {}), **({"table": table} if table else {}),
              **({"level": level} if level is not None else {}),
              "as_of": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    _answers.pop(key, None)
    while len(_answers) >= KEEP_ANSWERS:
        _answers.pop(next(iter(_answers)))
    _answers[key] = (newest, now, answer)
    return answer
