"""The dashboard's seat controls (issue 19) in a real browser (Debian's chromium through Playwright), against a
real Mosquitto serving the pages and two real seat-aware table devices (``shotclock run`` with fake pins, each in
its own process, ``seats.track`` on). What the page sends is checked where it lands: the devices' own state
messages, read here by a client of the test's own.
"""

from __future__ import annotations

import json

import pytest

from helpers import start_device, wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import network_config
from shotclock.core.topics import table_topic
from shotclock.floor.demo import end
from shotclock.web import web_dir

TABLES = ["1", "2"]
SEATS = '[shot]\nallowance = 3\n[seats]\ntrack = true\ncount = 6\nbank = 120\n'
WAIT = 30_000  # ms: only bounds a hang (a loaded 2-core machine takes seconds for what takes ms)


class SeatFloor:
    """The broker (serving the pages) and two seat-aware devices in shot mode."""

    def __init__(self, folder):
        self.broker = MosquittoBroker(folder / "broker", venue="test", tables=TABLES, pages=web_dir(),
                                      floor=["tester"]).start()
        self.devices = [start_device(folder / f"device-{t}", config=network_config(self.broker, t, extra=SEATS,
                                                                                   mode="shot"),
                                     log=folder / f"device-{t}.log") for t in TABLES]
        self.inbox = Inbox(self.broker.client("collector"), *(table_topic("test", t, "state") for t in TABLES))

    def seat(self, table: str, seat: int, **fields) -> dict:
        """The device's state once it shows ``seat`` with ``fields`` (fails after 30 s)."""
        def shows(m):
            if m.topic != table_topic("test", table, "state"):
                return False
            s = [x for x in json.loads(m.payload).get("seats", []) if x["seat"] == seat]
            return bool(s) and all(s[0].get(k) == v for k, v in fields.items())

        m = self.inbox.wait_for(shows, timeout=WAIT / 1000)
        assert m is not None, f"table {table}'s state never showed seat {seat} with {fields}"
        return json.loads(m.payload)

    def latest(self, table: str) -> dict:
        """The newest state message of ``table``."""
        topic = table_topic("test", table, "state")
        return json.loads([m for m in list(self.inbox.messages) if m.topic == topic][-1].payload)

    def close(self):
        for process in self.devices:
            end(process)
        self.broker.close()


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = SeatFloor(tmp_path_factory.mktemp("seatfloor"))
    yield f
    f.close()


@pytest.fixture
def page(floor, web):
    page = web.page(1280, 900)
    page.goto(f"http://127.0.0.1:{floor.broker.ws_port}/dashboard/?lang=en")
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", floor.broker.passwords["floor-tester"])
    page.click("button[type=submit]")
    page.wait_for_function("(ts => ts.length === 2 && ts.every(t => t.state && t.state.seats))"
                           "(Object.values(window.shotclockLink.tables))", timeout=WAIT)
    yield page
    assert not web.errors, web.errors
    page.context.close()


def panel(page, table: str):
    """The table's seat panel, opened."""
    details = page.locator(f"article.table[data-table='{table}'] details.seat-panel")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    return details


def ack(page, table: str) -> str:
    return page.locator(f"article.table[data-table='{table}'] .ack")


def wait_ack(page, table: str, text: str) -> None:
    page.wait_for_function("([sel, text]) => document.querySelector(sel).textContent === text",
                           arg=[f"article.table[data-table='{table}'] .ack", text], timeout=WAIT)


