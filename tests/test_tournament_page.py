"""The room's screen (web/tournament) in a real browser (Debian's chromium through Playwright) against a real
Mosquitto serving the page and the real tournament clock's process: the level, blinds, time left, the next level,
the time to the break and the players, in Dutch and English; a clock that is gone shown unreachable, never running.

Every wait is on a condition in the page; no test measures time."""

from __future__ import annotations

import pytest

from floor_injector import InjectedFloor
from mqtt_broker import Inbox
from shotclock.cli import main
from shotclock.core.topics import tournament_topic
from tournament_clock import Clock, latest

WAIT = 30_000  # ms: only bounds a hang
STRUCTURE = """title = "Sunday 250"
[[stage]]
small_blind = 1000
big_blind = 2000
ante = 2000
big_blind_ante = true
minutes = 40
[[stage]]
break = true
name = "dinner"
minutes = 60
[[stage]]
small_blind = 1500
big_blind = 3000
minutes = 40
"""


@pytest.fixture
def room(tmp_path, web):
    floor = InjectedFloor(tmp_path / "broker")
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    inbox = Inbox(floor.broker.client("floor"), tournament_topic("test", "main", "#"))
    clock = Clock(floor.broker, tmp_path)
    clock.start("--structure", str(structure), scope=("--venue-wide",))
    latest(inbox)
    yield floor, clock, inbox
    clock.kill()
    floor.close()


def command(floor, capsys, *args: str) -> None:
    code = main(["tournament", args[0], "--broker", f"127.0.0.1:{floor.broker.port}", "--venue", "test",
                 "--credentials", str(floor.broker.credentials_file("floor")), "--id", "main", *args[1:]])
    assert code == 0, capsys.readouterr()


def open_room(web, floor, query: str):
    page = web.page(1920, 1080)
    page.goto(f"{floor.base}/tournament/?password={floor.passwords['overlay']}{query}")
    return page


def text(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => e.textContent")


def test_the_rooms_screen_shows_the_level_the_blinds_the_time_and_what_comes_next(room, web, capsys):
    floor, clock, inbox = room
    command(floor, capsys, "start")
    command(floor, capsys, "players", "1234")
    page = open_room(web, floor, "&language=en")
    page.wait_for_function("document.getElementById('level').textContent === 'Level 1'", timeout=WAIT)
    page.wait_for_function("document.getElementById('players').textContent === '1,234 players'", timeout=WAIT)
    assert (text(page, "#blinds"), text(page, "#ante")) == ("1,000 / 2,000", "BB ante 2,000")
    assert text(page, "#time") in ("40:00", "39:59", "39:58")
    assert text(page, "#next") == "Break · dinner" and text(page, "#to-break").startswith(("40:", "39:"))
    before = text(page, "#time")
    page.wait_for_function(f"document.getElementById('time').textContent !== {before!r}", timeout=WAIT)  # it counts
    assert not web.errors, web.errors
    page.context.close()
    dutch = open_room(web, floor, "")
    dutch.wait_for_function("document.getElementById('level').textContent === 'Niveau 1'", timeout=WAIT)
    assert (text(dutch, "#blinds"), text(dutch, "#ante")) == ("1.000 / 2.000", "BB-ante 2.000")
    assert text(dutch, "#next-label") == "Volgende"
    command(floor, capsys, "next")
    dutch.wait_for_function("document.getElementById('level').textContent === 'Pauze · dinner'", timeout=WAIT)
    assert text(dutch, "#blinds") == "" and text(dutch, "#next") == "Niveau 2 · 1.500 / 3.000"
    command(floor, capsys, "pause")
    dutch.wait_for_function("document.getElementById('how').textContent === 'gepauzeerd'", timeout=WAIT)
    dutch.context.close()


def test_a_clock_that_is_gone_is_shown_unreachable_never_running(room, web, capsys):
    floor, clock, inbox = room
    command(floor, capsys, "start")
    page = open_room(web, floor, "&language=en&obs=1")
    page.wait_for_function("document.getElementById('level').textContent === 'Level 1'", timeout=WAIT)
    clock.kill()  # its Last Will says offline
    page.wait_for_function("document.getElementById('board').classList.contains('unreachable')", timeout=WAIT)
    assert text(page, "#how") == "CLOCK UNREACHABLE: its last state, not running"
    shown = text(page, "#time")
    page.wait_for_timeout(1500)  # (the only pause: that a greyed clock does not count on)
    assert text(page, "#time") == shown
    assert page.evaluate("document.body.className") == "obs"
    page.context.close()


def test_a_page_without_an_id_asks_for_one_when_the_broker_has_several(room, web, capsys):
    floor, clock, inbox = room
    other = floor.broker.client("floor")
    from shotclock.core.structure import Stage, Structure
    from shotclock.core.tournament import TournamentClock
    from shotclock.core.tournament_state import Scope, state_of

    state = state_of(TournamentClock(Structure("Side event", (Stage(20, 25, 50),))), 0.0, "side", Scope(), seq=1,
                     at_ms=1)
    other.publish(tournament_topic("test", "side", "state"), state.encode(), qos=1, retain=True).wait_for_publish(30)
    page = open_room(web, floor, "&language=en")
    page.wait_for_function("!document.getElementById('notice').hidden", timeout=WAIT)
    assert text(page, "#notice") == "Several tournaments: add &id= to the address (main, side)"
    page.goto(f"{floor.base}/tournament/?password={floor.passwords['overlay']}&language=en&id=side")
    page.wait_for_function("document.getElementById('title').textContent === 'Side event'", timeout=WAIT)
    page.context.close()
