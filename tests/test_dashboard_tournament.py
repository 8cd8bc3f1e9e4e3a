"""The dashboard's tournament panel (hand-for-hand, the named rule sets) in a real browser (Debian's chromium through
Playwright), against a real Mosquitto serving the page; the tables' states and acks come from one client speaking
for all of them as their devices would (tests/floor_injector.py), and the commands the page sends are read where
they land: the venue's command topic, one message for the whole room.

Every wait is on a condition in the page; no test measures time.
"""

from __future__ import annotations

import json

import pytest

from floor_injector import InjectedFloor
from mqtt_broker import Inbox
from test_dashboard_filters import open_dashboard_of

WAIT = 30_000  # ms: only bounds a hang

# id → (name, room, hand-for-hand state or None, online)
TABLES = {
    "1": ("Tafel 1", "Main", {"waiting": False, "hands": 2, "minutes": 2, "time_off_s": 240}, True),
    "2": ("Tafel 2", "Main", {"waiting": True, "hands": 2, "minutes": 2, "time_off_s": 240}, True),
    "3": ("Tafel 3", "Main", {"waiting": True, "hands": 2, "minutes": 2, "time_off_s": 240}, True),
    "4": ("Tafel 4", "Main", {"waiting": True, "hands": 2, "minutes": 2, "time_off_s": 240}, False),  # gone
    "5": ("Tafel 5", "Salon", None, True),
}


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = InjectedFloor(tmp_path_factory.mktemp("tourfloor") / "broker")
    f.commands = Inbox(f.client, "shotclock/v1/test/cmd/#")
    for table, (name, room, h4h, online) in TABLES.items():
        f.status(table, online=online, name=name, room=room, **({"rule_sets": ["bubble"]} if online else {}))
        f.state(table, name=name, **({"hand_for_hand": h4h} if h4h else {}))
    yield f
    f.close()


@pytest.fixture
def page(web, floor):
    page = open_dashboard_of(web, floor, len(TABLES), "#room=Main", 1280, 900)
    yield page
    assert not web.errors, web.errors
    page.context.close()


def wait_text(page, selector: str, text: str) -> None:
    try:
        page.wait_for_function("([s, t]) => document.querySelector(s).textContent === t", arg=[selector, text],
                               timeout=WAIT)
    except Exception:
        pytest.fail(f"{selector} says {page.text_content(selector)!r}, expected {text!r}")


def sent(floor, name: str) -> list[dict]:
    return [json.loads(m.payload) for m in list(floor.commands.messages) if json.loads(m.payload)["name"] == name]


def test_the_room_in_hand_for_hand_playing_first_and_an_offline_table_never_done(page, floor):
    wait_text(page, "#tour-scope", "room Main")
    wait_text(page, "#h4h-counts", "playing: 1 · done: 2 · offline: 1")
    assert page.text_content("#h4h-clock") == "hands: 2 · tournament clock −4:00 (2 min a hand)"
    rows = page.eval_on_selector_all("#h4h-tables li", "els => els.map(e => e.textContent)")
    assert rows == ["Tafel 1 · playing", "Tafel 4 · offline", "Tafel 2 · done", "Tafel 3 · done"]
    wait_text(page, "article.table[data-table='2'] .tour", "Hand-for-hand: done, waiting for the floor")
    wait_text(page, "article.table[data-table='1'] .tour", "Hand-for-hand: playing its hand")
    assert page.text_content("article.table[data-table='4'] .tour") == ""  # offline: its last state is old news
    # A table whose hand is done offers no clock (it would refuse one); one still playing does.
    assert page.eval_on_selector_all("article.table[data-table='2'] .cmds button", "bs => bs.length") == 0
    assert page.eval_on_selector_all("article.table[data-table='1'] .cmds button", "bs => bs.map(b => b.dataset.cmd)") == [
        "call"]
    assert page.is_hidden("#h4h-start") and page.text_content("#h4h-release") == "Next hand (2/3)"
    # A table still plays: the release asks first, and a second tap sends ONE message to the room.
    page.click("#h4h-release")
    wait_text(page, "#h4h-release", "1 still playing: release anyway?")
    assert sent(floor, "release_hand") == []
    page.click("#h4h-release")
    message = floor.commands.wait_for(lambda m: json.loads(m.payload)["name"] == "release_hand")
    assert message is not None and message.topic == "shotclock/v1/test/cmd/by/floor-tester"
    body = json.loads(message.payload)
    assert body["room"] == "Main" and "section" not in body and len(sent(floor, "release_hand")) == 1
    # The tables answer with their states: every one playing its next hand, the released hand counted.
    for table in ("1", "2", "3"):
        floor.state(table, name=TABLES[table][0],
                    hand_for_hand={"waiting": False, "hands": 3, "minutes": 2, "time_off_s": 360})
    wait_text(page, "#h4h-counts", "playing: 3 · done: 0 · offline: 1")
    assert page.text_content("#h4h-clock") == "hands: 3 · tournament clock −6:00 (2 min a hand)"