def test_the_floor_seats_names_and_empties_a_player_and_sets_the_button_from_the_page(page, floor):
    seats = panel(page, "1")
    seats.locator("tr[data-seat='5'] button[data-seat-action=empty]").click()
    wait_ack(page, "1", "✓ Empty")
    page.wait_for_selector("article.table[data-table='1'] tr[data-seat='5']", state="detached", timeout=WAIT)
    add = seats.locator("form.seat-add")
    # The form's bounds are the device's (core/fields.py, through lib/device-rules.js).
    assert [add.locator(f"[name={n}]").get_attribute("max") for n in ("seat", "chips", "bank")] == ["10", "50", "36000"]
    add.locator("[name=seat]").fill("5")
    add.locator("[name=player]").fill("Ana Costa")
    add.locator("button").click()
    wait_ack(page, "1", "✓ Seat")
    assert floor.seat("1", 5, player="Ana Costa", chips=3, bank_ms=120_000)
    # Her row shows her chips and bank, as the device has them.
    row = seats.locator("tr[data-seat='5']")
    row.wait_for(timeout=WAIT)
    assert row.locator(".seat-chips").text_content() == "3" and row.locator(".seat-bank").text_content() == "120 s"
    row.locator("[name=player]").fill("Ana C. Costa")
    row.locator("button[data-seat-action=rename]").click()
    wait_ack(page, "1", "✓ Name")
    assert floor.seat("1", 5, player="Ana C. Costa")
    seats.locator("tr[data-seat='5'] button[data-seat-action=button]").click()
    wait_ack(page, "1", "✓ Button")
    floor.inbox.wait_for(lambda m: m.topic.endswith("/1/state") and json.loads(m.payload)["button"] == 5)
    page.wait_for_function("document.querySelector(\"article.table[data-table='1'] tr[data-seat='5'] th\")"
                           ".textContent.startsWith('D ')", timeout=WAIT)
    top = seats.locator("form.seat-topup")
    top.locator("[name=chips]").fill("2")
    top.locator("[name=seconds]").fill("30")
    top.locator("button").click()
    wait_ack(page, "1", "✓ Top up")
    assert floor.seat("1", 5, chips=5, bank_ms=150_000) and floor.seat("1", 1, chips=5, bank_ms=150_000)


def test_a_refused_seat_command_shows_the_tables_reason(page, floor):
    add = panel(page, "2").locator("form.seat-add")
    add.locator("[name=seat]").fill("9")  # a table of six
    add.locator("[name=player]").fill("Bo Li")
    add.locator("button").click()
    wait_ack(page, "2", "✗ Seat: seat must be a number from 1 to 6, not 9")
    assert "ack-refused" in page.locator("article.table[data-table='2']").get_attribute("class")
    add.locator("[name=seat]").fill("3")  # an unnamed player's seat (as a table starts): Bo Li is that player
    add.locator("button").click()
    assert floor.seat("2", 3, player="Bo Li")
    add.locator("[name=player]").fill("Di Ng")  # now taken
    add.locator("button").click()
    page.wait_for_function("document.querySelector(\"article.table[data-table='2'] .ack\").textContent"
                           ".startsWith('✗ Seat: seat 3')", timeout=WAIT)
    row = panel(page, "2").locator("tr[data-seat='4']")
    row.locator("[name=player]").fill("x" * 41)
    row.locator("button[data-seat-action=rename]").click()
    page.wait_for_function("document.querySelector(\"article.table[data-table='2'] .ack\").textContent"
                           ".startsWith('✗ Name: ') && document.querySelector(\"article.table[data-table='2'] .ack\")"
                           ".textContent.includes('40')", timeout=WAIT)


def test_a_player_moves_to_another_table_with_their_chips_and_bank(page, floor):
    one = panel(page, "1")
    if not one.locator("tr[data-seat='6'] [name=player]").input_value():
        row = one.locator("tr[data-seat='6']")
        row.locator("[name=player]").fill("Cy Moss")
        row.locator("button[data-seat-action=rename]").click()
        floor.seat("1", 6, player="Cy Moss")
    before = floor.seat("1", 6, player="Cy Moss")
    chips, bank = [(x["chips"], x["bank_ms"]) for x in before["seats"] if x["seat"] == 6][0]
    two = panel(page, "2")
    two.locator("tr[data-seat='2'] button[data-seat-action=empty]").click()
    wait_ack(page, "2", "✓ Empty")
    page.wait_for_selector("article.table[data-table='2'] tr[data-seat='2']", state="detached", timeout=WAIT)
    one.locator("tr[data-seat='6'] button[data-seat-action=move]").click()
    move = one.locator("form.seat-move")
    move.locator("select").select_option("2")
    move.locator("[name=seat]").fill("2")
    move.locator("button[data-seat-action=move_go]").click()
    page.wait_for_function("document.querySelector(\"article.table[data-table='1'] .seat-note\").textContent"
                           ".startsWith('✓ Cy Moss now sits at table')", timeout=WAIT)
    assert floor.seat("2", 2, player="Cy Moss", chips=chips, bank_ms=bank)
    page.wait_for_selector("article.table[data-table='1'] tr[data-seat='6']", state="detached", timeout=WAIT)
    # A move to a taken seat is stopped on the page, before anything is sent.
    one.locator("tr[data-seat='4'] button[data-seat-action=move]").click()
    move.locator("select").select_option("2")
    move.locator("[name=seat]").fill("2")
    move.locator("button[data-seat-action=move_go]").click()
    assert one.locator(".seat-note").text_content() == "seat 2 at table Tafel 2 is taken"


