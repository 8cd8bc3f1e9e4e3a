"""``shotclock send --all``: one command to every table of a scope (the venue, ``--room``, ``--section``), and who
took it.

The command goes once to the venue's command topic, with the room and section in it (docs/network.md, "Scope").
The tables it is for are every table the venue knows there: each one whose status the broker retains, online or
not. Each table's answer is printed as it comes (:func:`~shotclock.floor.send.ack_line`); once every table online
there has answered (or ``--wait`` seconds passed) a summary names every table of the scope that did not take it,
with the reason in words: the table's own (refused), "offline since 14:02", a room's bridge down, or no answer in
time. Exit 0 only when every one took it; a room or section no known table stands in is said at once (exit 2).

Hand-for-hand's commands also keep the scope's state on the broker (:mod:`shotclock.core.roomstate`): read before
the command goes, published retained the moment the first table took it, so a table that comes back later -- or
that missed the command behind a bridge -- takes it at once.
"""

from __future__ import annotations

import sys
import time

from shotclock.core.codec import decode, text
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.core.roomstate import ROOM_COMMANDS, inside, next_room_state
from shotclock.core.topics import (all_tables, bridge_topic, command_topic, hand_for_hand_topic, split_table_topic,
                                   venue_cmd_topic)
from shotclock.errors import ShotclockError
from shotclock.floor.said import ack_line, said
from shotclock.floor.sending import Sending
from shotclock.floor.venue import table_order

NAMED = 30  # tables named on one line of the summary (the rest counted)


def send_all(args) -> int:
    """The command to every table of the scope; each answer printed as it comes, then who did not take it and why;
    0 when every table the venue knows there took it, 1 otherwise."""
    venue, room, section = args.venue, args.room, args.section
    keeps = args.command in ROOM_COMMANDS
    reads = [(all_tables(venue, "status"), 0), (bridge_topic(venue, "+"), 0)]
    if keeps:
        reads.append((hand_for_hand_topic(venue, "+", "+"), 0))
    with Sending(args, reads, [(all_tables(venue, "cmd/ack"), 1)]) as sending:
        view = sending.view
        expected = view.tables_in(room, section)
        if not expected:
            raise ShotclockError(_nobody(args, view))
        state = None
        if keeps:
            state = next_room_state(view.room_state(room, section), args.command, room, section,
                                    minutes=getattr(args, "minutes", None), by=sending.username,
                                    now_ms=int(time.time() * 1000), newest_seq=view.newest_seq())
        topic = venue_cmd_topic(venue) if sending.username == "floor" else command_topic(venue, None, sending.username)
        deadline = sending.publish(topic, None)
        answers: dict[str, dict] = {}
        kept: bool | str = False  # True once kept; the broker's refusal, said in the summary
        while time.monotonic() < deadline:
            if all(t in answers or view.away(t) is not None for t in expected):
                break  # every table there that can answer has
            item = sending.next(min(0.1, max(0.0, deadline - time.monotonic())))
            ack = _ack(item, sending.message["id"])
            if ack is None or ack[0] in answers:
                continue
            table, body = ack
            answers[table] = body
            if table not in expected:  # a table whose status the broker did not hold (it came online just now)
                expected.append(table)
            print(text(body) if args.json else ack_line(table, body), flush=True)
            if state is not None and kept is False and body.get("outcome") == "done":
                try:  # a table took it: the scope's state is what the room now does
                    _keep(sending, state, view)
                    kept = True
                except ShotclockError as exc:  # (a broker configured before: the answers are still collected)
                    kept = str(exc)
    code = _summary(args, expected, answers, view, state if kept is True else None)
    if isinstance(kept, str):
        print(f"not kept on the broker, so a table that was away will not catch up: {kept}", file=sys.stderr)
        return 1
    return code


def _ack(item, ident: str) -> tuple[str, dict] | None:
    """(table, ack) when ``item`` (topic, payload) is a table's answer to the command ``ident``."""
    if item is None:
        return None
    parts = split_table_topic(item[0])
    if parts is None or parts[2] != "cmd/ack":
        return None
    try:
        body = decode(item[1], max_bytes=MAX_PAYLOAD)
    except ValueError:
        return None
    return (parts[1], body) if isinstance(body, dict) and body.get("id") == ident else None


def _keep(sending, state, view) -> None:
    """Publish the scope's new hand-for-hand state retained, and clear the states of the scopes inside it (this one
    now speaks for their tables)."""
    venue = sending.args.venue
    for (room, section), old in list(view.hand_for_hand.items()):
        if inside(old, state.room, state.section):
            sending.keep(hand_for_hand_topic(venue, room, section), b"", "the clearing of a hand-for-hand state")
    sending.keep(hand_for_hand_topic(venue, state.room, state.section), state.encode(), "the hand-for-hand state")


def _summary(args, expected: list[str], answers: dict[str, dict], view, kept) -> int:
    """Print how many took it and each table that did not, with why; the exit code."""
    expected = sorted(expected, key=table_order)
    missed = []
    for table in expected:
        ack = answers.get(table)
        if ack is not None:
            if ack.get("outcome") != "done":
                missed.append((table, f"refused: {ack.get('reason') or ack.get('outcome') or 'no reason given'}"))
            continue
        away = view.away(table)
        if away is not None and kept is not None:
            away += "; it takes the room's hand-for-hand state when it comes back"
        missed.append((table, away or f"no answer within {args.wait:g} s"))
    took = len(expected) - len(missed)
    where = _where(args.room, args.section)
    head = f"{took} of {len(expected)} tables{where} took it"
    print(head + (f"; {len(missed)} did not:" if missed else ""), file=sys.stderr)
    grouped: dict[str, list[str]] = {}  # the same reason once, with its tables (500 tables that still play)
    for table, why in missed:
        grouped.setdefault(why, []).append(table)
    for why, tables in grouped.items():
        names = ", ".join(tables[:NAMED]) + (f" and {len(tables) - NAMED} more" if len(tables) > NAMED else "")
        print(f"  table{'s' if len(tables) > 1 else ''} {names}: {why}", file=sys.stderr)
    if kept is not None:
        words = said({"type": "hand_for_hand", "why": "ended" if not kept.on else
                      "released" if kept.hands else "started", "hands": kept.hands, "minutes": kept.minutes})
        print(f"kept on the broker for the tables{where}: {words}", file=sys.stderr)
    return 1 if missed else 0


def _where(room: str | None, section: str | None) -> str:
    if room is not None and section is not None:
        return f" in room {room!r}, section {section!r}"
    if room is not None:
        return f" in room {room!r}"
    return f" in section {section!r}" if section is not None else ""


def _nobody(args, view) -> str:
    """The line for a scope no known table stands in: the rooms and sections there are."""
    if not view.tables:
        return f"no table of venue {args.venue!r} is known to this broker (none ever connected: is --venue right?)"
    kind, name = ("section", args.section) if args.room is None or args.room in view.places("room") else \
        ("room", args.room)
    places = ", ".join(repr(p) for p in view.places(kind)) or "none"
    return f"--{kind} {name}: no table the venue knows stands{_where(args.room, args.section)} ({kind}s: {places})"
