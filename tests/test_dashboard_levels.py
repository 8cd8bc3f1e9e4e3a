"""The dashboard shows each table's level and its count ("Level 14 · hand 7 of 12"), and its level form sends the
level to the room its filters show, or to one table chosen in it, in a real browser (Debian's chromium) against a
real Mosquitto."""

from __future__ import annotations

import json

import pytest

from floor_injector import InjectedFloor
from mqtt_broker import Inbox
from test_dashboard_filters import open_dashboard_of

WAIT = 30_000  # ms: only bounds a hang


def level(n, hand, hands, next_level=None):
    return {"level": n, "hand": hand, "hands": hands, "last_hand": bool(hands) and hand >= hands,
            "next_level": next_level, "next_hands": None}


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = InjectedFloor(tmp_path_factory.mktemp("levelfloor") / "broker")
    f.status("1", name="Final", room="Final")
    f.state("1", name="Final", level=level(14, 7, 12))
    f.status("2", name="Tafel 2", room="Side")
    f.state("2", name="Tafel 2", level=level(9, 12, 12))
    f.status("3", name="Tafel 3", room="Side")
    f.state("3", name="Tafel 3")  # no level ever set
    f.status("4", online=False, room="Side")  # its Last Will: nothing can reach it
    f.state("4", name="Tafel 4")  # its last word before that
    yield f
    f.close()


@pytest.fixture
def dashboard(web, floor):
    page = open_dashboard_of(web, floor, 4, width=1280, height=800)
    yield page
    page.context.close()


def card_level(page, table):
    return page.text_content(f"article.table[data-table='{table}'] .level")


def test_each_card_shows_its_level_and_count_and_the_last_hand(dashboard, floor):
    dashboard.wait_for_function("document.querySelector(\"article.table[data-table='1'] .level\").textContent !== ''",
                                timeout=WAIT)
    assert card_level(dashboard, "1") == "Level 14 · hand 7 of 12"
    assert card_level(dashboard, "2") == "Level 9 · hand 12 of 12 · last hand of the level"
    assert card_level(dashboard, "3") == ""
    assert dashboard.eval_on_selector("article.table[data-table='2']", "e => e.classList.contains('last-hand')")
    assert not dashboard.eval_on_selector("article.table[data-table='1']", "e => e.classList.contains('last-hand')")
    floor.state("1", name="Final", level=level(14, 7, 12, next_level=15))
    dashboard.wait_for_function("document.querySelector(\"article.table[data-table='1'] .level\").textContent"
                                ".includes('level 15 from the next hand')", timeout=WAIT)


def send_level(page, commands, level: int, hands: int) -> tuple[str, dict]:
    """Fill the header's level form and send it: the topic and body of the level command the broker carried."""
    page.fill("#level-input", str(level))
    page.fill("#hands-input", str(hands))
    page.wait_for_function("!document.getElementById('level-set').disabled", timeout=WAIT)
    page.click("#level-set")
    message = commands.wait_for(lambda m: json.loads(m.payload).get("name") == "level")
    assert message is not None
    return message.topic, json.loads(message.payload)


def test_the_level_form_sends_the_level_to_the_room_the_filters_show(dashboard, floor):
    commands = Inbox(floor.broker.client("floor"), "shotclock/v1/test/cmd/by/+")
    assert dashboard.get_attribute("#level-input", "max") == "100"  # the bounds of the one table of fields
    dashboard.select_option("#room", "Side")
    topic, body = send_level(dashboard, commands, 10, 12)
    assert topic == "shotclock/v1/test/cmd/by/floor-tester"
    assert {k: body[k] for k in ("level", "hands", "room")} == {"level": 10, "hands": 12, "room": "Side"}
    assert "section" not in body


def level_tables(page) -> list[tuple[str, str, bool]]:
    """The level form's table choices: (value, text, disabled)."""
    return [tuple(o) for o in page.eval_on_selector_all(
        "#level-table option", "os => os.map(o => [o.value, o.textContent, o.disabled])")]


def test_the_level_form_sends_the_level_to_one_chosen_table_alone(dashboard, floor):
    commands = Inbox(floor.broker.client("floor"), "shotclock/v1/test/cmd/by/+", floor.topic("+", "cmd/by/+"))
    assert dashboard.text_content("#level-form label:has(#level-table) span") == "Table"
    dashboard.select_option("#room", "Side")
    # The tables "all" reaches, by name; the offline one is listed as such and cannot be chosen.
    dashboard.wait_for_function("document.querySelectorAll('#level-table option').length === 4", timeout=WAIT)
    assert level_tables(dashboard) == [("", "all 3", False), ("test/2", "Tafel 2", False),
                                       ("test/3", "Tafel 3", False), ("test/4", "Tafel 4 · offline", True)]
    dashboard.select_option("#level-table", "test/2")
    topic, body = send_level(dashboard, commands, 10, 12)
    assert topic == floor.topic("2", "cmd/by/floor-tester")
    assert {k: body[k] for k in ("level", "hands")} == {"level": 10, "hands": 12}
    assert "room" not in body and "section" not in body
    # The table's ack on its own card, as any command's.
    ack = {"id": body["id"], "table": "2", "boot": floor.boot("2"), "sender": "floor-tester", "name": "level",
           "outcome": "done", "reason": "", "outputs": [{"type": "level_set", "level": 10, "hands": 12,
                                                          "by": "floor-tester"}]}
    floor.client.publish(floor.topic("2", "cmd/ack"), json.dumps(ack), qos=1)
    dashboard.wait_for_function("document.querySelector(\"article.table[data-table='2'] .ack\").textContent"
                                " === '✓ Level'", timeout=WAIT)
    assert dashboard.text_content("article.table[data-table='3'] .ack") == ""
    # Back to every table: the venue topic's first level is this one (the one table's never went there).
    dashboard.select_option("#level-table", "")
    dashboard.fill("#level-input", "11")
    dashboard.click("#level-set")
    assert commands.wait_for(lambda m: json.loads(m.payload).get("level") == 11) is not None
    venue_wide = [json.loads(m.payload) for m in commands.messages if m.topic.startswith("shotclock/v1/test/cmd/")]
    assert [(b["level"], b["room"]) for b in venue_wide] == [(11, "Side")]


def test_the_level_forms_table_choice_reads_in_dutch(dashboard):
    dashboard.select_option("#room", "Side")
    dashboard.wait_for_function("document.querySelectorAll('#level-table option').length === 4", timeout=WAIT)
    dashboard.click("#language")
    dashboard.wait_for_function("document.querySelector('#level-table option').textContent === 'alle 3'",
                                timeout=WAIT)
    assert dashboard.text_content("#level-form label:has(#level-table) span") == "Tafel"
    assert level_tables(dashboard)[-1] == ("test/4", "Tafel 4 · offline", True)


def test_a_chosen_table_that_goes_offline_is_sent_nothing(dashboard, floor):
    dashboard.wait_for_function("document.querySelectorAll('#level-table option').length === 5", timeout=WAIT)
    dashboard.select_option("#level-table", "test/3")
    dashboard.fill("#level-input", "12")
    dashboard.wait_for_function("!document.getElementById('level-set').disabled", timeout=WAIT)
    try:
        floor.status("3", online=False, room="Side")
        dashboard.wait_for_function("document.getElementById('level-set').disabled", timeout=WAIT)
        # Still chosen, said offline: never the whole venue in its place.
        assert dashboard.input_value("#level-table") == "test/3"
        assert ("test/3", "Tafel 3 · offline", True) in level_tables(dashboard)
    finally:
        floor.status("3", name="Tafel 3", room="Side")
