"""``shotclock send``: one floor command to a table over the floor network, and its acknowledgement.

The command is checked here as the device checks it (:func:`shotclock.core.wire.command_problem`), so a
mistake is one line and exit 2 before anything is sent. It goes to the table's ``cmd`` topic with a 5 s
message expiry, as the dashboard sends it; the table's ``cmd/ack`` is printed as one line
(``table 7: ok: pause: pause (remaining 12.48)``, or ``table 7: refused: …`` with the table's reason), or as the
ack's JSON with ``--json``. A seat command the table cannot carry out (a seat out of range, an empty seat,
seat tracking off) comes back ``ignored`` with the reason: exit 1.

To move a player to another table with their chips, time bank and mark: ``send … --table 3 empty --seat 5`` prints
the ``bank``, ``chips`` and ``mark`` they leave with; ``send … --table 8 seat --seat 2 --player NAME --bank B --chips C
--mark clock --mark-seconds 10``. ``send … mark --seat 5 --mark warning`` (or ``--mark clock --mark-seconds 10``)
marks a player; ``unmark --seat 5`` takes it off; the table records the login that sent it as who marked.

``--all`` sends to every table of the venue at once (``--room``, ``--section``: the tables there take it, the
others drop it): ``send … --all --room East level --level 12`` prints each table's answer, one line a table, as
they come, waiting for every table its retained status shows online there (or ``--wait`` seconds); exit 0 when
every one of them took it.
"""

from __future__ import annotations

import queue
import sys
import time
import uuid

from shotclock.core.codec import decode, encode, text
from shotclock.core.inbound import MAX_PAYLOAD
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


def _value(value) -> str:
    if isinstance(value, float):
        return f"{round(value, 2):g}"
    if isinstance(value, (list, dict)):
        return text(value)
    return str(value)


def ack_line(table: str, ack: dict) -> str:
    """The table's answer as one line for a person: ``ok`` with what the command did (each output record's
    type and fields), or ``refused`` with the table's reason.

    >>> ack_line("7", {"name": "empty", "outcome": "done",
    ...                "outputs": [{"t": 8.1, "type": "seat", "seat": 4, "change": "emptied", "bank": 150.0}]})
    'table 7: ok: empty: seat (seat 4, change emptied, bank 150)'
    >>> ack_line("7", {"name": "seat", "outcome": "ignored", "reason": "seat 2 is taken by Ana Costa"})
    'table 7: refused: seat: seat 2 is taken by Ana Costa'
    """
    name = ack.get("name") or "the command"
    if ack.get("outcome") != "done":
        return f"table {table}: refused: {name}: {ack.get('reason') or ack.get('outcome') or 'no reason given'}"
    did = []
    for record in ack.get("outputs") or []:
        fields = ", ".join(f"{k} {_value(v)}" for k, v in record.items() if k not in ("t", "type"))
        did.append(f"{record.get('type')} ({fields})" if fields else str(record.get("type")))
    return f"table {table}: ok: {name}" + (f": {'; '.join(did)}" if did else ": nothing changed")


def for_tables(status: dict, room: str | None, section: str | None) -> bool:
    """Whether a table's retained ``status`` shows it online where a command for ``room`` and ``section`` goes (the
    tables that will answer it)."""
    return (status.get("online") is True and (room is None or status.get("room", "") == room)
            and (section is None or status.get("section", "") == section))


def cmd_send(args) -> int:
    """Send one command, wait for its ack, print it; 0 when done, 1 when ignored or refused."""
    from shotclock.core.topics import command_topic, table_topic

    if getattr(args, "all", False):
        return _send_all(args)
    # A person's own login writes under its name (the device records that sender); the shared floor login
    # (tools, the demo) writes the table's plain command topic.
    with _Sending(args, [(table_topic(args.venue, args.table, "cmd/ack"), 1)]) as sending:
        topic = table_topic(args.venue, args.table, "cmd") if sending.username == "floor" else \
            command_topic(args.venue, args.table, sending.username)
        deadline = sending.publish(topic, args.table)
        while True:
            try:
                _, payload = sending.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                ack = decode(payload, max_bytes=MAX_PAYLOAD)
            except queue.Empty:
                raise ShotclockError(f"table {args.table} did not answer within {args.wait:g} s "
                                     "(is it on the network?)") from None
            except ValueError:
                continue
            if isinstance(ack, dict) and ack.get("id") == sending.message["id"]:
                break
    print(text(ack) if args.json else ack_line(args.table, ack))
    return 0 if ack.get("outcome") == "done" else 1


