"""``shotclock send``: one floor command to a table over the floor network, and its acknowledgement.

The command is checked here as the device checks it (:func:`shotclock.core.wire.command_problem`), so a
mistake is one line and exit 2 before anything is sent. It goes to the table's ``cmd`` topic with a 5 s
message expiry, as the dashboard sends it; the table's ``cmd/ack`` is printed as one line
(``table 7: ok: pause: pause (remaining 12.48)``, or ``table 7: refused: …`` with the table's reason), or as the
ack's JSON with ``--json``. A seat command the table cannot carry out (a seat out of range, an empty seat,
seat tracking off) comes back ``ignored`` with the reason: exit 1.

With ``--all`` the command goes once to the venue's command topic (``--room``, ``--section``: only the tables
there take it); each table that takes it answers on its own ``cmd/ack``, printed one line a table, the tables still
playing or refusing first; a table the broker holds online that does not answer within ``--wait`` is named too.

To move a player to another table with their chips and time bank: ``send … --table 3 empty --seat 5`` prints
the ``bank`` and ``chips`` they leave with; ``send … --table 8 seat --seat 2 --player NAME --bank B --chips C``.
"""

from __future__ import annotations

import json
import queue
import time
import uuid

from shotclock.errors import ShotclockError


def build_message(args, sender: str, now_ms: int) -> dict:
    """The command message the arguments describe (ShotclockError naming what is wrong)."""
    from shotclock.core.fields import FIELDS, SCOPE_FIELDS, SEAT_FIELDS
    from shotclock.core.wire import command_problem

    for key in SCOPE_FIELDS:
        if getattr(args, key, None) is not None and not getattr(args, "all", False):
            raise ShotclockError(f"--{key} goes with --all (a command to the venue's tables of one {key})")
    message = {"id": uuid.uuid4().hex[:16], "name": args.command, "sender": sender, "sent_ms": now_ms}
    for key in SEAT_FIELDS + ("seat",):
        value = getattr(args, key, None)  # players come from --seating
        if value is not None:
            problem = FIELDS[key].value_problem(value)  # named by its option: a name from argv is checked here
            if problem:
                raise ShotclockError(f"--{key}: {problem}")
            message[key] = value
    if args.facing_bet is not None:
        message["facing_bet"] = args.facing_bet == "true"
    if args.seating is not None:
        from shotclock.shell.seatingcmd import read_seating

        message["players"] = [[seat, name] for seat, name in read_seating(args.seating, args.seats, args.encoding)]
    problem = command_problem(message)
    if problem:
        raise ShotclockError(problem if problem.startswith("the ") else f"the command: {problem}")
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


def expected_tables(statuses: dict[str, dict], room: str | None, section: str | None) -> set[str]:
    """The tables a command to the venue should hear from: those whose retained status is online, in ``room`` and
    ``section`` when given (the tables' own ``[network] room`` and ``section``).

    >>> expected_tables({"1": {"online": True, "room": "Main"}, "2": {"online": True}, "3": {"online": False}},
    ...                 "Main", None)
    {'1'}
    """
    return {table for table, s in statuses.items() if s.get("online") is True
            and (room is None or s.get("room", "") == room) and (section is None or s.get("section", "") == section)}


def _table_order(table: str) -> tuple:
    """Table ids as the floor counts them: 2 before 10, numbers before names."""
    return (0, int(table), "") if table.isdigit() else (1, 0, table)


def venue_report(acks: dict[str, dict], missing: set[str]) -> list[str]:
    """One line per table for a command to the venue: the tables that did not do it first (refused, ignored,
    no answer), then those that did, each group in table order.

    >>> venue_report({"2": {"name": "release_hand", "outcome": "done"},
    ...               "10": {"name": "release_hand", "outcome": "ignored", "reason": "this table is still playing its hand"}},
    ...              {"3"})
    ['table 10: refused: release_hand: this table is still playing its hand', 'table 3: no answer', 'table 2: ok: release_hand: nothing changed']
    """
    bad = [t for t in acks if acks[t].get("outcome") != "done"]
    good = [t for t in acks if acks[t].get("outcome") == "done"]
    lines = [ack_line(t, acks[t]) for t in sorted(bad, key=_table_order)]
    lines += [f"table {t}: no answer" for t in sorted(missing, key=_table_order)]
    return lines + [ack_line(t, acks[t]) for t in sorted(good, key=_table_order)]


def cmd_send(args) -> int:
    """Send one command, wait for its ack, print it; 0 when done, 1 when ignored or refused."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from shotclock.core.topics import command_topic, table_topic
    from shotclock.floor.client import connect, floor_client

    client_id = f"shotclock-send-{uuid.uuid4().hex[:16]}"
    client, username = floor_client(args, client_id)
    message = build_message(args, username, int(time.time() * 1000))
    if args.all:
        return _send_to_venue(args, client, username, message)
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


def _send_to_venue(args, client, username: str, message: dict) -> int:
    """``--all``: one message on the venue's command topic; every table's ack, until each table the broker holds
    online (in the room and section) has answered or ``--wait`` is over. 0: every one did it; 1: one did not
    (refused, ignored, no answer); 2: no table answered."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from shotclock.core.topics import all_tables, command_topic, split_table_topic, venue_cmd_topic
    from shotclock.floor.client import connect

    incoming: queue.Queue = queue.Queue()
    ready: queue.Queue = queue.Queue()
    client.on_connect = lambda c, u, f, rc, p: ready.put(rc) if rc.is_failure else c.subscribe(
        [(all_tables(args.venue, "status"), 1), (all_tables(args.venue, "cmd/ack"), 1)])
    client.on_subscribe = lambda c, u, mid, rcs, p: ready.put(0)
    client.on_message = lambda c, u, m: incoming.put((m.topic, m.payload))
    connect(client, args, keepalive=10)
    statuses: dict[str, dict] = {}
    acks: dict[str, dict] = {}
    try:
        try:
            answer = ready.get(timeout=args.wait)
        except queue.Empty:
            raise ShotclockError(f"no answer from the broker at {args.broker} within {args.wait:g} s") from None
        if answer:
            raise ShotclockError(f"the broker refused the connection ({answer}): check --credentials")
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = 5
        # The broker sends the retained statuses right after the subscription's SUBACK, before any table can answer.
        topic = venue_cmd_topic(args.venue) if username == "floor" else command_topic(args.venue, None, username)
        client.publish(topic, json.dumps(message), qos=1, properties=props)
        deadline = time.monotonic() + args.wait
        while True:
            expected = expected_tables(statuses, args.room, args.section)
            if acks and expected <= set(acks):
                break
            try:
                topic, payload = incoming.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            where = split_table_topic(topic)
            try:
                body = json.loads(payload)
            except ValueError:
                continue
            if where is None or not isinstance(body, dict):
                continue
            if where[2] == "status":
                statuses[where[1]] = body
            elif body.get("id") == message["id"]:
                acks[where[1]] = body
    finally:
        client.loop_stop()
        client.disconnect()
    if not acks:
        raise ShotclockError(f"no table answered within {args.wait:g} s (are the tables on the network"
                             f"{' in that room or section' if args.room or args.section else ''}?)")
    missing = expected_tables(statuses, args.room, args.section) - set(acks)
    if args.json:
        print(json.dumps({"acks": acks, "no_answer": sorted(missing)}, ensure_ascii=False))
    else:
        print("\n".join(venue_report(acks, missing)))
    return 0 if not missing and all(a.get("outcome") == "done" for a in acks.values()) else 1
