"""The tournament's rhythm: which rules the next hand is played with, and changes that wait for it.

TDA 2024 Rule 23: a new level applies from the next hand. Every change of the rules the floor makes for a
tournament's stage -- a level, a named rule set layered on top ("the bubble") -- waits here for the table's next
hand (the ``hand`` event), and never touches a clock that runs or a hand in play.

Two parts, both pure:

* :func:`settings_for_hand`: the settings of a hand from the base settings, the level's rules
  (:attr:`~shotclock.core.settings.Settings.levels`, from the configuration's ``[levels.N]`` sections) and any
  *layers* on top (a named rule set's changes, later layers winning), in that order.
* :class:`NextHand`: the rhythm in force (:class:`Rhythm`: level, hand count, hands per level, layers) and the
  one waiting for the next hand. :meth:`NextHand.propose` changes the waiting one; :meth:`NextHand.at_hand`,
  called once per hand the engine took, moves it in, counts the hand and gives the hand's settings.

A named rule set is layered by proposing ``replace(rhythm, layers=(("bubble", (("mode", "shot"), …)),))``:
:func:`settings_for_hand` applies each layer's changes after the level's.

Example::

    >>> from shotclock.core.settings import LevelRule, Settings
    >>> base = Settings(levels=(LevelRule(11, (("mode", "shot"), ("shot.preflop", 20))),))
    >>> settings_for_hand(base, 10).mode, settings_for_hand(base, 11).mode, settings_for_hand(base, 12).shot.preflop
    ('clock', 'shot', 20)
    >>> settings_for_hand(base, 12, layers=(("bubble", (("shot.preflop", 30),)),)).shot.preflop
    30
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from shotclock.core.settings import Settings

Changes = tuple[tuple[str, object], ...]  # dotted rule keys and their values, in order
AUTO = "hands"  # the ``by`` of a level the table moved to itself: its hands per level were played
FIRST_LEVEL = 1  # a table set back to it from a higher level begins a new tournament: its top-ups are given again


def with_rules(settings: Settings, changes: Mapping[str, object] | Iterable[tuple[str, object]]) -> Settings:
    """``settings`` with each dotted rule key of ``changes`` set (``"mode"``, ``"shot.preflop"``, ``"clock.seconds"``).

    Raises ValueError (from :class:`~shotclock.core.settings.Settings`) for a mode that does not exist and
    TypeError for a key that names no setting; the configuration checks both before anything runs.
    """
    items = changes.items() if isinstance(changes, Mapping) else changes
    top: dict[str, object] = {}
    sections: dict[str, dict[str, object]] = {}
    for key, value in items:
        head, dot, leaf = key.partition(".")
        if dot:
            sections.setdefault(head, {})[leaf] = value
        else:
            top[head] = value
    for head, values in sections.items():
        top[head] = replace(getattr(settings, head), **values)
    return replace(settings, **top) if top else settings


def rule_value(settings: Settings, key: str) -> object:
    """The value of the dotted rule key ``key`` in ``settings`` (``"shot.preflop"`` → 20)."""
    value: object = settings
    for part in key.split("."):
        value = getattr(value, part)
    return value


def level_changes(base: Settings, level: int | None) -> dict[str, object]:
    """The rule changes in force at ``level``: every ``[levels.N]`` rule with N up to ``level``, later ones winning
    (None: no level set, no change)."""
    changes: dict[str, object] = {}
    if level is None:
        return changes
    for rule in sorted(base.levels, key=lambda r: r.level):
        if rule.level <= level:
            changes.update(rule.changes)
    return changes


def settings_for_hand(base: Settings, level: int | None, layers: Iterable[tuple[str, Changes]] = ()) -> Settings:
    """The settings a hand at ``level`` is played with: ``base``, the level's rules, then each layer's changes
    (``(name, changes)`` pairs: a named rule set; a later layer wins). ``base`` itself when nothing changes."""
    changes = level_changes(base, level)
    for _name, layer in layers:
        changes.update(layer)
    return with_rules(base, changes) if changes else base


def top_up_levels(base: Settings, before: int | None, after: int | None, given: Iterable[int] = ()) -> tuple[int, ...]:
    """The levels whose top-up the table gives as it goes from level ``before`` to ``after``: every level with a
    top-up passed on the way up (``before`` < N <= ``after``); from no level (a tournament's first level set, or
    level 1: a new tournament), the new level's own only; none going down or staying. A level in ``given`` (its
    top-up was given in this tournament) is never given again: a correction (3, then 2, then 3 again) gives once.

        >>> from shotclock.core.settings import LevelRule
        >>> base = Settings(levels=(LevelRule(3, (), top_up_seconds=30), LevelRule(5, (), top_up_chips=2)))
        >>> top_up_levels(base, 2, 5), top_up_levels(base, 2, 5, given=(3,)), top_up_levels(base, 5, 2)
        ((3, 5), (5,), ())
    """
    if after is None or (before is not None and after <= before):
        return ()
    done = set(given)
    return tuple(sorted(rule.level for rule in base.levels
                        if (rule.top_up_chips or rule.top_up_seconds or rule.reset_chips) and rule.level not in done
                        and ((rule.level == after) if before is None else (before < rule.level <= after))))


def top_ups(base: Settings, before: int | None, after: int | None,
            given: Iterable[int] = ()) -> tuple[int | None, float | None]:
    """(chips, seconds) every seated player gets as the table goes from level ``before`` to ``after``: the top-ups of
    :func:`top_up_levels`. (None, None) when there is nothing to give."""
    return top_up_amounts(base, top_up_levels(base, before, after, given))


def top_up_amounts(base: Settings, levels: Iterable[int]) -> tuple[int | None, float | None]:
    """(chips, seconds): the top-ups of ``levels`` together ([levels.N] top_up.chips, top_up.seconds); None for none."""
    chips = seconds = None
    levels = set(levels)
    for rule in base.levels:
        if rule.level in levels:
            if rule.top_up_chips:
                chips = (chips or 0) + rule.top_up_chips
            if rule.top_up_seconds:
                seconds = (seconds or 0) + rule.top_up_seconds
    return chips, seconds


@dataclass(frozen=True)
class Rhythm:
    """Where the table is in the tournament: ``level`` (None: none set), ``hand`` (hands played at this level, the
    one in play included; 0 before its first), ``hands`` (hands per level, 0: the level runs on the tournament's
    clock, not counted), ``by`` (who set the level: the floor login the broker proved, or :data:`AUTO`),
    ``layers`` (named rule sets on top of the level's rules, as :func:`settings_for_hand` takes them),
    ``topped_up`` (the levels whose top-up the table gave in this tournament, in order: each is given once)."""

    level: int | None = None
    hand: int = 0
    hands: int = 0
    by: str = ""
    layers: tuple[tuple[str, Changes], ...] = ()
    topped_up: tuple[int, ...] = ()

    @property
    def last_hand(self) -> bool:
        """The hand in play is the level's last (hands per level counted)."""
        return bool(self.hands) and self.hand >= self.hands


@dataclass(frozen=True)
class HandStart:
    """What :meth:`NextHand.at_hand` gives: the rhythm before and after the hand began, and the hand's settings."""

    before: Rhythm
    after: Rhythm
    settings: Settings
    retuned: bool  # the settings differ from the last hand's
    top_up: tuple[int, ...] = ()  # the levels whose top-up this hand gives (each once in a tournament)

    @property
    def level_changed(self) -> bool:
        """A level began with this hand (set by the floor, or the table's own after its hands per level)."""
        return self.after.hand == 1 and self.after.level is not None


class NextHand:
    """The rhythm in force and the one waiting for the next hand (see the module's description).

    :param base: the configuration's settings (the level rules included).
    :param level_max: the highest level the table moves to by itself after its hands per level.
    """

    def __init__(self, base: Settings, level_max: int):
        self.base = base
        self.level_max = level_max
        self.current = Rhythm()
        self.pending: Rhythm | None = None
        self.settings = base

    @property
    def upcoming(self) -> Rhythm:
        """The rhythm the next hand would begin from: the waiting one, else the one in force."""
        return self.pending if self.pending is not None else self.current

    def propose(self, change: Callable[[Rhythm], Rhythm]) -> Rhythm:
        """Change the rhythm waiting for the next hand (``change`` takes the upcoming rhythm and gives the new one);
        returns it. A new level is proposed with ``hand = 0``: it starts counting afresh at its first hand."""
        self.pending = change(self.upcoming)
        return self.pending

    def restore(self, current: Rhythm, pending: Rhythm | None = None) -> None:
        """Bring back the rhythm a restart found in the log (and one that was waiting), with its settings."""
        self.current, self.pending = current, pending
        self.settings = settings_for_hand(self.base, current.level, current.layers)

    def at_hand(self) -> HandStart:
        """A hand began (the engine took a ``hand``): the waiting rhythm moves in, the hand is counted, and a level
        whose hands per level were all played moves one up (unless the floor set one). Returns the hand's
        settings and the levels whose top-up it gives (:func:`top_up_levels`, noted in ``topped_up``); the caller
        retunes the engine with them (idle: a new hand ended every clock) and gives the top-up."""
        before = self.current
        state = self.upcoming
        fresh = self.pending is not None and self.pending.hand == 0
        if not fresh and state.level is not None and state.hands and state.hand >= state.hands \
                and state.level < self.level_max:
            state = replace(state, level=state.level + 1, hand=0, by=AUTO)
        after = replace(state, hand=state.hand + 1) if state.level is not None else state
        top_up: tuple[int, ...] = ()
        if after.hand == 1 and after.level is not None:  # a level begins: its top-up, unless given already
            since, given = before.level, before.topped_up
            if after.level == FIRST_LEVEL and since is not None and since > FIRST_LEVEL:
                since, given = None, ()  # back at level 1: a new tournament
            top_up = top_up_levels(self.base, since, after.level, given)
            after = replace(after, topped_up=tuple(sorted({*given, *top_up})))
        self.current, self.pending = after, None
        settings = settings_for_hand(self.base, after.level, after.layers)
        retuned = settings != self.settings
        self.settings = settings
        return HandStart(before, after, settings, retuned, top_up)
