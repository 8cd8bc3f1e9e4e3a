"""The house's named rule sets on one table, in pure code: which one it runs, and which it takes at the next hand.

The tables' configuration names rule sets (``[rule_sets.bubble]``, :mod:`shotclock.config`): near the money the
floor puts a room, a section or the whole venue on "bubble" (a 30 s shot clock on every decision) with one
command, and back. A table takes a rule set at its next hand, never during a clock or a hand (TDA 2024 Rule 23 for
a new level, the same for any change of the rules): the floor's ``rule_set`` command is noted as the table's next
rules and acked; the dealer's next ``hand`` applies it. A name the table does not know is refused with the reason,
naming those it knows.

Example::

    >>> from shotclock.core import events as ev
    >>> from shotclock.core.settings import Settings
    >>> sets = RuleSets({"bubble": Settings(mode="shot")})
    >>> sets.handle(ev.UseRuleSet(1.0, "final"))[0].reason
    "this table has no rule set 'final' (it has: bubble)"
    >>> sets.handle(ev.UseRuleSet(2.0, "bubble"))[0].next, sets.hand_dealt(5.0)
    ('bubble', [RuleSetChanged(t=5.0, why='applied', rule_set='bubble', next=None)])
"""

from __future__ import annotations

from dataclasses import dataclass

from shotclock.core import events as ev
from shotclock.core.reasons import reason
from shotclock.core.settings import Settings

OWN = ""  # the table's own rules (its configuration without a rule set)


@dataclass(frozen=True)
class RuleSetView:
    """The rule set as the screen, the state message and the dashboard show it."""

    rule_set: str  # in force ("": the table's own rules)
    next: str | None  # taken at the next hand (None: no change waiting)

    def record(self) -> dict:
        """The state message's ``rule_set`` (docs/network.md): ``name`` in force, ``next`` waiting or null."""
        return {"name": self.rule_set, "next": self.next}


class RuleSets:
    """The named rule sets a table knows (name → :class:`~shotclock.core.settings.Settings`), the one in force
    and the one waiting for the next hand."""

    def __init__(self, sets: dict[str, Settings] | None = None):
        self.sets = dict(sets or {})
        self.current = OWN
        self.next: str | None = None

    @property
    def view(self) -> RuleSetView | None:
        """What to show (None: the table's own rules, nothing waiting)."""
        if self.current == OWN and self.next is None:
            return None
        return RuleSetView(self.current, self.next)

    def handle(self, event: ev.UseRuleSet) -> list[ev.Output]:
        """The floor's ``rule_set``: noted for the next hand, or ``ignored`` with the reason."""
        name = event.rule_set
        if name != OWN and name not in self.sets:
            known = ", ".join(sorted(self.sets)) or "none"
            return [ev.Ignored(event.t, event.NAME, reason("rule_set_unknown", name=name, known=known))]
        if name == (self.current if self.next is None else self.next):
            return [ev.Ignored(event.t, event.NAME, reason("rule_set_same", name=name or "own"))]
        self.next = None if name == self.current else name  # back to the one in force: nothing waits
        return [ev.RuleSetChanged(event.t, "chosen", self.current, self.next)]

    def hand_dealt(self, t: float) -> list[ev.Output]:
        """A new hand: the rule set waiting takes effect (the table then runs :attr:`settings`); nothing when
        none waited."""
        if self.next is None:
            return []
        self.current, self.next = self.next, None
        return [ev.RuleSetChanged(t, "applied", self.current, None)]

    @property
    def settings(self) -> Settings | None:
        """The settings of the rule set in force (None: the table's own)."""
        return self.sets.get(self.current)

    def restore(self, record: dict, t: float) -> list[ev.Output]:
        """Back from the log's last ``rule_set`` record (a restart): the rule set in force and the one waiting
        (a rule set no longer configured is not restored: nothing)."""
        current, waiting = record.get("rule_set"), record.get("next")
        if not isinstance(current, str) or (current != OWN and current not in self.sets):
            return []
        self.current = current
        self.next = waiting if isinstance(waiting, str) and (waiting == OWN or waiting in self.sets) else None
        if self.current == OWN and self.next is None:
            return []
        return [ev.RuleSetChanged(t, "restored", self.current, self.next)]
