"""The floor's commands to a tournament clock and its answers, as the network carries them (docs/network.md,
"tournament"): what a command is, the clock event it becomes, and why one changed nothing.

Example::

    >>> from shotclock.core.structure import Stage, Structure
    >>> from shotclock.core.tournament import Pause, TournamentClock
    >>> c = ClockCommand(id="a1", name="add", seconds=60.0)
    >>> command_event(c, 12.5, "floor-anna")
    Adjust(t=12.5, by='floor-anna', seconds=60.0)
    >>> clock = TournamentClock(Structure("x", (Stage(20, 25, 50),)))
    >>> refusal(ClockCommand(id="a2", name="pause"), clock.handle(Pause(1.0, "f")), clock)
    'the clock has not started'
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from shotclock.core import tournament as tc
from shotclock.core.fields import BANK_MAX, ID_MAX, LEVEL_MAX
from shotclock.core.structure import Structure, structure_problem

COMMANDS = ("start", "pause", "resume", "add", "take", "level", "next", "keep", "load", "players")
"""What the floor may tell a tournament clock (``keep``: keep the time as it is after the clock was away;
``players``: the players left, as the floor types it, for the room's screen)."""
PLAYERS_MAX = 100_000  # players in one tournament (the largest live events have had some ten thousand)
_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=ID_MAX)]


class ClockCommand(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A command to a tournament clock, on ``…/tournament/<id>/cmd/by/<login>`` (the login is its sender).

    :param id: unique per command; the ack names it.
    :param name: one of :data:`COMMANDS`.
    :param seconds: ``add``, ``take``: how much (more than 0, at most ten hours).
    :param level: ``level``: the level to jump to.
    :param structure: ``load``: the structure to play (before the start).
    :param players: ``players``: the players left (0: not shown).
    """

    id: _Id
    name: Literal[COMMANDS]
    sent_ms: int | None = None
    seconds: Annotated[float, msgspec.Meta(gt=0, le=BANK_MAX)] | None = None
    level: Annotated[int, msgspec.Meta(ge=1, le=LEVEL_MAX)] | None = None
    structure: Structure | None = None
    players: Annotated[int, msgspec.Meta(ge=0, le=PLAYERS_MAX)] | None = None


class ClockAck(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The clock's answer on ``…/tournament/<id>/cmd/ack``: ``done`` with what it did in words (``said``), or
    ``ignored`` / ``refused`` with the ``reason``."""

    id: str
    name: str
    outcome: Literal["done", "ignored", "refused"]
    said: str | None = None
    reason: str | None = None


def command_event(command: ClockCommand, t: float, sender: str) -> tc.ClockEvent | None:
    """The clock event ``command`` becomes at ``t`` from ``sender`` (None: ``keep``, which changes no time; ``load``
    is the process's, not the clock's)."""
    name = command.name
    if name == "start":
        return tc.Start(t, sender)
    if name == "pause":
        return tc.Pause(t, sender)
    if name == "resume":
        return tc.Resume(t, sender)
    if name in ("add", "take"):
        seconds = command.seconds or 0.0
        return tc.Adjust(t, sender, seconds=seconds if name == "add" else -seconds)
    if name == "level":
        return tc.GoToLevel(t, sender, level=command.level or 0)
    if name == "next":
        return tc.NextStage(t, sender)
    return None


def refusal(command: ClockCommand, changes: list[tc.Change], clock: tc.TournamentClock) -> str | None:
    """Why ``command`` changed nothing, in words (None: it did what it said)."""
    name = command.name
    if name == "load":
        if command.structure is None:
            return "'load' needs 'structure'"
        problem = structure_problem(command.structure)
        return problem[2] if problem else None
    if any(c.why not in ("time", "finished") for c in changes):
        return None
    if name in ("add", "take") and not command.seconds:
        return f"'{name}' needs 'seconds' (more than 0)"
    if name == "level" and command.level is None:
        return "'level' needs 'level'"
    if name == "start":
        return "the clock has already started"
    if not clock.started and name in ("pause", "resume"):
        return "the clock has not started"
    if name == "pause":
        return "the clock is paused already" if clock.paused else "the clock is not running"
    if name == "resume":
        return "the clock is not paused"
    if name in ("add", "take"):
        return "a level that ends by hands has no time to add or take"
    if name == "level":
        levels = sum(1 for s in clock.structure.stages if not s.is_break)
        return f"the structure has no level {command.level} (it has 1 to {levels})"
    if name == "next":
        return "this is the last stage: none comes after it"
    return "nothing changed"
