"""The house's named rule sets on one table, in pure code: which one it runs, and which it takes at the next hand.

The tables' configuration names rule sets (``[rule_sets.bubble]``, :mod:`shotclock.config`): near the money the
floor puts a room, a section or the whole venue on "bubble" (a 30 s shot clock on every decision) with one
command, and back. A rule set is a *layer* of the table's rhythm (:mod:`shotclock.core.rhythm`): the floor's
``rule_set`` proposes it for the next hand, and the dealer's next ``hand`` moves it in (TDA 2024 Rule 23 for a new
level, the same for any change of the rules), never during a clock or a hand. A name the table does not know is
refused with the reason, naming those it knows.

Example::

    >>> from shotclock.core import events as ev
    >>> from shotclock.core.rhythm import NextHand
    >>> from shotclock.core.settings import Settings
    >>> sets, rhythm = RuleSets({"bubble": (("mode", "shot"),)}), NextHand(Settings(), 100)
    >>> sets.handle(ev.UseRuleSet(1.0, "final"), rhythm)[0].reason
    "this table has no rule set 'final' (it has: bubble)"
    >>> sets.handle(ev.UseRuleSet(2.0, "bubble"), rhythm)[0].next, sets.view(rhythm)
    ('bubble', RuleSetView(rule_set='', next='bubble'))
    >>> start = rhythm.at_hand()
    >>> start.settings.mode, sets.applied(5.0, "", start.after)
    ('shot', [RuleSetChanged(t=5.0, why='applied', rule_set='bubble', next=None)])
"""

from __future__ import annotations

from dataclasses import replace

import msgspec

from shotclock.core import events as ev
from shotclock.core.reasons import reason
from shotclock.core.rhythm import Changes, NextHand, Rhythm

OWN = ""  # the table's own rules (its configuration without a rule set)
RESET = "chips.reset"  # a rule set that sets every seated player's chips to exactly its allowance at its first hand


class RuleSetView(msgspec.Struct, frozen=True):
    """The rule set as the screen, the state message and the dashboard show it; as it is written, the state
    message's ``rule_set`` (docs/network.md): ``name`` in force, ``next`` waiting or null."""

    rule_set: str = msgspec.field(name="name")  # in force ("": the table's own rules)
    next: str | None = None  # taken at the next hand (None: no change waiting)


def name_of(rhythm: Rhythm) -> str:
    """The named rule set a rhythm's layers hold ("": none)."""
    return rhythm.layers[0][0] if rhythm.layers else OWN


class RuleSets:
    """The named rule sets a table knows (name → its rule changes, as the configuration's ``[rule_sets.NAME]``
    gives them) and the floor's choice among them, kept as the layer of the table's :class:`NextHand`."""

    def __init__(self, sets: dict[str, Changes] | None = None):
        self.sets = dict(sets or {})

    def layers(self, name: str) -> tuple[tuple[str, Changes], ...]:
        """The rhythm's layers for rule set ``name`` (none for the table's own rules): its rule changes (what it
        does at its first hand, ``chips.reset``, is not a rule the hands play)."""
        if name == OWN:
            return ()
        return ((name, tuple((k, v) for k, v in self.sets[name] if k != RESET)),)

    def resets_chips(self, name: str) -> bool:
        """Whether rule set ``name`` sets every seated player's chips to exactly its allowance at its first hand."""
        return name != OWN and (RESET, True) in self.sets.get(name, ())

    def view(self, rhythm: NextHand) -> RuleSetView | None:
        """What to show (None: the table's own rules, nothing waiting)."""
        current, upcoming = name_of(rhythm.current), name_of(rhythm.upcoming)
        if current == OWN and upcoming == OWN:
            return None
        return RuleSetView(current, upcoming if upcoming != current else None)

    def handle(self, event: ev.UseRuleSet, rhythm: NextHand) -> list[ev.Output]:
        """The floor's ``rule_set``: proposed for the next hand, or ``ignored`` with the reason."""
        name = event.rule_set
        if name != OWN and name not in self.sets:
            known = ", ".join(sorted(self.sets)) or "none"
            return [ev.Ignored(event.t, event.NAME, reason("rule_set_unknown", name=name, known=known))]
        if name == name_of(rhythm.upcoming):
            return [ev.Ignored(event.t, event.NAME, reason("rule_set_same", name=name or "own"))]
        rhythm.propose(lambda r: replace(r, layers=self.layers(name)))
        view = self.view(rhythm)
        return [ev.RuleSetChanged(event.t, "chosen", name_of(rhythm.current), view.next if view else None)]

    def applied(self, t: float, before: str, now: Rhythm) -> list[ev.Output]:
        """A new hand began (:meth:`NextHand.at_hand` moved ``now`` in): the record of the rule set it brought, when
        it is not ``before``, the one of the hand before (the caller resets the chips when it says so:
        :meth:`resets_chips`)."""
        after = name_of(now)
        return [ev.RuleSetChanged(t, "applied", after, None)] if before != after else []

    def restore(self, record: dict, rhythm: NextHand, t: float) -> list[ev.Output]:
        """Back from the log's last ``rule_set`` record (a restart): the rule set in force and the one waiting go
        back into ``rhythm`` (a rule set no longer configured is not restored: nothing)."""
        current, waiting = record.get("rule_set"), record.get("next")
        if not isinstance(current, str) or (current != OWN and current not in self.sets):
            return []
        if not (isinstance(waiting, str) and (waiting == OWN or waiting in self.sets)):
            waiting = None
        if current == OWN and waiting in (None, OWN):
            return []
        now = replace(rhythm.current, layers=self.layers(current))
        rhythm.restore(now, replace(now, layers=self.layers(waiting)) if waiting is not None else None)
        return [ev.RuleSetChanged(t, "restored", current, waiting)]
