"""The venue's retained hand-for-hand state (core/roomstate.py) and what a table does with it (core/handforhand.py),
in pure code with virtual time: a table that missed a command (offline, a bridge down) is put where its room is the
moment the room's state reaches it, and every table counts the room's hands (issue 36, part 3)."""

from __future__ import annotations

import msgspec
import pytest

from shotclock.config.loading import parse_config
from shotclock.core import events as ev
from shotclock.core.handforhand import HandForHandState
from shotclock.core.inputs import Command, Edge, RoomHandForHand
from shotclock.core.records import RecordBuilder
from shotclock.core.roomstate import RoomState, inside, newest, next_room_state, room_state_of
from shotclock.core.table import Table

CLOCK = parse_config("").settings


def command(t: float, name: str, **fields) -> Command:
    return Command(t, name, id=f"{name}-{t}", sender="floor-anna", **fields)


def new_hand(table: Table, t: float):
    """The dealer's new hand: the street button held past the hold time."""
    pressed = table.feed([Edge(t, "street", True)], t)
    return pressed.outputs + table.feed([Edge(t + 2.5, "street", False)], t + 2.5).outputs


def room(t: float, on: bool, hands: int, seq: int, minutes: float = 2) -> RoomHandForHand:
    return RoomHandForHand(t, on, hands, minutes, seq, room="Main")


def changes(round) -> list[tuple]:
    return [(o.why, o.on, o.waiting, o.hands) for o in round.outputs if o.TYPE == "hand_for_hand"]


def playing_the_room(hands: int) -> Table:
    """A table that took the start and ``hands`` releases, and waits after its hand."""
    table = Table(CLOCK)
    table.feed([command(1.0, "hand_for_hand")], 1.0)
    for n in range(hands):
        new_hand(table, 10.0 + 20 * n)
        table.feed([command(20.0 + 20 * n, "release_hand")], 20.0 + 20 * n)
    new_hand(table, 10.0 + 20 * hands)
    assert table.state.hand_for_hand.waiting and table.state.hand_for_hand.hands == hands
    return table


def test_a_table_that_missed_the_end_leaves_hand_for_hand_at_once():
    table = playing_the_room(2)  # it was away when the floor sent end_hand_for_hand
    r = table.feed([room(200.0, False, 2, seq=9)], 200.0)
    assert changes(r) == [("ended", False, False, 2)] and table.state.hand_for_hand is None
    new_hand(table, 201.0)  # no wait at the next hand: a clock can be called
    assert [o.TYPE for o in table.feed([Edge(205.0, "floor", True), Edge(205.1, "floor", False)], 205.2).outputs] == [
        "start"]


def test_a_waiting_table_that_missed_a_release_is_released_with_the_rooms_count():
    table = playing_the_room(2)
    r = table.feed([room(200.0, True, 3, seq=9)], 200.0)
    assert changes(r) == [("released", True, False, 3)]
    assert msgspec.to_builtins(table.state.hand_for_hand) == {"waiting": False, "hands": 3, "minutes": 2,
                                                               "time_off_s": 360}


def test_a_playing_table_counts_the_rooms_hands_and_plays_on():
    table = Table(CLOCK)
    table.feed([command(1.0, "hand_for_hand")], 1.0)  # it played slowly: the release came while it still played
    assert table.feed([command(20.0, "release_hand")], 20.0).acks[0].ignored == "this table is still playing its hand"
    r = table.feed([room(20.1, True, 1, seq=9)], 20.1)
    assert changes(r) == [("counted", True, False, 1)]
    new_hand(table, 30.0)  # its hand done: it waits for the next release, counting from the room's 1
    assert table.state.hand_for_hand.waiting and table.state.hand_for_hand.hands == 1


def test_a_table_that_missed_the_start_plays_its_hand_in_hand_for_hand_at_the_rooms_count():
    table = Table(CLOCK)
    r = table.feed([room(5.0, True, 4, seq=9, minutes=3)], 5.0)
    assert changes(r) == [("started", True, False, 4)] and table.state.hand_for_hand.minutes == 3
    new_hand(table, 6.0)
    assert table.feed([command(20.0, "call")], 20.0).acks[0].ignored == "hand-for-hand: wait for the floor"


def test_the_state_that_follows_a_command_the_table_took_changes_nothing_and_an_older_one_is_not_taken():
    table = playing_the_room(1)
    r = table.feed([command(100.0, "release_hand"), room(100.1, True, 2, seq=10)], 100.2)
    assert [(o.why, o.hands) for o in r.outputs if o.TYPE == "hand_for_hand"] == [("released", 2)]
    assert r.acks[0].ignored is None
    new_hand(table, 110.0)
    assert changes(table.feed([room(120.0, True, 2, seq=10)], 120.0)) == []  # the same state again (a reconnect)
    assert changes(table.feed([room(121.0, False, 1, seq=8)], 121.0)) == []  # an older one (another scope's)
    assert table.state.hand_for_hand.waiting


