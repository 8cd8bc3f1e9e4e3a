"""The pages when a room broker dies: a venue broker serving the dashboard and the overlay, a room broker bridged
to it (``broker-config --bridge-to``), a real seat-aware device on the room broker and one on the venue broker, the
pages in Debian's chromium (Playwright). ``kill -9`` of the room broker leaves its tables' retained messages at the
venue as they were (online, a clock paused with seconds left); only the bridge's own state says it is gone.
"""

from __future__ import annotations

import json

import pytest

from helpers import start_device
from mqtt_broker import MosquittoBroker
from network_device import network_config
from shotclock.core.topics import member_topic
from shotclock.floor.demo import end
from shotclock.web import web_dir

SEATS = '[shot]\nallowance = 3\n[seats]\ntrack = true\ncount = 6\nbank = 120\n'
EAST, VENUE_TABLE = "1", "3"    # a table in room east (behind the bridge), one on the venue broker itself
WAIT = 30_000  # ms: only bounds a hang (a loaded 2-core machine takes seconds for what takes ms)


class BridgedFloor:
    def __init__(self, folder):
        self.folder = folder
        self.venue = MosquittoBroker(folder / "venue", venue="test", tables=[EAST, "2", VENUE_TABLE],
                                     pages=web_dir(), floor=["tester"])
        self.room = MosquittoBroker(folder / "room", venue="test", tables=[EAST, "2"], websockets=False,
                                    bridge_to=self.venue, room="east")
        self.venue.start()
        self.room.start()
        self.devices = [start_device(folder / f"device-{t}", config=network_config(broker, t, extra=SEATS, mode="shot"),
                                     log=folder / f"device-{t}.log")
                        for t, broker in ((EAST, self.room), (VENUE_TABLE, self.venue))]
        self.base = f"http://127.0.0.1:{self.venue.ws_port}"

    def close(self):
        for process in self.devices:
            end(process)
        self.room.close()
        self.venue.close()


@pytest.fixture
def floor(tmp_path, web):
    f = BridgedFloor(tmp_path)
    yield f
    f.close()


def dashboard(floor, web):
    page = web.page(1280, 900)
    page.goto(floor.base + "/dashboard/?lang=en")
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", floor.venue.passwords["floor-tester"])
    page.click("button[type=submit]")
    return page


def card(table: str) -> str:
    return f"article.table[data-table='{table}']"


def test_tables_behind_a_dead_room_broker_show_unreachable_on_every_page(floor, web):
    page = dashboard(floor, web)
    # Table 1 knows its bridge (its status names room east) and has seats; both tables ready.
    page.wait_for_function(f"(l => ['{EAST}', '{VENUE_TABLE}'].every(id => (t => t && t.state && t.state.seats)"
                           f"(l.tables['test/' + id])) && l.tables['test/{EAST}'].bridge === 'east')"
                           "(window.shotclockLink)", timeout=WAIT)
    for table in (EAST, VENUE_TABLE):  # a shot clock started, then paused: seconds left, no heartbeat
        page.evaluate(f"window.shotclockLink.command(window.shotclockLink.tables['test/{table}'], 'start')")
        page.wait_for_selector(f"{card(table)}.phase-running, {card(table)}.phase-countdown", timeout=WAIT)
        page.evaluate(f"window.shotclockLink.command(window.shotclockLink.tables['test/{table}'], 'pause')")
        page.wait_for_selector(f"{card(table)}.phase-paused", timeout=WAIT)
    overlay = web.page(1920, 1080)
    overlay.goto(f"{floor.base}/overlay/?password={floor.venue.passwords['overlay']}&table={EAST}&venue=test&language=en")
    overlay.wait_for_function("window.shotclockOverlay && window.shotclockOverlay.visible", timeout=WAIT)

    floor.room.kill()  # kill -9: the table's Last Will dies with its broker

    page.wait_for_selector(f"{card(EAST)}.phase-unreachable", timeout=WAIT)
    assert page.text_content(f"{card(EAST)} .phase") == "unreachable"
    assert page.text_content(f"{card(EAST)} .info") == "room east not connected"
    assert page.text_content(f"{card(EAST)} .name") == "Tafel 1"  # still named
    assert page.text_content(f"{card(EAST)} .secs") == "–"  # no count from its last word
    assert page.locator(f"{card(EAST)} .cmds button").count() == 0
    # Its seats are its last word: shown as such, no seat command can go.
    assert "unreachable" in page.text_content(f"{card(EAST)} .seat-panel summary")
    assert page.evaluate(f"[...document.querySelectorAll(\"{card(EAST)} .seat-panel button\")]"
                         ".every(b => b.disabled)")
    assert "room not connected: east" in page.text_content("#links")
    assert page.text_content("#show-offline") == "Offline 1"  # counted with the offline ones: nothing reaches it
    # The table on the venue broker itself is untouched.
    assert page.locator(f"{card(VENUE_TABLE)}.phase-paused").count() == 1
    # The stream shows nothing it cannot vouch for, and says why.
    overlay.wait_for_function("window.shotclockOverlay.phase === 'unreachable' && !window.shotclockOverlay.visible",
                              timeout=WAIT)
    assert "unreachable: room east not connected" in overlay.text_content("#notice")
    # A share group's member gone (its Last Will, as the broker sends it when its session ends) shows too.
    collector = floor.venue.client("collector")
    collector.publish(member_topic("test", "g", "2"), json.dumps({"online": False, "group": "g", "member": "2",
                                                                 "clean": False}), qos=1, retain=True).wait_for_publish(30)
    page.wait_for_function("document.getElementById('links').textContent.includes('archive: g/2 gone')", timeout=WAIT)
    page.screenshot(path=str(floor.folder / "dashboard.png"))
    # A page opened after the crash reads it from the retained messages.
    late = dashboard(floor, web)
    late.wait_for_selector(f"{card(EAST)}.phase-unreachable", timeout=WAIT)
    late.wait_for_selector(f"{card(VENUE_TABLE)}.phase-paused", timeout=WAIT)
    assert not web.errors, web.errors
    for p in (page, overlay, late):
        p.context.close()
