"""A tournament's structure: its levels and breaks, in order, as the tournament clock plays them.

A structure is what a floor already keeps in The Tournament Director (TD) or a spreadsheet: levels (small blind,
big blind, an ante or a big-blind ante, minutes) and breaks (minutes and a name: "dinner", "color-up"); at a final
table a level may end after a number of hands instead of minutes. The readers of TD's saved tournament, TD's rounds
export, a plain CSV and the project's own TOML all give a :class:`Structure`; the tournament clock
(:mod:`shotclock.core.tournament`) plays it. Levels are numbered from 1 in order, breaks not counted.

What a structure may hold is said once, here, with the bounds of the table of fields (:mod:`shotclock.core.fields`):
:func:`stage_problem` and :func:`structure_problem` name the first field that breaks a rule, and every reader
(:mod:`shotclock.core.structure_formats`) says where it stands in its file. A level has blinds of 1 chip or more, the
big blind not less than the small blind (a small blind above the big blind is refused: it is a typo the clock would
announce at every table), an ante of 0 or more, and lasts 1 to 240 minutes or ends after 1 to 100 hands; a break
has no blinds, ante or hands and lasts 1 to 240 minutes; a structure has at least one level and at most 100 levels
(the tables' levels go 1 to 100) and 100 breaks.

Example::

    >>> s = Structure("Sunday", (Stage(minutes=20, small_blind=25, big_blind=50),
    ...                          Stage(minutes=5, is_break=True, name="color-up"),
    ...                          Stage(minutes=20, small_blind=50, big_blind=100, ante=100, big_blind_ante=True)))
    >>> [s.level_of(i) for i in range(3)], s.stages[2].blinds
    ([1, None, 2], '50/100, BB ante 100')
    >>> structure_problem(s) is None, stage_problem(Stage(minutes=20, small_blind=100, big_blind=50))
    (True, ('small_blind', "'small_blind' (100) must not be more than 'big_blind' (50)"))
"""

from __future__ import annotations

import msgspec

from shotclock.core.fields import FIELDS, LEVEL_MAX, shown


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

    def label(self, index: int) -> str:
        """The stage at ``index`` as a person names it: ``level 3``, ``the break after level 2`` (``the break before
        level 1`` at the start)."""
        level = sum(1 for s in self.stages[: index + 1] if not s.is_break)
        if not self.stages[index].is_break:
            return f"level {level}"
        return f"the break after level {level}" if level else "the break before level 1"


# The fields a level needs (its minutes only when it ends by them); the rest default to none (0, "", false).
_NEEDED = ("small_blind", "big_blind")
_BREAK_HAS_NONE = ("small_blind", "big_blind", "ante", "hands")


def stage_problem(stage: Stage) -> tuple[str, str] | None:
    """The first rule ``stage`` breaks, as (its field's name in :class:`Stage`, one line naming the field), or None.

    A reader may build a :class:`Stage` of what its file holds (a missing field as None, a text where a number
    should be): this says what is wrong with it in the table of fields' words.

    >>> stage_problem(Stage(minutes=10, is_break=True, small_blind=25))
    ('small_blind', "a break has no blinds, ante or hands: 'small_blind' is 25")
    >>> stage_problem(Stage(minutes=None, small_blind=25, big_blind=50))
    ('minutes', "a level needs 'level_minutes' (a number of minutes from 1 to 240)")
    """
    if not isinstance(stage.is_break, bool):
        return "is_break", f"'is_break' must be true or false, not {shown(stage.is_break)}"
    problem = FIELDS["stage_name"].problem(stage.name)
    if problem:
        return "name", problem
    if stage.is_break:
        for key in _BREAK_HAS_NONE:
            value = getattr(stage, key)
            if value not in (0, None) or value is True:
                return key, f"a break has no blinds, ante or hands: '{key}' is {shown(value)}"
        if stage.big_blind_ante not in (False, None):
            return "big_blind_ante", "a break has no blinds, ante or hands: 'big_blind_ante' is true"
        return _field_problem("minutes", "break_minutes", stage.minutes, "a break")
    for key in _NEEDED:
        problem = _field_problem(key, key, getattr(stage, key), "a level")
        if problem:
            return problem
    for key in ("ante", "big_blind_ante", "hands"):
        problem = FIELDS[key].problem(getattr(stage, key))
        if problem:
            return key, problem
    if not (stage.hands and stage.minutes in (0, None)):  # a level that ends by hands needs no minutes
        problem = _field_problem("minutes", "level_minutes", stage.minutes, "a level")
        if problem:
            return problem
    if stage.small_blind > stage.big_blind:
        return "small_blind", (f"'small_blind' ({stage.small_blind}) must not be more than 'big_blind' "
                               f"({stage.big_blind})")
    return None