def test_a_move_the_other_table_refuses_seats_the_player_back_where_they_were(page, floor):
    one = panel(page, "1")
    row = one.locator("tr[data-seat='3']")
    row.locator("[name=player]").fill("Ed Park")
    row.locator("button[data-seat-action=rename]").click()
    before = floor.seat("1", 3, player="Ed Park")
    chips, bank = [(x["chips"], x["bank_ms"]) for x in before["seats"] if x["seat"] == 3][0]
    one.locator("tr[data-seat='3'] button[data-seat-action=move]").click()
    move = one.locator("form.seat-move")
    move.locator("select").select_option("2")
    move.locator("[name=seat]").fill("9")  # table 2 has six seats
    move.locator("button[data-seat-action=move_go]").click()
    page.wait_for_function("document.querySelector(\"article.table[data-table='1'] .seat-note\").textContent === "
                           "'✗ Ed Park not seated at table Tafel 2: seat must be a number from 1 to 6, not 9; "
                           "back in seat 3 here'", timeout=WAIT)
    page.wait_for_function("document.querySelector(\"article.table[data-table='1'] .ack\").textContent === '✓ Seat'",
                           timeout=WAIT)
    back = lambda: [x for x in floor.latest("1")["seats"] if x["seat"] == 3]
    wait_until(lambda: back() and (back()[0]["player"], back()[0]["chips"], back()[0]["bank_ms"]) ==
               ("Ed Park", chips, bank), what="Ed Park back in seat 3 with his chips and bank")


def test_a_refusal_reads_in_dutch_on_a_dutch_dashboard(floor, web):
    page = web.page(1280, 900)
    page.goto(f"http://127.0.0.1:{floor.broker.ws_port}/dashboard/")  # Dutch: the table's language
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", floor.broker.passwords["floor-tester"])
    page.click("button[type=submit]")
    page.wait_for_function("(ts => ts.length === 2 && ts.every(t => t.state && t.state.seats))"
                           "(Object.values(window.shotclockLink.tables))", timeout=WAIT)
    add = panel(page, "2").locator("form.seat-add")
    add.locator("[name=seat]").fill("9")  # a table of six
    add.locator("[name=player]").fill("Bo Li")
    add.locator("button").click()
    wait_ack(page, "2", "✗ Plaats: stoel moet een nummer van 1 tot en met 6 zijn, niet 9")
    assert not web.errors, web.errors
    page.context.close()


def test_the_floor_marks_and_unmarks_a_player_from_the_seats_panel(page, floor):
    seats = panel(page, "2")
    form = seats.locator("form.seat-markform")
    form.locator("[name=seat]").fill("5")
    form.locator("select[name=mark]").select_option("clock")
    form.locator("[name=mark_seconds]").fill("10")
    form.locator("button[data-seat-action=mark]").click()
    wait_ack(page, "2", "✓ Mark")
    assert floor.seat("2", 5, mark="clock", mark_seconds=10)
    page.wait_for_function("document.querySelector(\"article.table[data-table='2'] tr[data-seat='5'] .seat-flag\")"
                           ".textContent === '⚠ own clock 10 s'", timeout=WAIT)
    form.locator("[name=mark_seconds]").fill("")  # a clock mark needs its seconds: the table says so
    form.locator("button[data-seat-action=mark]").click()
    wait_ack(page, "2", "✗ Mark: a clock mark needs 'mark_seconds' (the player's own clock, 5 to 300 s)")
    form.locator("button[data-seat-action=unmark]").click()
    wait_ack(page, "2", "✓ Unmark")
    page.wait_for_function("document.querySelector(\"article.table[data-table='2'] tr[data-seat='5'] .seat-flag\")"
                           ".textContent === ''", timeout=WAIT)
