"""The room's screen (web/tournament) in a real browser (Debian's chromium through Playwright) against a real
Mosquitto serving the page and the real tournament clock's process: the level, blinds, time left, the next level,
the time to the break and the players, in Dutch and English; a clock that is gone shown unreachable, never running.

Every wait is on a condition in the page; no test measures time."""

from __future__ import annotations

import re

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


def test_the_dashboard_runs_the_clock_and_shows_it_unreachable_when_it_is_gone(room, web, capsys):
    floor, clock, inbox = room
    floor.status("1", online=True, name="Tafel 1", room="Main")
    floor.state("1", name="Tafel 1")
    page = floor.dashboard(web)
    page.wait_for_function("!document.getElementById('clock').hidden", timeout=WAIT)
    assert "Sunday 250: level 1 · 1000/2000 (2000) · 40:00 left · not started" == text(page, "#tc-line")
    page.click("#tc-start")
    page.wait_for_function("document.getElementById('tc-answer').textContent.startsWith('Start: started: level 1')",
                           timeout=WAIT)
    page.click("#tc-take")
    page.wait_for_function("/^−1 min: adjusted: level 1, (39:00|38:\\d\\d) left$/"
                           ".test(document.getElementById('tc-answer').textContent)", timeout=WAIT)
    page.fill("#tc-level", "2")
    page.click("#tc-level-go")
    page.wait_for_function("document.getElementById('tc-line').textContent.includes('level 2 · 1500/3000')",
                           timeout=WAIT)
    page.fill("#tc-players", "12x")
    page.click("#tc-players-go")
    assert text(page, "#tc-answer") == "a whole number, in digits"  # nothing sent
    page.click("#tc-pause")
    page.wait_for_function("document.getElementById('tc-line').textContent.endsWith('paused')", timeout=WAIT)
    assert page.is_hidden("#tc-pause") and page.is_visible("#tc-resume")
    clock.kill()
    page.wait_for_function("document.getElementById('tc-line').textContent.includes('UNREACHABLE')", timeout=WAIT)
    assert page.is_disabled("#tc-resume") and page.is_disabled("#tc-level-go")  # nothing sent to a clock that is gone
    assert not web.errors, web.errors
    page.context.close()


def test_the_dashboard_asks_before_the_next_stage_and_gives_the_time_away_back(room, web, capsys):
    floor, clock, inbox = room
    command(floor, capsys, "start")
    floor.status("1", online=True, name="Tafel 1", room="Main")
    page = floor.dashboard(web)
    page.wait_for_function("document.getElementById('tc-line').textContent.endsWith('running')", timeout=WAIT)
    assert re.fullmatch(r"next break \(dinner\) · break in (40:00|39:[0-5]\d)", text(page, "#tc-next-line"))
    page.click("#tc-next")  # every table of the tournament would move on: a second tap sends it
    page.wait_for_function("document.getElementById('tc-next').textContent === 'On to break (dinner) now? Tap again'",
                           timeout=WAIT)
    assert text(page, "#tc-line").startswith("Sunday 250: level 1")
    page.click("#tc-next")
    page.wait_for_function("document.getElementById('tc-line').textContent.startsWith('Sunday 250: break (dinner)')",
                           timeout=WAIT)
    clock.kill()  # a crash: back with the time away counted as played, for the floor to give back or keep
    clock.start()
    page.wait_for_function("!document.getElementById('tc-give-back').hidden", timeout=WAIT)
    given = text(page, "#tc-give-back")
    assert given.startswith("Give back ") and given.endswith(" s")
    page.click("#tc-give-back")
    page.wait_for_function(f"document.getElementById('tc-answer').textContent.startsWith({given + ': adjusted'!r})",
                           timeout=WAIT)
    page.wait_for_function("document.getElementById('tc-give-back').hidden", timeout=WAIT)
    assert not web.errors, web.errors
    page.context.close()
