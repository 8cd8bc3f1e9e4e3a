"""The rule settings the engine needs, as plain frozen data (loaded by :mod:`shotclock.config`)."""

from __future__ import annotations

from dataclasses import dataclass, field

STREETS = ("preflop", "flop", "turn", "river")
MODES = ("clock", "shot")


@dataclass(frozen=True)
class ClockSettings:
    """Rule 29: the whole clock (countdown included), the audible countdown, the tie window."""

    seconds: float = 30
    countdown: int = 5
    tie_window: float = 0.5


ALLOWANCE_RESETS = ("hand", "floor")


@dataclass(frozen=True)
class ShotSettings:
    """The tour shot clock: seconds per street, countdown, extension chips, tie window.

    ``extension_limit``: chips one decision may take (0: no limit). ``allowance``: chips each player holds
    (0: not tracked), given back at every new hand (``allowance_reset = "hand"``) or only by the floor
    (``"floor"``: per day, or at the stages the tournament names). ``undo_seconds``: how long after an
    extension the dealer can take it back.
    """

    preflop: float = 30
    flop: float = 30
    turn: float = 30
    river: float = 30
    countdown: int = 5
    extension: float = 30
    tie_window: float = 0.5
    extension_limit: int = 4
    allowance: int = 0
    allowance_reset: str = "floor"
    undo_seconds: float = 5

    def seconds_for(self, street: str) -> float:
        """The time a decision gets on ``street``."""
        return getattr(self, street)


@dataclass(frozen=True)
class SeatSettings:
    """Seat tracking (issue 19): off by default, and then the device behaves exactly as without it.

    ``track``: the table keeps whose turn it is (:mod:`shotclock.core.seats`). ``count``: seats at the table
    (2-10); all of them start occupied by unnamed players (the buttons-alone baseline), and the floor names,
    empties and seats players from there. ``bank``: the time bank mode (Triton's Tempo): each decision has its
    street's time, then the player's own bank of seconds runs (0: off).
    """

    track: bool = False
    count: int = 9
    bank: float = 0  # time bank mode: seconds of personal bank each player starts with (0: no time bank)


@dataclass(frozen=True)
class LevelRule:
    """What changes from tournament level ``level`` on (TDA 2024 Rule 23: a new level applies from the next hand).

    ``changes``: the rule keys and their values from this level on (dotted, as in the configuration:
    ``(("mode", "shot"), ("shot.preflop", 20))``), kept until a later level's rule changes them again.
    ``top_up_seconds`` / ``top_up_chips``: given to every seated player once, at the first hand of this level
    ("+30 s from level 10"); ``reset_chips``: their extension chips set to exactly the level's allowance then. Built by :mod:`shotclock.config` from its ``[levels.N]`` sections.
    """

    level: int
    changes: tuple[tuple[str, object], ...] = ()
    top_up_seconds: float | None = None
    top_up_chips: int | None = None
    reset_chips: bool = False  # ``chips.reset``: every seated player's chips become exactly the level's allowance


@dataclass(frozen=True)
class Settings:
    """Everything the engine needs: the mode and both modes' settings; ``levels``: the rules that change by
    tournament level (:mod:`shotclock.core.rhythm` makes each hand's settings from them; the engine ignores them)."""

    mode: str = "clock"
    clock: ClockSettings = field(default_factory=ClockSettings)
    shot: ShotSettings = field(default_factory=ShotSettings)
    seats: SeatSettings = field(default_factory=SeatSettings)
    levels: tuple[LevelRule, ...] = ()

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")

    @property
    def countdown(self) -> int:
        """The audible countdown of the active mode."""
        return self.clock.countdown if self.mode == "clock" else self.shot.countdown

    @property
    def tie_window(self) -> float:
        """The tie window of the active mode."""
        return self.clock.tie_window if self.mode == "clock" else self.shot.tie_window
