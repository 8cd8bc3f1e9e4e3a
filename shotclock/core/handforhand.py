"""Hand-for-hand (TDA 2024 RP-8) on one table, in pure code.

Near the money the floor plays hand-for-hand: every table plays one hand, waits until every other table has
finished its hand, and the floor releases the next hand on all of them at once. On a table:

* the floor's ``hand_for_hand`` starts it: the hand in play is played out as usual;
* the dealer's next ``hand`` (the new hand) is where the table stops: it reports the hand done and waits; no clock
  can be called or started (the screen says "hand-for-hand: wait for the floor");
* the floor's ``release_hand`` lets it deal the next hand, and counts one hand-for-hand hand;
* ``end_hand_for_hand`` ends it: the tables play on as before.

The room's state (:class:`~shotclock.core.roomstate.RoomState`) is also kept on the broker, retained, one message
per scope (the venue, a room, a section: docs/network.md, "hand-for-hand"), by whoever sends those commands to a
scope (``shotclock send --all``, the dashboard). A table takes it whenever it arrives, at every (re)connect among
them (:meth:`HandForHandState.handle` with :class:`~shotclock.core.events.RoomHandForHand`): one that missed the
start plays on in hand-for-hand, one that missed the end leaves it, one that waits and missed a release is
released, and every table reports the room's count of hands, not its own.

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
        self.seq = 0  # the room's state taken last (0: none)

    @property
    def view(self) -> HandForHandView | None:
        """What to show (None: hand-for-hand is off)."""
        return HandForHandView.of(self.waiting, self.hands, self.minutes) if self.on else None

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """The floor's ``hand_for_hand``, ``release_hand`` or ``end_hand_for_hand``: the change, or an
        ``ignored`` output with the reason (a release for a table not in hand-for-hand, or still playing)."""
        t = event.t
        if isinstance(event, ev.RoomHandForHand):
            return self._room(event)
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

    def _room(self, event: ev.RoomHandForHand) -> list[ev.Output]:
        """The room's state: taken when newer than the last taken, to put this table where the room is. Nothing
        changes (no output) when the table is there already: it took the commands the state follows."""
        if event.seq <= self.seq:
            return []
        self.seq = event.seq
        t = event.t
        if not event.on:
            if not self.on:
                return []
            self.on = self.waiting = False
            self.hands = event.hands
            return [self._changed(t, "ended")]
        if not self.on:  # it missed the start: it plays its hand, in hand-for-hand at the room's count
            self.on, self.waiting, self.hands, self.minutes = True, False, event.hands, event.minutes
            return [self._changed(t, "started")]
        released = self.waiting and event.hands > self.hands  # it missed the release it waits for
        if not released and (event.hands, event.minutes) == (self.hands, self.minutes):
            return []
        self.waiting = self.waiting and not released
        self.hands, self.minutes = event.hands, event.minutes
        return [self._changed(t, "released" if released else "counted")]

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
        restarted table never starts a clock during hand-for-hand; the room's state it took last (``seq``) too, so
        an older one is not taken after the restart. Nothing when it was off with no room's state taken, or the
        record is not one this version wrote."""
        on, waiting, hands, minutes = (record.get(k) for k in ("on", "waiting", "hands", "minutes"))
        seq = record.get("seq")
        if _whole(seq):
            self.seq = seq
        if on is not True or not isinstance(waiting, bool) or not _whole(hands) or not _minutes(minutes):
            # Off: only the room's state taken last is back, said in the log so that its replay knows it too.
            return [self._changed(t, "restored")] if _whole(seq) and seq > 0 and on is False else []
        self.on, self.waiting, self.hands, self.minutes = True, waiting, hands, minutes
        return [self._changed(t, "restored")]

    def _changed(self, t: float, why: str) -> ev.HandForHandChanged:
        return ev.HandForHandChanged(t, why, self.on, self.waiting, self.hands, self.minutes, self.seq or None)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _minutes(value) -> bool:
    return FIELDS["minutes"].problem(value) is None
