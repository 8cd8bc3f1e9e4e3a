"""The slow-play report: every named player's decisions across the floor's tables and days (TDA rule 70).

Pure: built from the floor archive's records (each a log row with its ``table`` and ``chain``, in the
device's order within a chain), through the time ledger (:mod:`shotclock.core.ledger`), which holds the
one rule for what a decision is and how long it took: the clock's whole length (extensions and bank
included) less what the engine had left when the player acted; a ruling at 0 took all of it. So a
decision's time is what the device ruled, never a difference of wall-clock times between records:
paused time never counts, and neither does a device's downtime (a restarted device brings the clock
back with the time it had when it stopped, docs/log.md).

A clock belongs to the tournament level it started at (the ``level`` record of its hand, or the
``level_restored`` after a restart): the ``level`` filter keeps those clocks and the marks made at it.

A player is one line across every table and seat they sat at (the name is the player, as it is for the
ledger's ``--collected`` view). Seats the floor never named are no player: their decisions are only
counted (``unnamed_decisions``). A clock belongs to the floor day its ``start`` record was made on
(``day_of``, which the shell gives: a floor day runs from 06:00 to 06:00 local time, so a session that
goes past midnight stays on the day it began).

The floor's marks (TDA 2024 Rules 70 and 71, the ``mark`` records): ``warnings`` and ``clock_marks`` count the
warnings and the own clocks the floor gave the player, ``marks`` says each mark and unmark, by whom and when
("warning by floor-anna 14:02; clock 10 s by td 15:30; clock 10 s off by td 16:05", in the time ``time_of``
gives); a mark belongs to the floor day it was made on.

Statistics (seconds, to the millisecond): ``median_s`` is the middle decision time (the mean of the two
middle ones for an even count); ``p95_s`` the 95th percentile by linear interpolation between the
closest ranks (the value at position 0.95 × (n − 1) of the sorted times, as ``shotclock log stats``);
``max_s`` the longest.

Example::

    >>> rows = [{"table": "1", "type": "seat", "seat": 4, "change": "seated", "name": "Ana"},
    ...         {"table": "1", "clock": 2, "type": "start", "seconds": 30, "seat": 4, "utc": "d1"},
    ...         {"table": "1", "clock": 2, "type": "decision", "outcome": "acted", "remaining": 18, "seat": 4}]
    >>> r = report(rows, day_of=lambda utc: utc)
    >>> [(p["player"], p["tables"], p["decisions"], p["median_s"]) for p in r.players], r.days
    ([('Ana', '1', 1, 12.0)], ['d1'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import msgspec

from shotclock.core.ledger import Entry, ledger

COLUMNS = ("player", "tables", "decisions", "median_s", "p95_s", "max_s", "clocks_called", "extensions",
           "bank_used_s", "rulings_against", "hands_dead", "checks", "warnings", "clock_marks", "marks")
TEXT_COLUMNS = ("player", "tables", "marks")  # sorted A to Z; the others are numbers
CLOCK_RECORDS = ("start", "extended", "undo", "top_up", "decision")  # the day filter keeps or drops them by clock
RECORDS = CLOCK_RECORDS + ("seat", "seats", "seats_restored", "mark", "level", "level_restored")  # every one it reads
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # a floor day as the filters name it: YYYY-MM-DD, plain digits
DAY_TURNS_AT_HOUR = 6  # local time: a floor day runs from 06:00 to 06:00
DEFAULT_SORT = "median_s"


@dataclass(frozen=True)
class Report:
    """The report's lines (``players``, one dict a player with :data:`COLUMNS`), the decisions made at seats with
    no name (not in the lines), and every floor day and table the records hold (for the filters)."""

    players: list[dict]
    unnamed_decisions: int
    days: list[str]
    tables: list[str]
    levels: list[int] = ()  # the tournament levels clocks started at (``level`` records; none: levels never set)


def report(rows, day: str | None = None, table: str | None = None,
           day_of: Callable[[str], str] = lambda utc: utc[:10], sort: str = DEFAULT_SORT,
           time_of: Callable[[str], str] = lambda utc: utc[11:16], level: int | None = None) -> Report:
    """The slow-play report of ``rows`` (see the module's docstring), for one floor ``day``, one ``table`` and one
    tournament ``level`` when given; ``day_of`` maps a record's ``utc`` to its floor day, ``time_of`` to the time a
    mark names; lines sorted by ``sort`` (see :func:`sorted_lines`).
    """
    by_table: dict[str, list[dict]] = {}
    for row in rows:
        by_table.setdefault(str(row.get("table")), []).append(row)
    players: dict[str, Entry] = {}
    seen_at: dict[str, set[str]] = {}
    days: set[str] = set()
    unnamed = 0
    marks: dict[str, dict] = {}
    levels: set[int] = set()
    for table_id, table_rows in sorted(by_table.items()):
        if table is not None and table_id != table:
            continue
        start_day = {_clock(r): day_of(r.get("utc") or "") for r in table_rows if r.get("type") == "start"}
        days.update(start_day.values())
        level_at = _levels(table_rows)
        start_level = {_clock(r): level_at[i] for i, r in enumerate(table_rows) if r.get("type") == "start"}
        levels.update(v for v in start_level.values() if v is not None)
        kept = [r for r in table_rows
                if r.get("type") not in CLOCK_RECORDS or ((day is None or start_day.get(_clock(r)) == day)
                                                          and (level is None or start_level.get(_clock(r)) == level))]
        for entry in ledger(kept, by_name=True):
            if not entry.player:
                unnamed += entry.decisions
                continue
            if not (entry.decisions or entry.clocks_called or entry.extensions):
                continue  # seated there, no clock on them that day
            _merge(players.setdefault(entry.player, Entry(0, entry.player)), entry)
            seen_at.setdefault(entry.player, set()).add(table_id)
        for i, row in enumerate(table_rows):  # the floor's marks on named players, on the day and level they were made
            if row.get("type") == "mark" and isinstance(row.get("name"), str) and \
                    (day is None or day_of(row.get("utc") or "") == day) and (level is None or level_at[i] == level):
                _add_mark(marks.setdefault(row["name"], {"warnings": 0, "clock_marks": 0, "said": []}), row, time_of)
                players.setdefault(row["name"], Entry(0, row["name"]))
                seen_at.setdefault(row["name"], set()).add(table_id)
    lines = [_line(entry, seen_at[name], marks.get(name)) for name, entry in players.items()]
    return Report(sorted_lines(lines, sort), unnamed, sorted(days), sorted(by_table, key=_table_order), sorted(levels))


def sorted_lines(lines: list[dict], by: str = DEFAULT_SORT) -> list[dict]:
    """``lines`` sorted by column ``by``: numbers largest first (no time last), the player and tables A to Z;
    ties by player."""
    if by not in COLUMNS:
        raise ValueError(f"cannot sort by {by!r} (one of: {', '.join(COLUMNS)})")
    lines = sorted(lines, key=lambda line: line["player"])
    if by in TEXT_COLUMNS:
        return sorted(lines, key=lambda line: line[by])
    return sorted(lines, key=lambda line: (line[by] is None, -(line[by] or 0)))


def _levels(rows: list[dict]) -> list[int | None]:
    """The tournament level in play at each of one table's ``rows`` (in the device's order): a ``level`` record
    starts a hand at its level, a ``level_restored`` brings the level back after a restart."""
    at, current = [], None
    for row in rows:
        kind = row.get("type")
        if kind == "level" and isinstance(row.get("level"), int):
            current = row["level"]
        elif kind == "level_restored":
            current = (row.get("current") or {}).get("level") if isinstance(row.get("current"), dict) else None
        at.append(current)
    return at


def _clock(row: dict) -> tuple:
    return row.get("chain"), row.get("clock")


def _merge(into: Entry, entry: Entry) -> None:
    into.decisions += entry.decisions
    into.times += entry.times
    into.clocks_called += entry.clocks_called
    into.extensions += entry.extensions
    into.bank_used += entry.bank_used
    into.rulings_against += entry.rulings_against
    into.hands_dead += entry.hands_dead
    into.checks += entry.checks


def _add_mark(into: dict, row: dict, time_of: Callable[[str], str]) -> None:
    """One ``mark`` record on a player's marks: counted when made, and said with who made it and when."""
    mark, seconds, by = row.get("mark"), row.get("mark_seconds"), row.get("by") or "?"
    what = f"clock {seconds:g} s" if mark == "clock" and isinstance(seconds, (int, float)) else str(mark)
    if row.get("change") == "marked":
        into["warnings" if mark == "warning" else "clock_marks"] += 1
    else:
        what = f"{what} off"
    utc = row.get("utc") or ""
    into["said"].append((utc, f"{what} by {by} {time_of(utc) if utc else ''}".rstrip()))


def _line(entry: Entry, tables: set[str], marks: dict | None = None) -> dict:
    values = msgspec.structs.asdict(entry.line())
    values.pop("seat")
    marks = marks or {"warnings": 0, "clock_marks": 0, "said": []}
    return {"player": entry.player, "tables": ", ".join(sorted(tables, key=_table_order)), **values,
            "hands_dead": entry.hands_dead, "checks": entry.checks, "warnings": marks["warnings"],
            "clock_marks": marks["clock_marks"], "marks": "; ".join(text for _, text in sorted(marks["said"]))}


def _table_order(table_id: str) -> tuple:
    return (0, int(table_id), "") if table_id.isdigit() else (1, 0, table_id)
