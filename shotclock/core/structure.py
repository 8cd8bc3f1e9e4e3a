"""A tournament's structure: its levels and breaks, in order, as the tournament clock plays them.

A structure is what a floor already keeps in The Tournament Director (TD) or a spreadsheet: levels (small blind,
big blind, an ante or a big-blind ante, minutes) and breaks (minutes and a name: "dinner", "color-up"); at a final
table a level may end after a number of hands instead of minutes. The readers of TD's saved tournament, TD's rounds
export, a plain CSV and the project's own TOML all give a :class:`Structure`; the tournament clock
(:mod:`shotclock.core.tournament`) plays it. Levels are numbered from 1 in order, breaks not counted.

Example::

    >>> s = Structure("Sunday", (Stage(minutes=20, small_blind=25, big_blind=50),
    ...                          Stage(minutes=5, is_break=True, name="color-up"),
    ...                          Stage(minutes=20, small_blind=50, big_blind=100, ante=100, big_blind_ante=True)))
    >>> [s.level_of(i) for i in range(3)], s.stages[2].blinds
    ([1, None, 2], '50/100, BB ante 100')
"""

from __future__ import annotations

import msgspec


class Stage(msgspec.Struct, frozen=True, omit_defaults=True):
    """One stage of a structure: a level, or a break (``is_break``).

    :param minutes: how long it lasts on the tournament clock (a level that ends by ``hands``: ignored, may be 0).
    :param small_blind: the level's small blind (0 for a break).
    :param big_blind: the level's big blind (0 for a break).
    :param ante: the level's ante (0: none); with ``big_blind_ante`` the big blind's player pays it for the table.
    :param big_blind_ante: the ante is a big-blind ante (one ante, paid by the big blind).
    :param is_break: a break: no blinds, no clock can be called or started at the tables.
    :param name: a break's name ("dinner", "color-up"); a level's game name when the source gives one.
    :param hands: the level ends after this many hands at each table instead of after ``minutes`` (0: by minutes).
    """

    minutes: float
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    big_blind_ante: bool = False
    is_break: bool = False
    name: str = ""
    hands: int = 0

    @property
    def seconds(self) -> float:
        """The stage's length on the tournament clock in seconds (0 for a level that ends by hands)."""
        return 0.0 if self.hands else self.minutes * 60.0

    @property
    def blinds(self) -> str:
        """The blinds as a screen writes them (``25/50``, ``50/100, ante 10``, ``50/100, BB ante 100``)."""
        if self.is_break:
            return ""
        text = f"{self.small_blind}/{self.big_blind}"
        if self.ante:
            text += f", {'BB ante' if self.big_blind_ante else 'ante'} {self.ante}"
        return text


class Structure(msgspec.Struct, frozen=True):
    """A tournament's stages in order (levels and breaks) and its title."""

    title: str
    stages: tuple[Stage, ...]

    def level_of(self, index: int) -> int | None:
        """The level number (1, 2, …; breaks not counted) of the stage at ``index``; None for a break."""
        if self.stages[index].is_break:
            return None
        return sum(1 for s in self.stages[: index + 1] if not s.is_break)

    def index_of_level(self, level: int) -> int | None:
        """The index of level ``level``'s stage (None: the structure has no such level)."""
        count = 0
        for index, stage in enumerate(self.stages):
            if not stage.is_break:
                count += 1
                if count == level:
                    return index
        return None