def _field_problem(key: str, field: str, value, what: str) -> tuple[str, str] | None:
    """``value`` of the stage's ``key`` checked as the table's ``field``; a missing one (None) is named as needed."""
    rule = FIELDS[field]
    if value is None:
        return key, f"{what} needs '{field}' ({rule.what} from {rule.low} to {rule.high})"
    problem = rule.problem(value)
    return (key, problem) if problem else None


def structure_problem(structure: Structure) -> tuple[int | None, str, str] | None:
    """The first rule ``structure`` breaks, as (the stage's index or None for the whole, the field's name, one line
    naming the field), or None: its title, each stage (:func:`stage_problem`), then at least one level and at most
    :data:`~shotclock.core.fields.LEVEL_MAX` levels and as many breaks."""
    problem = FIELDS["title"].problem(structure.title)
    if problem:
        return None, "title", problem
    levels = breaks = 0
    for index, stage in enumerate(structure.stages):
        problem = stage_problem(stage)
        if problem:
            return (index, *problem)
        if stage.is_break:
            breaks += 1
        else:
            levels += 1
        if levels > LEVEL_MAX or breaks > LEVEL_MAX:
            what = "breaks" if breaks > LEVEL_MAX else "levels"
            return index, "stages", (f"a structure has at most {LEVEL_MAX} {what} (the tables' levels go 1 to "
                                     f"{LEVEL_MAX})")
    if not levels:
        return None, "stages", "a structure needs at least one level (" + \
            ("only breaks were read)" if breaks else "none was read)")
    return None


def structure_lines(structure: Structure) -> list[str]:
    """The structure as ``shotclock structure`` prints it: a heading, then one line a stage (levels numbered, their
    blinds and ante, breaks by name), each with its minutes or hands.

    >>> sunday = Structure("Sunday", (Stage(20, 25, 50), Stage(5, is_break=True, name="color-up"),
    ...                               Stage(0, 400, 800, 800, True, hands=12)))
    >>> print("\\n".join(structure_lines(sunday)))
    Sunday: 2 levels, 1 break, 25 min and 12 hands
      level 1   25/50                     20 min
      break     color-up                   5 min
      level 2   400/800, BB ante 800    12 hands
    """
    stages = structure.stages
    levels = sum(1 for s in stages if not s.is_break)
    breaks = len(stages) - levels
    minutes = sum(s.minutes for s in stages if not s.hands)
    hands = sum(s.hands for s in stages)
    length = _minutes(minutes) + (f" and {hands} hands" if hands else "")
    head = (f"{structure.title or 'structure'}: {levels} level{'s' * (levels != 1)}, "
            f"{breaks} break{'s' * (breaks != 1)}, {length}")
    lines = [head]
    width = max(len(s.blinds if not s.is_break else s.name) for s in stages)
    for index, stage in enumerate(stages):
        level = structure.level_of(index)
        label = "break" if level is None else f"level {level}"
        what = stage.name if stage.is_break else stage.blinds
        game = f"  {stage.name}" if stage.name and not stage.is_break else ""
        length = f"{stage.hands} hands" if stage.hands else f"{stage.minutes:g} min"
        lines.append(f"  {label:<9} {what:<{width}}  {length:>10}{game}".rstrip())
    return lines


def _minutes(minutes: float) -> str:
    """``20 min``, ``12.5 min``, ``5 h 40 min`` (an hour or more)."""
    whole = int(minutes)
    text = f"{minutes:g} min" if minutes != whole or minutes < 60 else ""
    if not text:
        hours, rest = divmod(whole, 60)
        text = f"{hours} h" + (f" {rest} min" if rest else "")
    return text