def test_the_room_state_is_logged_as_it_arrived_and_the_seq_taken_survives_a_restart():
    table, builder = Table(CLOCK), RecordBuilder()
    records = builder.round(table.feed([room(5.0, True, 4, seq=9)], 5.0), lambda t: "")
    logged = {m["type"]: m["data"] for m in map(msgspec.to_builtins, records) if "type" in m}  # as the pipe has them
    assert logged["room_state"] == {"on": True, "hands": 4, "minutes": 2, "seq": 9, "room": "Main", "section": None,
                                    "round": 5.0, "after": None}
    assert logged["input"]["event"] == "room_hand_for_hand" and logged["input"]["room"] == "Main"
    assert logged["hand_for_hand"] == {"why": "started", "on": True, "waiting": False, "hands": 4, "minutes": 2,
                                       "seq": 9}
    restarted = HandForHandState()
    restarted.restore(logged["hand_for_hand"], 0.0)  # an older (or the same) state is not taken after a restart
    assert restarted.seq == 9 and restarted.handle(ev.RoomHandForHand(1.0, True, 5, 2, 9)) == []
    assert [o.hands for o in restarted.handle(ev.RoomHandForHand(1.0, True, 5, 2, 10))] == [5]


def test_the_sender_keeps_the_rooms_state_and_a_table_reads_it_back():
    on = next_room_state(None, "hand_for_hand", "Main", None, minutes=3, by="floor-anna", now_ms=1_000, newest_seq=41)
    assert (on.on, on.hands, on.minutes, on.since_ms, on.seq) == (True, 0, 3, 1_000, 1_000)
    released = next_room_state(on, "release_hand", "Main", None, by="floor-ben", now_ms=900)  # a slower clock
    assert (released.hands, released.since_ms, released.by, released.seq) == (1, 1_000, "floor-ben", 1_001)
    ended = next_room_state(released, "end_hand_for_hand", "Main", None, now_ms=2_000)
    assert (ended.on, ended.hands, ended.seq) == (False, 1, 2_000)
    assert next_room_state(on, "hand_for_hand", "Main", None, now_ms=3_000) is None  # on already: nothing to keep
    assert next_room_state(ended, "release_hand", "Main", None, now_ms=3_000) is None
    assert room_state_of(released.encode(), "Main", None) == released


def test_a_table_follows_the_newest_state_of_the_scopes_it_stands_in():
    venue = RoomState(on=True, hands=3, seq=5)
    main = RoomState(room="Main", on=True, hands=4, seq=7)
    section = RoomState(room="Main", section="B", on=False, hands=1, seq=6)
    salon = RoomState(room="Salon", on=False, seq=9)
    states = [venue, main, section, salon]
    assert newest(states, "Main", "B") == main and newest(states, "Main", None) == main
    assert newest(states, "Salon", "A") == salon and newest(states, None, None) == venue
    assert [inside(s, "Main", None) for s in states] == [False, False, True, False]
    assert [inside(s, None, None) for s in states] == [False, True, True, True]


@pytest.mark.parametrize("payload, detail", [
    (b'{"room": "Main", "on": "yes", "seq": 3}', "'on' must be true or false, not \"yes\""),
    (b'{"room": "Main", "on": true, "seq": 0}', "'seq' must be a sequence number from 1 to 9007199254740991, not 0"),
    (b'{"room": "Main", "on": true, "seq": 3, "minutes": 4}',
     "'minutes' must be a number of minutes from 0 to 3, not 4"),
    (b'{"room": "Main", "on": true}', "a hand-for-hand state needs 'seq'"),
    (b'{"room": "Salon", "on": true, "seq": 3}', "the payload is for room 'Salon', section None; its topic for room "
                                                 "'Main', section None"),
    (b'[1]', "a hand-for-hand state is a JSON object"),
    (b'{"room": "Main", "on": true, "seq": 3, "by": "a\\u202eb"}', "'by': a sender must not hold control characters "
                                                                  "(tab, newline, direction marks)"),
])
def test_a_state_out_of_bounds_is_refused_naming_the_field(payload, detail):
    assert room_state_of(payload, "Main", None).detail == detail


def test_a_cleared_state_is_none_and_a_newer_versions_field_is_left_alone():
    assert room_state_of(b"", "Main", None) is None
    assert room_state_of(b'{"room": "Main", "on": true, "seq": 3, "phase": "x"}', "Main", None).on is True


def test_a_restart_after_hand_for_hand_ended_keeps_the_rooms_state_it_took_and_says_so_for_the_replay():
    ended = {"why": "ended", "on": False, "waiting": False, "hands": 3, "minutes": 2, "seq": 12}
    table = Table(CLOCK)
    restored = table.restore_hand_for_hand(ended, 0.0)
    assert [(o.why, o.on, o.seq) for o in restored] == [("restored", False, 12)] and table.state.hand_for_hand is None
    assert changes(table.feed([room(1.0, True, 2, seq=11)], 1.0)) == []  # an older state (a scope not cleared)
    assert HandForHandState().restore({"why": "ended", "on": False, "waiting": False, "hands": 3, "minutes": 2},
                                      0.0) == []  # nothing taken from a room: nothing to say