def test_a_rule_set_for_the_room_shows_who_runs_it_who_waits_and_who_refused_why(page, floor):
    wait_text(page, "#tour-scope", "room Main")
    # The names the tables' statuses give (drawn twice a second once they are in).
    page.wait_for_function("document.querySelectorAll('#rule-set-names option').length > 0", timeout=WAIT)
    assert page.eval_on_selector_all("#rule-set-names option", "os => os.map(o => o.value)") == ["bubble"]
    page.fill("#rule-set", "bubble")
    page.click("#rule-set-go")
    message = floor.commands.wait_for(lambda m: json.loads(m.payload)["name"] == "rule_set")
    body = json.loads(message.payload)
    assert (body["rule_set"], body["room"]) == ("bubble", "Main")
    # Table 1 takes it at once (between hands), 2 at its next hand, 3 refuses (its configuration has no such set).
    floor.state("1", name="Tafel 1", rule_set={"name": "bubble", "next": None})
    floor.state("2", name="Tafel 2", rule_set={"name": "", "next": "bubble"})
    ack = {"id": body["id"], "table": "3", "boot": floor.boot("3"), "sender": "floor-tester", "name": "rule_set",
           "outcome": "ignored", "reason": "this table has no rule set 'bubble' (it has: none)",
           "code": "rule_set_unknown", "params": {"name": "bubble", "known": "none"}}
    floor.client.publish(floor.topic("3", "cmd/ack"), json.dumps(ack), qos=1)
    wait_text(page, "#rule-set-counts", "bubble: runs 1 · not yet (hand in play) 1 · refused 1 · offline 1")
    assert page.eval_on_selector_all("#rule-set-refused li", "els => els.map(e => e.textContent)") == [
        "Tafel 3: this table has no rule set 'bubble' (it has: none)"]
    wait_text(page, "article.table[data-table='2'] .tour", "from the next hand: bubble")
    page.click("#language")  # the refusal in the page's own language, from the device's words (core/texts.py)
    wait_text(page, "#rule-set-refused li", "Tafel 3: deze tafel kent geen regelset 'bubble' (wel: none)")


def test_no_time_off_is_0_00_never_minus_0_00(page, floor):
    # Before: "toernooiklok −0:00" as hand-for-hand began (no hand released yet), and 59.6 s was "−0:60".
    floor.state("5", name="Tafel 5", hand_for_hand={"waiting": False, "hands": 0, "minutes": 2, "time_off_s": 0})
    try:  # a room whose hand-for-hand has just begun: no hand released, nothing off the clock yet
        page.evaluate("location.hash = '#room=Salon'")
        wait_text(page, "#h4h-clock", "hands: 0 · tournament clock 0:00 (2 min a hand)")
    finally:
        floor.state("5", name="Tafel 5")
    values = "[0, -0, 0.4, -0.4, -3, 59.4, 59.6, 240, 3599.5, NaN, Infinity, '60', null]"
    assert page.evaluate(f"{values}.map(Shotclock.timeOffText)") == [
        "0:00", "0:00", "0:00", "0:00", "0:00", "\u22120:59", "\u22121:00", "\u22124:00", "\u221260:00",
        "0:00", "0:00", "0:00", "0:00"]
