"""The dashboard's seat rows count the bank of the seat on the clock down, as the overlay does (one function,
lib/clock.js bankLeftMs), and mark the moment the bank runs; in a real browser (Debian's chromium) against a real
Mosquitto serving the page, the table's state published as its device would (tests/floor_injector.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from floor_injector import InjectedFloor
from shotclock.web import web_dir

WAIT = 30_000  # ms: only bounds a hang
SEATS = [{"seat": 2, "player": "Bo Li", "in_hand": True, "all_in": False, "chips": None, "bank_ms": 41_000},
         {"seat": 4, "player": "Ana Costa", "in_hand": True, "all_in": False, "chips": None, "bank_ms": 60_000}]


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = InjectedFloor(tmp_path_factory.mktemp("bankfloor") / "broker")
    f.status("5", name="Feature", mode="shot")
    # A Tempo clock of 90 s, 25 s left: the last 60 were seat 4's bank, so 25 s of it are left, counting down.
    # No heartbeats promised (heartbeat_ms None): the page counts down from this one message.
    f.state("5", "running", 25_000, 90, name="Feature", mode="shot", street="preflop", seat=4, player="Ana Costa",
            bank_ms=60_000, seats=SEATS, button=1, turn=4, heartbeat_ms=None, countdown=5)
    yield f
    f.close()


def test_the_seat_on_the_clock_counts_its_bank_down_in_its_row_and_the_card_marks_the_bank(web, floor):
    page = floor.dashboard(web)
    card = page.locator("article.table[data-table='5']")
    card.wait_for(timeout=WAIT)
    card.locator("details.seat-panel summary").click()
    cell = card.locator("tr[data-seat='4'] .seat-bank")
    cell.wait_for(timeout=WAIT)
    first = int(re.match(r"(\d+) s", cell.text_content()).group(1))
    assert first <= 25
    # The page's own count: the cell goes down with the clock, with no new message from the table.
    page.wait_for_function("([sel, first]) => parseInt(document.querySelector(sel).textContent) <= first - 2",
                           arg=["article.table[data-table='5'] tr[data-seat='4'] .seat-bank", first], timeout=WAIT)
    assert card.locator("tr[data-seat='2'] .seat-bank").text_content() == "41 s"  # as at its last decision
    assert card.locator("tr[data-seat='4'] th").text_content().startswith("◷")
    assert "tone-bank" in card.get_attribute("class")
    info = card.locator(".info").text_content()
    assert "S2 Bo Li 41 s" in info
    page.context.close()


def test_the_seat_marks_are_glyphs_debians_dejavu_font_has():
    import pygame

    font_file = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    if not font_file.exists():
        pytest.skip("fonts-dejavu-core is not installed")
    pygame.font.init()
    font = pygame.font.Font(str(font_file), 20)
    missing = font.metrics("\U000f0000")[0]  # a private-use character: the font's empty box
    source = (web_dir() / "dashboard" / "seats.js").read_text()
    marks = re.search(r'var marks = (.*);', source).group(1)
    marks += re.search(r'"seats.warning": "(.*?)"', source).group(1)  # the floor's mark on a player
    glyphs = [c for c in marks if ord(c) > 0x2000]
    assert "⚠" in glyphs
    assert glyphs and all(font.metrics(c)[0] != missing for c in glyphs), glyphs


def test_the_overlay_says_time_bank_in_the_bank_tone_once_the_bank_runs(web, floor):
    overlay = web.page(1920, 1080)
    overlay.goto(f"{floor.base}/overlay/?password={floor.passwords['overlay']}&table=5&language=en")
    graphic = overlay.locator("#graphic:not(.hidden)")
    graphic.wait_for(timeout=WAIT)
    overlay.wait_for_function("document.querySelector('#graphic .state').textContent.startsWith('TIME BANK: ')",
                              timeout=WAIT)
    assert "tone-bank" in graphic.get_attribute("class")
    assert overlay.locator("#graphic .name").text_content() == "Ana Costa · Seat 4"
    overlay.context.close()
