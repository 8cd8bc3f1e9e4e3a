"""The dashboard's tournament clock panel in a real browser (Debian's chromium through Playwright), against a real
Mosquitto serving the page and the real tournament clock's process: the clock's state counted down on the page, the
floor's commands sent from its buttons under the floor login's own name and answered in the clock's words, and a
clock that is gone shown unreachable with its buttons off.

Every wait is on a condition in the page; no test measures time."""

from __future__ import annotations

import json

import pytest

from floor_injector import InjectedFloor
from mqtt_broker import Inbox
from shotclock.core.topics import tournament_topic
from tournament_clock import Clock, latest

WAIT = 30_000  # ms: only bounds a hang
STRUCTURE = """title = "Sunday 250"
[[stage]]
small_blind = 25
big_blind = 50
minutes = 20
[[stage]]
small_blind = 50
big_blind = 100
ante = 100
big_blind_ante = true
minutes = 20
[[stage]]
break = true
name = "dinner"
minutes = 30
[[stage]]
small_blind = 100
big_blind = 200
minutes = 20
"""


@pytest.fixture
def panel(tmp_path, web):
    floor = InjectedFloor(tmp_path / "broker")
    floor.status("1", online=True, name="Tafel 1", room="Main")
    floor.state("1", name="Tafel 1")
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    inbox = Inbox(floor.broker.client("floor"), tournament_topic("test", "main", "#"))
    clock = Clock(floor.broker, tmp_path)
    clock.start("--structure", str(structure), scope=("--room", "Main"))
    latest(inbox)
    page = floor.dashboard(web, "?lang=en#room=Main")
    page.wait_for_function("!document.getElementById('tclock').hidden", timeout=WAIT)
    yield page, clock, inbox
    assert not web.errors, web.errors
    page.context.close()
    clock.kill()
    floor.close()


def text(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => e.textContent")


def wait_text(page, selector: str, expected: str, starts: bool = False) -> None:
    """Until ``selector``'s text is ``expected`` (``starts``: begins with it)."""
    test = "document.querySelector(s).textContent" + (".startsWith(t)" if starts else " === t")
    try:
        page.wait_for_function(f"([s, t]) => {test}", arg=[selector, expected], timeout=WAIT)
    except Exception:
        pytest.fail(f"{selector} says {text(page, selector)!r}, expected {expected!r}{' …' if starts else ''}")


def test_the_floor_runs_the_clock_from_the_dashboard_and_every_command_is_answered(panel):
    page, clock, inbox = panel
    wait_text(page, "#tclock-now", "Sunday 250 · level 1 · 25/50 · 20:00")
    assert text(page, "#tclock-how") == "not started" and page.is_visible("#tclock-start")
    assert text(page, "#tclock-next") == "next: level 2 · 50/100, BB ante 100 · break in 40:00"
    page.click("#tclock-start")
    wait_text(page, "#tclock-answer", "Start: started: level 1, 20:00 left")
    wait_text(page, "#tclock-how", "running")
    page.wait_for_function("document.getElementById('tclock-now').textContent.endsWith('19:59')", timeout=WAIT)
    page.click("#tclock-take")
    wait_text(page, "#tclock-answer", "\u22121 min: adjusted: level 1, 18:", starts=True)
    page.fill("#tclock-level", "9")
    page.click("#tclock-go")
    wait_text(page, "#tclock-answer", "Go to level: not done: the structure has no level 9 (it has 1 to 3)")
    page.fill("#tclock-level", "2")
    page.click("#tclock-go")
    wait_text(page, "#tclock-now", "Sunday 250 · level 2 · 50/100, BB ante 100 · 20:00", starts=True)
    page.click("#tclock-next-stage")  # what cannot be taken back asks first
    wait_text(page, "#tclock-next-stage", "On to break: dinner now? Tap again")
    page.click("#tclock-next-stage")
    wait_text(page, "#tclock-now", "Sunday 250 · break: dinner · 30:00", starts=True)
    page.click("#tclock-pause")
    wait_text(page, "#tclock-how", "paused")
    assert page.is_visible("#tclock-resume") and page.is_hidden("#tclock-pause")
    # Each command reached the clock under the floor login's own name (the topic the ACL let it write).
    by = {json.loads(m.payload)["record"]["by"] for m in list(inbox.messages) if m.topic.endswith("/event")
          and json.loads(m.payload)["record"]["why"] in ("started", "adjusted", "level", "next", "paused")}
    assert by == {"floor-tester"}


def test_a_clock_that_is_gone_is_unreachable_on_the_dashboard_and_takes_no_command(panel):
    page, clock, inbox = panel
    page.click("#tclock-start")
    wait_text(page, "#tclock-how", "running")
    clock.kill()  # its Last Will says offline
    wait_text(page, "#tclock-how", "UNREACHABLE: its last state, not running")
    assert page.evaluate("document.getElementById('tclock').classList.contains('unreachable')")
    assert page.is_disabled("#tclock-pause") and page.is_disabled("#tclock-go")
    shown = text(page, "#tclock-now")
    page.wait_for_timeout(1500)  # (the only pause: that a clock nobody vouches for does not count on)
    assert text(page, "#tclock-now") == shown
