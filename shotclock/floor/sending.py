"""One floor command on its way from a floor tool (``shotclock send``): the floor login
connected, what the venue's broker retains read first (:class:`~shotclock.floor.venue.VenueView`), the command
built and checked as the device checks it (:func:`shotclock.core.wire.command_problem`), published with a 5 s
message expiry as the dashboard sends it, and the broker's PUBACK read: a refusal is said, never waited out.
"""

from __future__ import annotations

import collections
import queue
import time
import uuid

from shotclock.core.codec import encode
from shotclock.errors import ShotclockError


def build_message(args, sender: str, now_ms: int) -> dict:
    """The command message the arguments describe (ShotclockError naming what is wrong)."""
    from shotclock.core.fields import FIELDS, SCOPE, SEAT_FIELDS
    from shotclock.core.wire import command_problem

    message = {"id": uuid.uuid4().hex[:16], "name": args.command, "sender": sender, "sent_ms": now_ms}
    for key in SEAT_FIELDS + ("seat",) + SCOPE:
        value = getattr(args, key, None)  # players come from --seating
        if value is not None:
            problem = FIELDS[key].value_problem(value)  # named by its option: a name from argv is checked here
            if problem:
                raise ShotclockError(f"--{key.replace('_', '-')}: {problem}")
            message[key] = value
    if args.facing_bet is not None:
        message["facing_bet"] = args.facing_bet == "true"
    if args.seating is not None:
        from shotclock.shell.seatingcmd import read_seating

        message["players"] = [[seat, name] for seat, name in read_seating(args.seating, args.seats, args.encoding)]
    problem = command_problem(message)
    if problem:
        raise ShotclockError(problem if problem.startswith("the ") else f"the command: {problem}")
    if "mark" in message or "mark_seconds" in message:  # a mark's fields together, as the table will read them
        from shotclock.core.seats import mark_problem

        problem = mark_problem(message.get("mark"), message.get("mark_seconds"))
        if problem:
            raise ShotclockError(f"the command: {problem}")
    return message


NOT_AUTHORIZED = 0x87  # MQTT 5 reason code: the ACL does not let this login publish on that topic


def refusal(reason_code, username: str, table: str | None) -> str:
    """The line to say when the broker's PUBACK refused the command, or "" when it took it (MQTT 5 says why; a
    refused command never reaches the table, so waiting for its answer would blame the table). ``table`` None: a
    command to every table.

        >>> from paho.mqtt.reasoncodes import ReasonCode
        >>> from paho.mqtt.packettypes import PacketTypes
        >>> refusal(ReasonCode(PacketTypes.PUBACK, identifier=0x87), "overlay", "1")
        "the broker refused the command: not allowed for this login ('overlay' may not command table 1)"
    """
    value = getattr(reason_code, "value", reason_code)
    if value is None or value < 0x80:
        return ""
    if value == NOT_AUTHORIZED:
        where = "every table" if table is None else f"table {table}"
        return f"the broker refused the command: not allowed for this login ({username!r} may not command {where})"
    return f"the broker refused the command: {reason_code} (reason code {value})"


