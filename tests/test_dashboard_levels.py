"""The dashboard shows each table's level and its count ("Level 14 · hand 7 of 12"), and its level form sends the
level to the room its filters show, in a real browser (Debian's chromium) against a real Mosquitto."""

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
    yield f
    f.close()


@pytest.fixture
def dashboard(web, floor):
    page = open_dashboard_of(web, floor, 3, width=1280, height=800)
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


def test_the_level_form_sends_the_level_to_the_room_the_filters_show(dashboard, floor):
    commands = Inbox(floor.broker.client("floor"), "shotclock/v1/test/cmd/by/+")
    assert dashboard.get_attribute("#level-input", "max") == "100"  # the bounds of the one table of fields
    dashboard.select_option("#room", "Side")
    dashboard.fill("#level-input", "10")
    dashboard.fill("#hands-input", "12")
    dashboard.wait_for_function("!document.getElementById('level-set').disabled", timeout=WAIT)
    dashboard.click("#level-set")
    message = commands.wait_for(lambda m: json.loads(m.payload).get("name") == "level")
    assert message is not None and message.topic == "shotclock/v1/test/cmd/by/floor-tester"
    body = json.loads(message.payload)
    assert {k: body[k] for k in ("level", "hands", "room")} == {"level": 10, "hands": 12, "room": "Side"}
    assert "section" not in body
