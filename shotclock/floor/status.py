"""``shotclock floor status``: is the floor network itself whole? From the broker's retained messages.

Each part that can fail without any table noticing has a retained word on the broker: the collector's status,
each share group member's (``…/collector/member/<group>/<member>``: gone once the broker ended its session and
gave its share of the events to the others), each room broker's bridge (``…/bridge/<room>/state``: its tables
are unreachable while it is down, whatever their own last status says) and each table's status. This prints one
line per part and exits 0 when every part is up, 1 when one is down (a monitoring check can run it).
"""

from __future__ import annotations

import threading

from shotclock.errors import ShotclockError


def watch(client, venue: str) -> tuple[dict, threading.Event, list]:
    """Set ``client`` (not yet connected) to gather the venue's retained network words: {collector, members,
    bridges, tables}, complete once the event is set (the answer to a second subscription comes after the
    first one's retained messages: one connection's packets are handled in order). The list gets the
    broker's refusal of the login, if it refuses."""
    from shotclock.core.inbound import parse_json
    from shotclock.core.topics import (all_tables, archive_topic, bridge_room, bridge_topic, collector_topic,
                                       member_topic, split_table_topic)

    found: dict = {"collector": None, "members": {}, "bridges": {}, "tables": {}}
    done, refused = threading.Event(), []
    probe = []
    members = member_topic(venue, "", "")[:-1]

    def on_message(c, userdata, message):
        payload = parse_json(message.payload) if message.payload else None
        where = split_table_topic(message.topic)
        room = bridge_room(message.topic)
        if message.topic == collector_topic(venue):
            found["collector"] = payload if isinstance(payload, dict) else None
        elif room is not None and message.payload in (b"0", b"1"):
            found["bridges"][room] = message.payload == b"1"
        elif message.topic.startswith(members) and isinstance(payload, dict):
            found["members"]["/".join(message.topic.split("/")[-2:])] = payload
        elif where is not None and where[2] == "status" and isinstance(payload, dict):
            found["tables"][where[1]] = payload

    def on_subscribe(c, userdata, mid, reason_codes, properties):
        if not probe:
            probe.append(c.subscribe(archive_topic(venue, "probe"), 0)[1])
        elif mid == probe[0]:
            done.set()

    client.on_message = on_message
    client.on_subscribe = on_subscribe

    def on_connect(c, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            refused.append(str(reason_code))
            done.set()
            return
        c.subscribe([(collector_topic(venue), 1), (member_topic(venue, "+", "+"), 1), (bridge_topic(venue, "+"), 1),
                     (all_tables(venue, "status"), 1)])

    client.on_connect = on_connect
    return found, done, refused


def report(found: dict) -> tuple[list[str], bool]:
    """The lines to print, and whether every part is up."""
    lines, whole = [], True
    collector = found["collector"]
    if collector is None:
        lines.append("collector: none has announced itself (no archive: tables count the broker's PUBACK as delivered)")
    else:
        up = collector.get("online") is True
        whole &= up
        lines.append(f"collector: {'online' if up else 'OFFLINE'} ({collector.get('archive', '?')})")
    for key, member in sorted(found["members"].items()):
        up = member.get("online") is True
        whole &= up
        why = "" if up else " (it stopped)" if member.get("clean") else " (its session ended: the others took its share)"
        lines.append(f"share group {key.split('/')[0]}: member {key.split('/')[1]} "
                     f"{'online' if up else 'GONE'} since {member.get('since', '?')}{why}")
    behind: dict[str, list[str]] = {}
    for table, status in found["tables"].items():
        if isinstance(status.get("bridge"), str):
            behind.setdefault(status["bridge"], []).append(table)
    order = lambda t: (len(t), t)
    for room, up in sorted(found["bridges"].items()):
        whole &= up
        tables = ", ".join(sorted(behind.get(room, []), key=order)) or "none known"
        lines.append(f"room {room}: {'connected' if up else 'NOT CONNECTED'} (tables {tables}"
                     f"{'' if up else ': unreachable'})")
    down = {room for room, up in found["bridges"].items() if not up}
    counts = {"online": 0, "offline": 0, "unreachable": 0}
    for table, status in found["tables"].items():
        kind = ("unreachable" if status.get("bridge") in down else "online") if status.get("online") is True \
            else "offline"
        counts[kind] += 1
    lines.append(f"tables: {counts['online']} online, {counts['offline']} offline, {counts['unreachable']} unreachable")
    return lines, whole


def cmd_status(args) -> int:
    """Print the floor network's parts; 0 when every one is up, 1 when one is down."""
    import uuid

    from shotclock.floor.client import connect, floor_client

    if args.wait <= 0:
        raise ShotclockError(f"--wait must be more than 0 seconds, not {args.wait:g}")
    client, _ = floor_client(args, f"shotclock-status-{uuid.uuid4().hex[:16]}")
    found, done, refused = watch(client, args.venue)
    connect(client, args, keepalive=10)
    try:
        answered = done.wait(args.wait)
    finally:
        client.loop_stop()
        client.disconnect()
    if refused:
        raise ShotclockError(f"the broker refused the connection ({refused[0]}): check --credentials")
    if not answered:
        raise ShotclockError(f"no answer from the broker at {args.broker} within {args.wait:g} s")
    lines, whole = report(found)
    print("\n".join(lines))
    return 0 if whole else 1
