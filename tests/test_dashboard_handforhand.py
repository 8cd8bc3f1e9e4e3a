"""The dashboard's hand-for-hand with tables away (issue 36, part 3), in a real browser (Debian's chromium through
Playwright) against a real Mosquitto serving the page; the tables' statuses, states and acks come from one client
speaking for them as their devices would (tests/floor_injector.py). The panel counts the room's hands (the venue's
retained state), keeps the room's new state the moment a table took its release, and names every table of the room
that did not take it, with why; its JavaScript writes topics and states as the core does.

Every wait is on a condition in the page or on the broker; no test measures time.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from floor_injector import InjectedFloor
from mqtt_broker import Inbox
from shotclock.core.roomstate import RoomState, next_room_state
from shotclock.core.topics import hand_for_hand_topic, place_level
from test_dashboard_filters import open_dashboard_of
from test_dashboard_tournament import wait_text

WAIT = 30_000  # ms: only bounds a hang
WAITING = {"waiting": True, "minutes": 2}
# id → (room, hand-for-hand state or None, status: "online", "stopped" (a clean stop: since when) or "lost")
TABLES = {
    "1": ("Main", dict(WAITING, hands=2, time_off_s=240), "online"),  # its own count behind the room's (it missed one)
    "2": ("Main", dict(WAITING, hands=3, time_off_s=360), "online"),
    "3": ("Main", dict(WAITING, hands=3, time_off_s=360), "online"),  # it will refuse the release
    "4": ("Main", dict(WAITING, hands=3, time_off_s=360), "stopped"),
    "5": ("Main", dict(WAITING, hands=3, time_off_s=360), "lost"),
    "6": ("Main", dict(WAITING, hands=3, time_off_s=360), "online"),  # it will never answer
    "7": ("Salon", None, "online"),
}
STOPPED_MS = int(time.mktime((2026, 12, 3, 14, 2, 0, 0, 0, -1)) * 1000)  # 14:02 local time
ROOM = RoomState(room="Main", on=True, hands=3, minutes=2, since_ms=STOPPED_MS - 600_000, at_ms=STOPPED_MS,
                 by="floor-anna", seq=50)
SECTION = RoomState(room="Main", section="B", on=True, hands=3, minutes=2, seq=40)  # an older state inside the room


@pytest.fixture
def floor(tmp_path, web):
    f = InjectedFloor(tmp_path / "broker")
    f.commands = Inbox(f.client, "shotclock/v1/test/cmd/#", "shotclock/v1/test/handforhand/#")
    for table, (room, h4h, status) in TABLES.items():
        name = f"Tafel {table}"
        if status == "stopped":  # a device's clean stop: offline since then
            f.client.publish(f.topic(table, "status"), json.dumps({
                "online": False, "table": table, "boot": f.boot(table), "clean": True, "since_ms": STOPPED_MS,
                "room": room}), qos=1, retain=True)
        else:
            f.status(table, online=status == "online", name=name, room=room)
        f.state(table, name=name, **({"hand_for_hand": h4h} if h4h else {}))
    for state in (ROOM, SECTION):
        f.client.publish(hand_for_hand_topic("test", state.room, state.section), state.encode(), qos=1,
                         retain=True).wait_for_publish(30)
    yield f
    f.close()


@pytest.fixture
def page(web, floor):
    page = open_dashboard_of(web, floor, len(TABLES), "#room=Main", 1280, 900)
    yield page
    assert not web.errors, web.errors
    page.context.close()


def test_the_panel_counts_the_rooms_hands_keeps_its_state_and_names_every_table_that_did_not_take_it(page, floor):
    wait_text(page, "#tour-scope", "room Main")
    # The room's count (3: the state kept on the broker), not a table's own (table 1 says 2).
    wait_text(page, "#h4h-clock", "hands: 3 · tournament clock −6:00 (2 min a hand)")
    wait_text(page, "#h4h-release", "Next hand (4/4)")
    page.click("#h4h-release")
    message = floor.commands.wait_for(lambda m: m.topic.endswith("/cmd/by/floor-tester"))
    body = json.loads(message.payload)
    assert (body["name"], body["room"]) == ("release_hand", "Main")
    assert floor.commands.wait_for(lambda m: "/handforhand/Main/*" in m.topic and m.payload
                                   and json.loads(m.payload)["hands"] == 4, timeout=1) is None  # nobody took it yet

    def ack(table: str, **fields) -> None:
        floor.client.publish(floor.topic(table, "cmd/ack"), json.dumps({
            "id": body["id"], "table": table, "boot": floor.boot(table), "sender": "floor-tester",
            "name": "release_hand", **fields}), qos=1)

    ack("1", outcome="done", outputs=[{"t": 1.0, "type": "hand_for_hand", "why": "released", "on": True,
                                       "waiting": False, "hands": 3, "minutes": 2}])
    ack("2", outcome="done", outputs=[{"t": 1.0, "type": "hand_for_hand", "why": "released", "on": True,
                                       "waiting": False, "hands": 4, "minutes": 2}])
    ack("3", outcome="ignored", reason="this table is still playing its hand", code="hand_for_hand_playing",
        params={})
    # The first table that took it: the page keeps the room's new state, retained, and clears the one inside it.
    kept = floor.commands.wait_for(lambda m: m.topic == hand_for_hand_topic("test", "Main") and m.payload
                                   and json.loads(m.payload)["hands"] == 4)
    assert kept is not None, "the page kept no state"
    state = json.loads(kept.payload)
    assert state == {"room": "Main", "section": None, "on": True, "hands": 4, "minutes": 2,
                     "since_ms": ROOM.since_ms, "at_ms": state["at_ms"], "by": "floor-tester", "seq": state["seq"]}
    assert state["seq"] > ROOM.seq and state["seq"] >= state["at_ms"]
    assert next_room_state(ROOM, "release_hand", "Main", None, by="floor-tester", now_ms=state["at_ms"],
                           newest_seq=ROOM.seq).encode() == kept.payload  # as the core makes it, to the byte
    cleared = floor.commands.wait_for(lambda m: m.topic == hand_for_hand_topic("test", "Main", "B") and not m.payload)
    assert cleared is not None, "the state inside the room was not cleared"
    assert len([m for m in floor.commands.messages if m.topic == hand_for_hand_topic("test", "Main")
                and m.payload and json.loads(m.payload)["hands"] == 4]) == 1  # kept once, not at every ack
    wait_text(page, "#h4h-clock", "hands: 4 · tournament clock −8:00 (2 min a hand)")
    # Every table of the room that did not take it, with why; table 6's silence said once the command expired.
    page.wait_for_function("document.querySelectorAll('#h4h-missed li').length === 4", timeout=WAIT)
    assert page.eval_on_selector_all("#h4h-missed li", "els => els.map(e => e.textContent)") == [
        "Tafel 3: refused: this table is still playing its hand", "Tafel 4: offline since 14:02",
        "Tafel 5: offline", "Tafel 6: no answer within 5 s"]
    assert page.text_content("#h4h-answer") == \
        "Next hand: 2 of 6 tables took it · a table that comes back takes the room's state"
    page.click("#language")
    wait_text(page, "#h4h-answer", "Volgende hand: 2 van 6 tafels namen het aan · wie terugkomt, neemt de stand van "
                                   "de zaal over")
    assert page.text_content("#h4h-missed li") == "Tafel 3: geweigerd: deze tafel speelt haar hand nog"


NAMES = [None, "", "Main", "_", "*", "Zaal 1/B", "Café", "a+b#c", "%41", "-.~", "東館", "😀"]


def test_the_pages_topics_and_states_are_the_cores(page):
    levels = page.evaluate("names => names.map(n => Shotclock.HandForHand.placeLevel(n))", NAMES)
    assert levels == [place_level(n) for n in NAMES]
    back = page.evaluate("levels => levels.map(l => Shotclock.HandForHand.placeName(l))", levels)
    assert back == NAMES
    assert page.evaluate("['%2', '%41', 'a b', 'a%2f', '', 'x%FF'].map(l => Shotclock.HandForHand.placeName(l))") == \
        [None] * 6  # (undefined: no name gives these)
    steps = page.evaluate("""() => {
        const H = Shotclock.HandForHand, o = {by: "floor-anna", nowMs: 1000, newestSeq: 41};
        const on = H.next(null, "hand_for_hand", "Main", null, Object.assign({minutes: 3}, o));
        const rel = H.next(on, "release_hand", "Main", null, Object.assign({}, o, {nowMs: 900, newestSeq: 0}));
        const end = H.next(rel, "end_hand_for_hand", "Main", null, Object.assign({}, o, {nowMs: 2000}));
        return [on, rel, end, H.next(end, "release_hand", "Main", null, o),
                H.next(on, "hand_for_hand", "Main", null, o)];
    }""")
    on = next_room_state(None, "hand_for_hand", "Main", None, minutes=3, by="floor-anna", now_ms=1000, newest_seq=41)
    rel = next_room_state(on, "release_hand", "Main", None, by="floor-anna", now_ms=900)
    end = next_room_state(rel, "end_hand_for_hand", "Main", None, by="floor-anna", now_ms=2000, newest_seq=41)
    assert [json.dumps(s) for s in steps[:3]] == [json.dumps(json.loads(s.encode())) for s in (on, rel, end)]
    assert steps[3:] == [None, None]
    assert re.fullmatch(r"shotclock/v1/test/handforhand/Zaal%201%2FB/\*",
                        page.evaluate("Shotclock.HandForHand.topic('test', 'Zaal 1/B', null)"))
