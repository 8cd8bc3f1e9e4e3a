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
"""

from __future__ import annotations

import json
import queue
import time
import uuid

from shotclock.errors import ShotclockError


def build_message(args, sender: str, now_ms: int) -> dict:
    """The command message the arguments describe (ShotclockError naming what is wrong)."""
    from shotclock.core.fields import FIELDS, SEAT_FIELDS
    from shotclock.core.wire import command_problem

    message = {"id": uuid.uuid4().hex[:16], "name": args.command, "sender": sender, "sent_ms": now_ms}
    for key in SEAT_FIELDS + ("seat",):
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


def refusal(reason_code, username: str, table: str) -> str:
    """The line to say when the broker's PUBACK refused the command, or "" when it took it (MQTT 5 says why; a
    refused command never reaches the table, so waiting for its answer would blame the table).

        >>> from paho.mqtt.reasoncodes import ReasonCode
        >>> from paho.mqtt.packettypes import PacketTypes
        >>> refusal(ReasonCode(PacketTypes.PUBACK, identifier=0x87), "overlay", "1")
        "the broker refused the command: not allowed for this login ('overlay' may not command table 1)"
    """
    value = getattr(reason_code, "value", reason_code)
    if value is None or value < 0x80:
        return ""
    if value == NOT_AUTHORIZED:
        return f"the broker refused the command: not allowed for this login ({username!r} may not command table {table})"
    return f"the broker refused the command: {reason_code} (reason code {value})"


def _value(value) -> str:
    if isinstance(value, float):
        return f"{round(value, 2):g}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
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


def cmd_send(args) -> int:
    """Send one command, wait for its ack, print it; 0 when done, 1 when ignored or refused."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from shotclock.core.topics import command_topic, table_topic
    from shotclock.floor.client import connect, floor_client

    client_id = f"shotclock-send-{uuid.uuid4().hex[:16]}"
    client, username = floor_client(args, client_id)
    message = build_message(args, username, int(time.time() * 1000))
    acks: queue.Queue = queue.Queue()
    ready: queue.Queue = queue.Queue()
    published: queue.Queue = queue.Queue()  # the broker's PUBACK reason code for the command
    ack_topic = table_topic(args.venue, args.table, "cmd/ack")
    client.on_connect = lambda c, u, f, rc, p: ready.put(rc) if rc.is_failure else c.subscribe(ack_topic, qos=1)
    client.on_subscribe = lambda c, u, mid, rcs, p: ready.put(0)
    client.on_message = lambda c, u, m: acks.put(m.payload)
    client.on_publish = lambda c, u, mid, rc, p: published.put(rc)
    connect(client, args, keepalive=10)
    try:
        try:
            answer = ready.get(timeout=args.wait)
        except queue.Empty:
            raise ShotclockError(f"no answer from the broker at {args.broker} within {args.wait:g} s") from None
        if answer:
            if username.startswith("table-"):  # the broker ties a table's login to that table's own client id
                raise ShotclockError(f"the broker refused the connection ({answer}): '{username}' is a table's "
                                     "login, which connects only as its table; send with a floor login")
            raise ShotclockError(f"the broker refused the connection ({answer}): check --credentials")
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = 5
        # A person's own login writes under its name (the device records that sender); the shared floor login
        # (tools, the demo) writes the table's plain command topic.
        topic = table_topic(args.venue, args.table, "cmd") if username == "floor" else \
            command_topic(args.venue, args.table, username)
        client.publish(topic, json.dumps(message), qos=1, properties=props)
        deadline = time.monotonic() + args.wait
        try:
            refused = refusal(published.get(timeout=args.wait), username, args.table)
        except queue.Empty:
            raise ShotclockError(f"the broker did not acknowledge the command within {args.wait:g} s") from None
        if refused:
            raise ShotclockError(refused)
        while True:
            try:
                ack = json.loads(acks.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise ShotclockError(f"table {args.table} did not answer within {args.wait:g} s "
                                     "(is it on the network?)") from None
            except ValueError:
                continue
            if isinstance(ack, dict) and ack.get("id") == message["id"]:
                break
    finally:
        client.loop_stop()
        client.disconnect()
    print(json.dumps(ack, ensure_ascii=False) if args.json else ack_line(args.table, ack))
    return 0 if ack.get("outcome") == "done" else 1
