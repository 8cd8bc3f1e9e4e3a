"""What a table's link sends to the floor broker besides its records, and when: the sender's decisions.

The link's sender thread (:mod:`shotclock.adapters.sender`) tells an :class:`Uplink` what happened -- a
connection made or lost, a state or an ack to send, the login or the outbox failing or mending, another
device seen with this table's identity -- and asks it what to do: what to publish now
(:meth:`Uplink.outgoing`), whether the login or the outbox is due another try, whether the retained status
must say again what fails (:meth:`Uplink.status_due`), and what the screen's mark shows
(:meth:`Uplink.status`). No threads, no MQTT client, no clock, no disk: time comes in as ``now``
(monotonic seconds). The records themselves are :class:`~shotclock.core.delivery.Delivery`'s.

Example::

    >>> u = Uplink()
    >>> u.state(b"s1"); u.ack(b"a1"); u.outgoing()  # offline: nothing goes, nothing is lost
    []
    >>> u.connected(); [(p.leaf, p.payload) for p in u.outgoing()]
    [('state', b's1'), ('cmd/ack', b'a1')]
    >>> u.outbox_failed("outbox: database is locked", now=10.0), u.outbox_due(10.5), u.outbox_due(11.0)
    (True, False, True)
    >>> u.status_due()  # the retained status says what fails
    'outbox: database is locked'
    >>> u.outbox_ok(), u.status_due()  # mended: said again, without it
    (True, '')
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

ACKS_KEPT = 1000  # command acks waiting for a connection (older ones are of no use to anyone)
CLONE_SHOWN = 120.0  # seconds the screen and the state say "another device is this table" after the last sign
LOGIN_RETRY = 5.0  # seconds between tries to read a login file that could not be read (sooner when it changes)
BACKOFF = (1.0, 30.0)  # the outbox's retry delay after a failure: first, longest (doubling in between)
ROUND = 1.0  # seconds a sender's round waits at most for something to happen
STOP_TIMEOUT = 2.0  # seconds a clean stop lets the last records go


@dataclass(frozen=True)
class LinkStatus:
    """What the screen's network mark shows: connected, records waiting, records given up, and why the
    broker refused (the connection, or an event). Made by the sender thread; read by anyone."""

    connected: bool
    pending: int
    dropped: int = 0
    refused: str = ""
    fault: str = ""  # a fault on this side: "credentials", "tls" or "outbox" (see core.view.NETWORK_FAULTS)
    detail: str = ""  # the fault's cause, one line (also in the retained status as "degraded")
    clone: bool = False  # another device uses this table's identity (a cloned SD card): seen lately
    taken: str = ""  # the broker's reason when another connection with this table's credential took its session
    #                  lately ("": not lately)
    takeovers: int = 0  # how often that happened in this run (each is a record in the decision log)


@dataclass(frozen=True)
class Publish:
    """A message to publish on this table's ``leaf`` topic (QoS 1); ``expiry``: its MQTT 5 Message Expiry
    Interval in seconds (None: none)."""

    leaf: str
    payload: bytes
    retain: bool = False
    expiry: int | None = None


class Uplink:
    """The sender's decisions (pure; one owner thread). See the module's docstring."""

    def __init__(self):
        self.online = False
        self.stopping = False
        self.refused = ""  # why the broker refused (the connection, or an event), for the screen
        self.end_to_end = False  # a collector's status is on the broker: delivered means stored in the archive
        self.login_fault: tuple[str, str] | None = None  # (kind, detail) while the login cannot be read
        self.outbox_fault = ""  # why the outbox failed last ("": it works)
        self.clone_seen: float | None = None  # the last sign of another device as this table
        self.taken_seen: float | None = None  # the last time another connection took this table's session
        self.taken_reason = ""  # what the broker said then
        self.takeovers = 0
        self.sent_boots: set[str] = set()  # boots of the records sent in this run (the archive's word names one)
        self._state: bytes | None = None
        self._state_expiry: int | None = None
        self._state_due = False
        self._acks: collections.deque[bytes] = collections.deque(maxlen=ACKS_KEPT)
        self._clone_said = -CLONE_SHOWN
        self._login_retry_at = 0.0
        self._login_signature: tuple | None = None
        self._outbox_retry_at = 0.0
        self._backoff = BACKOFF[0]
        self._degraded_sent: str | None = ""  # the "degraded" reason the broker's retained status holds

    # -- what happened --------------------------------------------------------------------------------

    def connected(self) -> None:
        """A connection: the connect published a fresh status (without ``degraded``); the broker may have lost
        the retained state (a crash), so the last one goes again."""
        self.online = True
        self.refused = ""
        self._degraded_sent = ""
        self._state_due = self._state is not None

    def disconnected(self) -> bool:
        """The connection is lost; True when that is worth saying (it was up, and the link is not stopping)."""
        worth = self.online and not self.stopping
        self.online = False
        return worth

    def broker_refused(self, why: str) -> None:
        """The broker refused the connection (``why``), or an event."""
        self.refused = why

    def state(self, payload: bytes, expiry: int | None = None) -> None:
        """The newest state to send (it replaces one not yet sent)."""
        self._state, self._state_expiry, self._state_due = payload, expiry, True

    def ack(self, *payloads: bytes) -> None:
        """Command acks to send (the oldest go past ``ACKS_KEPT`` waiting)."""
        self._acks.extend(payloads)

    def restatus(self) -> None:
        """What the retained status holds changed (its bridge became known): it is published again."""
        self._degraded_sent = None

    def clone(self, now: float) -> bool:
        """A sign of another device with this table's identity; True when it is to be said (once per
        ``CLONE_SHOWN``)."""
        self.clone_seen = now
        if now - self._clone_said < CLONE_SHOWN:
            return False
        self._clone_said = now
        return True

    def taken(self, reason: str, now: float) -> None:
        """The broker ended the connection because another, with this table's credential, took its session
        (``reason``: the broker's words): a sign of another device too (:meth:`clone`), shown for
        ``CLONE_SHOWN``."""
        self.clone(now)
        self.taken_seen, self.taken_reason = now, reason
        self.takeovers += 1

    def collector(self, status) -> bool:
        """A collector's retained status (a dict; None when removed); True when the unconfirmed records go
        again (a collector online: it may have missed them, or one of a share group's members is gone with
        what its session held)."""
        self.end_to_end = isinstance(status, dict)
        return self.end_to_end and status.get("online") is True

    def stored_seq(self, stored) -> int | None:
        """The record an archive's ``stored`` word names, when it names one this run sent (else None)."""
        if not isinstance(stored, dict) or stored.get("boot") not in self.sent_boots:
            return None
        seq = stored.get("seq")
        return seq if isinstance(seq, int) and not isinstance(seq, bool) else None

    # -- the login ----------------------------------------------------------------------------------

    def login_due(self, now: float, signature: tuple) -> bool:
        """Whether to read the login now: it never failed, the retry is due, or its files changed."""
        if self.login_fault is not None and now < self._login_retry_at and signature == self._login_signature:
            return False
        self._login_signature = signature
        return True

    def login_failed(self, kind: str, detail: str, now: float) -> bool:
        """The login could not be read; True when this is a new cause (to be said)."""
        new = self.login_fault is None or detail != self.login_fault[1]
        self.login_fault = (kind, detail)
        self._login_retry_at = now + LOGIN_RETRY
        return new

    def login_read(self) -> bool:
        """The login was read (connecting); True when it had failed before."""
        failed, self.login_fault = self.login_fault is not None, None
        return failed

    # -- the outbox -----------------------------------------------------------------------------------

    def outbox_due(self, now: float) -> bool:
        """Whether the outbox may be used now (it works, or its retry is due)."""
        return not self.outbox_fault or now >= self._outbox_retry_at

    def outbox_failed(self, reason: str, now: float, repaired: bool = False) -> bool:
        """The outbox failed (``reason``, one line); retried after a doubling delay, or at once when a damaged
        one was ``repaired`` (made anew). True when this is a new cause (to be said)."""
        new = reason != self.outbox_fault
        self.outbox_fault = reason
        if repaired:
            self._outbox_retry_at = now
            return new
        self._outbox_retry_at = now + self._backoff
        self._backoff = min(BACKOFF[1], self._backoff * 2)
        return new

    def outbox_ok(self) -> bool:
        """The outbox worked; True when it had failed (mended: to be said)."""
        failed, self.outbox_fault = bool(self.outbox_fault), ""
        self._backoff = BACKOFF[0]
        return failed

    # -- what to do -----------------------------------------------------------------------------------

    def outgoing(self) -> list[Publish]:
        """What to publish now: the newest state (retained) when due, then the acks; nothing while offline."""
        if not self.online:
            return []
        out = []
        if self._state_due:
            out.append(Publish("state", self._state, retain=True, expiry=self._state_expiry))
            self._state_due = False
        while self._acks:
            out.append(Publish("cmd/ack", self._acks.popleft()))
        return out

    def fault(self) -> tuple[str, str]:
        """What fails on this side, (kind, detail): the login first, then the outbox; ("", "") when nothing."""
        if self.login_fault is not None:
            return self.login_fault
        if self.outbox_fault:
            return "outbox", self.outbox_fault
        return "", ""

    def status_due(self) -> str | None:
        """The ``degraded`` reason ("" for none) the retained status must say now, or None when it says it."""
        detail = self.fault()[1]
        if not self.online or detail == self._degraded_sent:
            return None
        self._degraded_sent = detail
        return detail

    def status(self, pending: int, dropped: int, now: float) -> LinkStatus:
        """What the screen's mark shows now."""
        kind, detail = self.fault()
        clone = self.clone_seen is not None and now - self.clone_seen < CLONE_SHOWN
        taken = self.taken_reason if self.taken_seen is not None and now - self.taken_seen < CLONE_SHOWN else ""
        return LinkStatus(self.online, pending, dropped, self.refused, kind, detail, clone, taken, self.takeovers)

    def wait(self, now: float) -> float:
        """How long the next round may wait for something to happen: a round, or less when a retry is due."""
        due = [ROUND]
        if self.outbox_fault:
            due.append(self._outbox_retry_at - now)
        return max(0.0, min(due))
