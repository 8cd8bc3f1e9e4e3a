"""The floor's mark on the player on the clock, on the dashboard's card and Seats panel and on the broadcast overlay;
in a real browser (Debian's chromium) against a real Mosquitto serving the pages, the table's state published as
its device would (tests/floor_injector.py)."""

from __future__ import annotations

import pytest

from floor_injector import InjectedFloor

WAIT = 30_000  # ms: only bounds a hang
SEATS = [{"seat": 2, "player": "Bo Li", "in_hand": True, "all_in": False, "chips": None, "bank_ms": None,
          "mark": "warning"},
         {"seat": 4, "player": "Ana Costa", "in_hand": True, "all_in": False, "chips": None, "bank_ms": None,
          "mark": "clock", "mark_seconds": 10}]


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = InjectedFloor(tmp_path_factory.mktemp("markfloor") / "broker")
    f.status("5", name="Feature", mode="shot")
    # Ana's own clock: 10 s, 8 left (heartbeat_ms None: the page counts down from this one message).
    f.state("5", "running", 8_000, 10, name="Feature", mode="shot", street="flop", seat=4, player="Ana Costa",
            bank_ms=None, seats=SEATS, button=1, turn=4, heartbeat_ms=None, countdown=5)
    yield f
    f.close()


def test_the_card_and_the_seats_panel_show_the_mark(web, floor):
    page = floor.dashboard(web)
    card = page.locator("article.table[data-table='5']")
    card.wait_for(timeout=WAIT)
    page.wait_for_function("document.querySelector(\"article.table[data-table='5'] .info\").textContent"
                           ".includes('OWN CLOCK 10 s')", timeout=WAIT)
    info = card.locator(".info").text_content()
    assert info.startswith("Seat 4 · Ana Costa · OWN CLOCK 10 s") and "S2 Bo Li ⚠" in info
    card.locator("details.seat-panel summary").click()
    card.locator("tr[data-seat='4'] .seat-flag").wait_for(timeout=WAIT)
    assert card.locator("tr[data-seat='4'] .seat-flag").text_content() == "⚠ own clock 10 s"
    assert card.locator("tr[data-seat='2'] .seat-flag").text_content() == "⚠ warning"
    # The mark form offers the device's words and bounds (core/fields.py, through lib/device-rules.js).
    form = card.locator("form.seat-markform")
    assert form.locator("select[name=mark] option").evaluate_all("os => os.map(o => o.value)") == ["warning", "clock"]
    assert (form.locator("[name=mark_seconds]").get_attribute("min"),
            form.locator("[name=mark_seconds]").get_attribute("max")) == ("5", "300")
    page.context.close()


def test_the_overlay_shows_the_mark_of_the_player_on_the_clock(web, floor):
    overlay = web.page(1920, 1080)
    overlay.goto(f"{floor.base}/overlay/?password={floor.passwords['overlay']}&table=5")  # Dutch
    overlay.locator("#graphic:not(.hidden)").wait_for(timeout=WAIT)
    overlay.wait_for_function("document.querySelector('#graphic .name').textContent.includes('EIGEN KLOK')",
                              timeout=WAIT)
    assert overlay.locator("#graphic .name").text_content() == "Ana Costa · Stoel 4 · EIGEN KLOK 10 s"
    overlay.context.close()

