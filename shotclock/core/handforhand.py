"""Hand-for-hand (TDA 2024 RP-8) on one table, in pure code.

Near the money the floor plays hand-for-hand: every table plays one hand, waits until every other table has
finished its hand, and the floor releases the next hand on all of them at once. On a table:

* the floor's ``hand_for_hand`` starts it: the hand in play is played out as usual;
* the dealer's next ``hand`` (the new hand) is where the table stops: it reports the hand done and waits; no clock
  can be called or started (the screen says "hand-for-hand: wait for the floor");
* the floor's ``release_hand`` lets it deal the next hand, and counts one hand-for-hand hand;
* ``end_hand_for_hand`` ends it: the tables play on as before.

Nothing here touches a running clock: a start of hand-for-hand while a clock runs leaves it running, and the table
waits only once the dealer starts the next hand. How much tournament-clock time RP-8 takes off for the hands
played (:func:`time_off`) is read in docs/rules.md, "Hand-for-hand".

Example::

    >>> from shotclock.core import events as ev
    >>> h = HandForHandState()
    >>> [o.why for o in h.handle(ev.HandForHand(1.0))], h.hand_dealt(9.0)[0].why, h.blocks(ev.Start(9.5)).reason
    (['started'], 'done', 'hand-for-hand: wait for the floor')
    >>> h.handle(ev.ReleaseHand(20.0))[0].hands, h.blocks(ev.Start(21.0)) is None
    (1, True)
"""

from __future__ import annotations

import msgspec

from shotclock.core import events as ev
from shotclock.core.fields import FIELDS
from shotclock.core.reasons import reason

RP8_MINUTES = 2  # minutes off the tournament clock for each hand-for-hand hand (RP-8; docs/rules.md)
BLOCKED = (ev.Call, ev.Start)  # what a table waiting for the floor's release does not take: a clock's start


class HandForHandView(msgspec.Struct, frozen=True):
    """Hand-for-hand as the screen, the state message and the dashboard show it; as it is written, the state
    message's ``hand_for_hand`` (docs/network.md)."""

    waiting: bool  # the table has played its hand and waits for the floor's release
    hands: int  # hand-for-hand hands released on this table so far
    minutes: float  # what each takes off the tournament clock
    time_off_s: float = 0  # the tournament-clock time those hands take off (:func:`time_off`)

    @classmethod
    def of(cls, waiting: bool, hands: int, minutes: float) -> "HandForHandView":
        """The view of ``hands`` released at ``minutes`` a hand (whole numbers as such: ``2``, not ``2.0``)."""
        return cls(waiting, hands, ev.number(float(minutes)), ev.number(float(time_off(hands, minutes))))


def time_off(hands: int, minutes: float = RP8_MINUTES) -> float:
    """Seconds of tournament clock that ``hands`` hand-for-hand hands take off at ``minutes`` a hand.

    >>> time_off(3), time_off(2, 3)
    (360, 360)
    """
    return hands * minutes * 60


class HandForHandState:
    """Whether this table plays hand-for-hand, whether it waits for the floor, and the hands released."""

    def __init__(self):
        self.on = False
        self.waiting = False
        self.hands = 0
        self.minutes: float = RP8_MINUTES

    @property
    def view(self) -> HandForHandView | None:
        """What to show (None: hand-for-hand is off)."""
        return HandForHandView.of(self.waiting, self.hands, self.minutes) if self.on else None

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """The floor's ``hand_for_hand``, ``release_hand`` or ``end_hand_for_hand``: the change, or an
        ``ignored`` output with the reason (a release for a table not in hand-for-hand, or still playing)."""
        t = event.t
        if isinstance(event, ev.HandForHand):
            if self.on:
                return [ev.Ignored(t, event.NAME, reason("hand_for_hand_on"))]
            self.on, self.waiting, self.hands = True, False, 0
            self.minutes = RP8_MINUTES if event.minutes is None else event.minutes
            return [self._changed(t, "started")]
        if not self.on:
            return [ev.Ignored(t, event.NAME, reason("hand_for_hand_off"))]
        if isinstance(event, ev.ReleaseHand):
            if not self.waiting:
                return [ev.Ignored(t, event.NAME, reason("hand_for_hand_playing"))]
            self.waiting = False
            self.hands += 1
            return [self._changed(t, "released")]
        self.on = self.waiting = False
        return [self._changed(t, "ended")]

    def hand_dealt(self, t: float) -> list[ev.Output]:
        """The dealer started a new hand (the engine took the ``hand``): while playing hand-for-hand, the hand
        before it is done and the table waits for the floor."""
        if not self.on or self.waiting:
            return []
        self.waiting = True
        return [self._changed(t, "done")]

    def blocks(self, event: ev.Event) -> ev.Ignored | None:
        """The refusal of a clock's start while the table waits for the floor's release, else None."""
        if self.waiting and isinstance(event, BLOCKED):
            return ev.Ignored(event.t, event.NAME, reason("hand_for_hand_wait"))
        return None

    def restore(self, record: dict, t: float) -> list[ev.Output]:
        """Back from the log's last ``hand_for_hand`` record (a restart): a table that waited waits on, so a
        restarted table never starts a clock during hand-for-hand. Nothing when it was off or the record is
        not one this version wrote."""
        on, waiting, hands, minutes = (record.get(k) for k in ("on", "waiting", "hands", "minutes"))
        if on is not True or not isinstance(waiting, bool) or not _whole(hands) or not _minutes(minutes):
            return []
        self.on, self.waiting, self.hands, self.minutes = True, waiting, hands, minutes
        return [self._changed(t, "restored")]

    def _changed(self, t: float, why: str) -> ev.HandForHandChanged:
        return ev.HandForHandChanged(t, why, self.on, self.waiting, self.hands, self.minutes)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _minutes(value) -> bool:
    return FIELDS["minutes"].problem(value) is None