class _Sending:
    """One command on its way: the floor login connected and subscribed to ``subscriptions`` (each message into
    :attr:`inbox` as (topic, payload)), the command built from ``args`` and checked before anything is sent."""

    def __init__(self, args, subscriptions: list[tuple[str, int]]):
        from shotclock.floor.client import floor_client

        self.args = args
        self.client, self.username = floor_client(args, f"shotclock-send-{uuid.uuid4().hex[:16]}")
        self.message = build_message(args, self.username, int(time.time() * 1000))
        self.inbox: queue.Queue = queue.Queue()
        self._ready: queue.Queue = queue.Queue()
        self._published: queue.Queue = queue.Queue()  # the broker's PUBACK reason code for the command
        client = self.client
        client.on_connect = lambda c, u, f, rc, p: self._ready.put(rc) if rc.is_failure else c.subscribe(subscriptions)
        client.on_subscribe = lambda c, u, mid, rcs, p: self._ready.put(0)
        client.on_message = lambda c, u, m: self.inbox.put((m.topic, m.payload))
        client.on_publish = lambda c, u, mid, rc, p: self._published.put(rc)

    def __enter__(self) -> "_Sending":
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
        except BaseException:
            self.__exit__()
            raise
        return self

    def publish(self, topic: str, table: str | None) -> float:
        """Publish the command (5 s message expiry, as the pages send it) and wait for the broker's PUBACK; returns
        the deadline for the answers. ``table``: the table it goes to (None: every table), for the refusal's line."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = 5
        self.client.publish(topic, encode(self.message), qos=1, properties=props)
        deadline = time.monotonic() + self.args.wait
        try:
            refused = refusal(self._published.get(timeout=self.args.wait), self.username, table)
        except queue.Empty:
            raise ShotclockError(f"the broker did not acknowledge the command within {self.args.wait:g} s") from None
        if refused:
            raise ShotclockError(refused)
        return deadline

    def __exit__(self, *exc) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _send_all(args) -> int:
    """``send --all``: the command to every table of the venue (``--room``, ``--section``: those there); each table's
    answer printed as it comes; 0 when every table online there took it, 1 otherwise."""
    from shotclock.core.topics import all_tables, command_topic, split_table_topic, venue_cmd_topic

    online: set[str] = set()
    answers: dict[str, dict] = {}
    with _Sending(args, [(all_tables(args.venue, "cmd/ack"), 1), (all_tables(args.venue, "status"), 1)]) as sending:
        topic = venue_cmd_topic(args.venue) if sending.username == "floor" else \
            command_topic(args.venue, None, sending.username)
        sent = time.monotonic()
        deadline = sending.publish(topic, None)
        # The retained statuses come at once; a moment's grace lets them in before "every table answered" counts.
        while time.monotonic() < deadline:
            if online and online <= answers.keys() and time.monotonic() > sent + 0.5:
                break
            try:
                topic, payload = sending.inbox.get(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                continue
            parts = split_table_topic(topic)
            try:
                body = decode(payload, max_bytes=MAX_PAYLOAD) if payload else {}
            except ValueError:
                continue
            if parts is None or not isinstance(body, dict):
                continue
            table, leaf = parts[1], parts[2]
            if leaf == "status":
                (online.add if for_tables(body, args.room, args.section) else online.discard)(table)
            elif leaf == "cmd/ack" and body.get("id") == sending.message["id"] and table not in answers:
                answers[table] = body
                print(text(body) if args.json else ack_line(table, body), flush=True)
    silent = sorted(online - answers.keys(), key=_table_order)
    done = sum(1 for a in answers.values() if a.get("outcome") == "done")
    summary = f"{len(answers)} tables answered, {done} took it"
    if silent:
        summary += f"; no answer within {args.wait:g} s from {len(silent)} online: {', '.join(silent)}"
    print(summary, file=sys.stderr)
    return 0 if answers and done == len(answers) and not silent else 1


def _table_order(table: str):
    return (0, int(table), "") if table.isdigit() else (1, 0, table)
