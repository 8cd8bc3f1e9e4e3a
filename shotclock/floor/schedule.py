"""``shotclock levels FILE``: a tournament's level schedule, sent to the tables as each level begins.

The file says, one level a line, the local time it begins and, optionally, its hands per level and where
(docs/network.md, "Levels")::

    # HH:MM  level  [hands=N]  [room=NAME]  [section=NAME]
    12:00  1
    12:40  2
    20:30  14  hands=12  room=Final

Every line is checked before anything is sent, by the one table of fields (core/fields.py): a bad line stops the
tool with one line naming the file, the line and the key (exit 2). Times may not go back; a schedule past
midnight goes on with 24:00, 24:40… (up to 47:59). At each line's time the ``level`` command goes to every table
of the venue (the line's room or section: the tables there), and each table's answer is printed; started late,
the tool sends the last level already begun at once (a level applies from each table's next hand: TDA 2024 Rule
23), and says which level it waits for. Started again after midnight (00:30 is the schedule's 24:30) it goes on
where the schedule is. ``--check`` prints the plan and sends nothing.

This module reads and times the schedule; :mod:`shotclock.floor.levelscmd` sends it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from shotclock.core.fields import FIELDS, as_whole
from shotclock.errors import ShotclockError
from shotclock.input_files import read_input_text

DAY_MINUTES = 48 * 60  # a schedule may run past midnight into the next day (24:00 to 47:59)
FILE_MAX = 1_000_000  # bytes: a day of levels is a few kB; more is not a schedule (and shlex is slow on it)
LINE_MAX = 1_000  # characters in one line: a time, a level and three short options
OPTIONS = ("hands", "room", "section")


@dataclass(frozen=True)
class Step:
    """One line of a schedule: at ``minute`` (from the day's midnight) ``level`` begins, where ``room`` and
    ``section`` say (None: every table), with ``hands`` per level (None: as the tables have it)."""

    line: int
    minute: int
    level: int
    hands: int | None = None
    room: str | None = None
    section: str | None = None

    @property
    def clock(self) -> str:
        """The step's time as the file writes it (``20:30``, ``24:10``)."""
        return f"{self.minute // 60:02d}:{self.minute % 60:02d}"

    def fields(self) -> dict:
        """The ``level`` command's fields."""
        return {k: v for k, v in (("level", self.level), ("hands", self.hands), ("room", self.room),
                                  ("section", self.section)) if v is not None}


def parse_schedule(text: str, source: str) -> list[Step]:
    """The steps of a schedule file's ``text``; ShotclockError naming ``source``, the line and the key otherwise."""
    steps: list[Step] = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        where = f"{source}:{number}"
        if len(raw) > LINE_MAX:
            raise ShotclockError(f"{where}: a line must be at most {LINE_MAX} characters ({len(raw)} given)")
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as exc:
            raise ShotclockError(f"{where}: {exc}") from None
        if not words:
            continue
        if len(words) < 2:
            raise ShotclockError(f"{where}: a line is 'HH:MM LEVEL [hands=N] [room=NAME] [section=NAME]', "
                                 f"not {raw.strip()!r}")
        minute = _minute(words[0], where)
        level = _number(words[1], "level", where)
        options: dict[str, object] = {}
        for word in words[2:]:
            key, eq, value = word.partition("=")
            if not eq or key not in OPTIONS:
                raise ShotclockError(f"{where}: {word!r} is not one of {', '.join(k + '=' for k in OPTIONS)}")
            if key in options:
                raise ShotclockError(f"{where}: {key}= is given twice")
            options[key] = _number(value, key, where) if key == "hands" else _text(value, key, where)
        if steps and minute < steps[-1].minute:
            raise ShotclockError(f"{where}: {words[0]} is before the line above ({steps[-1].clock}); times may "
                                 "not go back (past midnight: 24:00, 24:30…)")
        steps.append(Step(number, minute, level, **options))
    if not steps:
        raise ShotclockError(f"{source}: no level in the file (a line is 'HH:MM LEVEL')")
    return steps


def _minute(word: str, where: str) -> int:
    hours, colon, minutes = word.partition(":")
    h, m = as_whole(hours), as_whole(minutes)
    if colon and len(hours) <= 2 and len(minutes) == 2 and isinstance(h, int) and isinstance(m, int):
        if m < 60 and h * 60 + m < DAY_MINUTES:
            return h * 60 + m
    raise ShotclockError(f"{where}: the time {word!r} must be HH:MM, from 00:00 to 47:59")


def _number(word: str, key: str, where: str) -> int:
    value = as_whole(word)
    problem = FIELDS[key].problem(value)
    if problem:
        raise ShotclockError(f"{where}: {problem}")
    return value


def _text(word: str, key: str, where: str) -> str:
    problem = FIELDS[key].problem(word)
    if problem:
        raise ShotclockError(f"{where}: {problem}")
    return word


def read_schedule(path: Path) -> str:
    """The text of the schedule file at ``path`` (UTF-8, a regular file of at most FILE_MAX bytes); else one line."""
    return read_input_text(path, FILE_MAX, "schedule")


def due(steps: list[Step], minute: float) -> tuple[list[Step], list[Step]]:
    """(the steps to send now, the steps still ahead) at ``minute`` of the day: of the steps already begun, the last
    one for each place (room and section) -- an earlier level there is over -- and every step after ``minute``."""
    begun = [s for s in steps if s.minute <= minute]
    last: dict[tuple, Step] = {}
    for step in begun:
        last[(step.room, step.section)] = step
    return sorted(last.values(), key=lambda s: s.line), [s for s in steps if s.minute > minute]


def schedule_day(steps: list[Step], now: datetime) -> datetime:
    """The midnight the schedule's times count from, at local time ``now``: today's, or yesterday's when ``now`` is
    nearer the schedule's end than its next start (00:30 is the 24:30 of a schedule that ran from 20:00 to 24:40,
    or that ended at 23:00: its last level goes on; 11:00 is before a 12:00 start).

    >>> steps = [Step(1, 20 * 60, 10), Step(2, 24 * 60 + 40, 12)]  # 20:00 level 10, 24:40 level 12
    >>> [schedule_day(steps, datetime(2026, 12, 2, h, 30)).day for h in (0, 11, 21)]
    [1, 2, 2]
    """
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    minute = (now - midnight).total_seconds() / 60
    first, last = steps[0].minute, steps[-1].minute
    if minute < first and minute + 24 * 60 - last < first - minute:
        return midnight - timedelta(days=1)
    return midnight