class Sending:
    """One command on its way: the floor login connected; what the venue's broker retains (``reads``: the tables'
    statuses, …) read into :attr:`view` before anything is sent; subscribed to ``answers``; the command built from
    ``args`` and checked before anything is sent. :meth:`next` gives each later message that is not one of
    ``reads``' (those go into :attr:`view` as they change)."""

    def __init__(self, args, reads: list[tuple[str, int]], answers: list[tuple[str, int]]):
        from shotclock.floor.client import floor_client
        from shotclock.floor.venue import VenueView

        self.args = args
        self.view = VenueView(args.venue)
        self.client, self.username = floor_client(args, f"shotclock-send-{uuid.uuid4().hex[:16]}")
        self.message = build_message(args, self.username, int(time.time() * 1000))
        self.inbox: queue.Queue = queue.Queue()
        self._ready: queue.Queue = queue.Queue()
        self._published: queue.Queue = queue.Queue()  # (mid, the broker's PUBACK reason code)
        self._acked: dict[int, object] = {}
        self._held: collections.deque = collections.deque()  # messages read before the command went (not the view's)
        self._subscribing: dict[int, list] = {}
        client = self.client

        def on_connect(c, u, f, rc, p):
            if rc.is_failure:
                self._ready.put(rc)
            else:  # the retained reads first, alone: they arrive before the answers' SUBACK (QoS 0: never held back)
                self._subscribing[c.subscribe(reads)[1]] = answers

        def on_subscribe(c, u, mid, rcs, p):
            then = self._subscribing.pop(mid, None)
            if then is not None:
                self._subscribing[c.subscribe(then)[1]] = None
            else:
                self._ready.put(0)

        client.on_connect = on_connect
        client.on_subscribe = on_subscribe
        client.on_message = lambda c, u, m: self.inbox.put((m.topic, m.payload))
        client.on_publish = lambda c, u, mid, rc, p: self._published.put((mid, rc))

    def __enter__(self) -> "Sending":
        from shotclock.floor.client import connect

        args, username = self.args, self.username
        connect(self.client, args, keepalive=10)
        try:
            try:
                answer = self._ready.get(timeout=args.wait)
            except queue.Empty:
                raise ShotclockError(f"no answer from the broker at {args.broker} within {args.wait:g} s") from None
            if answer:
                if username.startswith("table-"):  # the broker ties a table's login to that table's own client id
                    raise ShotclockError(f"the broker refused the connection ({answer}): '{username}' is a table's "
                                         "login, which connects only as its table; send with a floor login")
                raise ShotclockError(f"the broker refused the connection ({answer}): check --credentials")
            while True:  # the retained messages: all in by the answers' SUBACK, into the view before anything is sent
                try:
                    topic, payload = self.inbox.get_nowait()
                except queue.Empty:
                    break
                if not self.view.take(topic, payload):
                    self._held.append((topic, payload))
        except BaseException:
            self.__exit__()
            raise
        return self

    def next(self, timeout: float):
        """The next message that is not a status, a bridge's or a hand-for-hand state (those update :attr:`view`),
        or None when none came within ``timeout`` seconds."""
        if self._held:
            return self._held.popleft()
        deadline = time.monotonic() + timeout
        while True:
            try:
                topic, payload = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if not self.view.take(topic, payload):
                return topic, payload

    def publish(self, topic: str, table: str | None) -> float:
        """Publish the command (5 s message expiry, as the pages send it) and wait for the broker's PUBACK; returns
        the deadline for the answers. ``table``: the table it goes to (None: every table), for the refusal's line."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = 5
        info = self.client.publish(topic, encode(self.message), qos=1, properties=props)
        deadline = time.monotonic() + self.args.wait
        refused = refusal(self.puback(info.mid, "the command"), self.username, table)
        if refused:
            raise ShotclockError(refused)
        return deadline

    def keep(self, topic: str, payload: bytes, what: str) -> None:
        """Publish ``payload`` retained on ``topic`` (empty: clear it) and wait for the broker's PUBACK (a refusal:
        ShotclockError naming ``what``)."""
        info = self.client.publish(topic, payload, qos=1, retain=True)
        code = self.puback(info.mid, what)
        value = getattr(code, "value", code)
        if value is not None and value >= 0x80:
            why = "not allowed for this login (run 'shotclock broker-config' again: its ACL lets floor logins " \
                  "keep it)" if value == NOT_AUTHORIZED else f"{code} (reason code {value})"
            raise ShotclockError(f"the broker refused {what}: {why}")

    def puback(self, mid: int, what: str):
        """The broker's PUBACK reason code for the message ``mid`` (ShotclockError after ``--wait``)."""
        deadline = time.monotonic() + self.args.wait
        while mid not in self._acked:
            try:
                got, code = self._published.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ShotclockError(f"the broker did not acknowledge {what} within {self.args.wait:g} s") from None
            self._acked[got] = code
        return self._acked.pop(mid)

    def __exit__(self, *exc) -> None:
        self.client.disconnect()  # first: paho's network thread then ends at once, not at its next second
        self.client.loop_stop()


