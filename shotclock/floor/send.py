"""``shotclock send``: one floor command to a table over the floor network, and its acknowledgement.

The command is checked here as the device checks it (:func:`shotclock.core.wire.command_problem`), so a
mistake is one line and exit 2 before anything is sent; so is a table the venue does not know (the broker retains
no status of it, or it is not in ``--broker-dir``). It goes to the table's ``cmd`` topic with a 5 s
message expiry, as the dashboard sends it; the table's ``cmd/ack`` is printed as one line
(``table 7: ok: pause: pause (remaining 12.48)``; a tournament command in words, ``table 3: released: hand 2 of
hand-for-hand (4 min off the tournament clock)``; or ``table 7: refused: …`` with the table's reason), or as the
ack's JSON with ``--json``. A seat command the table cannot carry out (a seat out of range, an empty seat,
seat tracking off) comes back ``ignored`` with the reason: exit 1.

To move a player to another table with their chips, time bank and mark: ``send … --table 3 empty --seat 5`` prints
the ``bank``, ``chips`` and ``mark`` they leave with; ``send … --table 8 seat --seat 2 --player NAME --bank B --chips C
--mark clock --mark-seconds 10``. ``send … mark --seat 5 --mark warning`` (or ``--mark clock --mark-seconds 10``)
marks a player; ``unmark --seat 5`` takes it off; the table records the login that sent it as who marked.

``--all`` sends to every table of the venue at once (``--room``, ``--section``: the tables there):
:mod:`shotclock.floor.send_all`.
"""

from __future__ import annotations

import time

from shotclock.core.codec import decode, text
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.errors import ShotclockError
from shotclock.floor.said import ack_line
from shotclock.floor.send_all import send_all
from shotclock.floor.sending import Sending


def cmd_send(args) -> int:
    """Send one command, wait for its ack, print it; 0 when done, 1 when ignored or refused; a table the venue does
    not know is said at once (exit 2), before anything is sent."""
    from shotclock.core.topics import all_tables, bridge_topic, command_topic, table_topic

    if getattr(args, "all", False):
        return send_all(args)
    folder = _broker_folder(args)
    reads = [(all_tables(args.venue, "status"), 0), (bridge_topic(args.venue, "+"), 0)]
    with Sending(args, reads, [(table_topic(args.venue, args.table, "cmd/ack"), 1)]) as sending:
        view = sending.view
        unknown = not view.known(args.table) if folder is None else args.table not in folder.tables
        if unknown:
            raise ShotclockError(_unknown_table(args, view, folder))
        # A person's own login writes under its name (the device records that sender); the shared floor login
        # (tools, the demo) writes the table's plain command topic.
        topic = table_topic(args.venue, args.table, "cmd") if sending.username == "floor" else \
            command_topic(args.venue, args.table, sending.username)
        deadline = sending.publish(topic, args.table)
        while True:
            item = sending.next(max(0.0, deadline - time.monotonic()))
            if item is None:
                if time.monotonic() < deadline:
                    continue
                away = view.away(args.table) if view.known(args.table) else "it never connected to this broker"
                raise ShotclockError(f"table {args.table} did not answer within {args.wait:g} s"
                                     + (f": {away}" if away else " (is it on the network?)"))
            try:
                ack = decode(item[1], max_bytes=MAX_PAYLOAD)
            except ValueError:
                continue
            if isinstance(ack, dict) and ack.get("id") == sending.message["id"]:
                break
    print(text(ack) if args.json else ack_line(args.table, ack))
    return 0 if ack.get("outcome") == "done" else 1


def _broker_folder(args):
    """The ``--broker-dir`` folder's summary (its tables), checked to be this venue's; None without one."""
    if not getattr(args, "broker_dir", None):
        return None
    from pathlib import Path

    from shotclock.floor.provision import BrokerFolder

    folder = BrokerFolder(Path(args.broker_dir))
    if folder.venue != args.venue:
        raise ShotclockError(f"--venue {args.venue}: the broker folder {args.broker_dir} is for venue "
                             f"{folder.venue!r}")
    return folder


def _unknown_table(args, view, folder) -> str:
    """The line for a table nobody knows: which tables there are."""
    from shotclock.floor.venue import table_order

    known = sorted(folder.tables if folder is not None else view.tables, key=table_order)
    shown = ", ".join(known[:20]) + (" …" if len(known) > 20 else "")
    where = f"in the broker folder {args.broker_dir}" if folder is not None else \
        f"at venue {args.venue!r} on this broker (no status of it is retained: it never connected)"
    return f"--table {args.table}: no such table {where}; " + (f"its tables: {shown}" if known else "it has none yet")
