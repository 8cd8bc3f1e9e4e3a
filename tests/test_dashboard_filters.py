"""The dashboard's filters, search and counts in a real browser (Debian's chromium through Playwright), against
a real Mosquitto serving the page; the tables' messages come from one client speaking for all of them as their
devices would (tests/floor_injector.py), so the tests set exactly the rooms, faults and clocks they check.

Every wait is on a condition in the page; no test measures time.
"""

from __future__ import annotations

import pytest

from floor_injector import InjectedFloor

WAIT = 30_000  # ms: only bounds a hang (a loaded 2-core machine takes seconds for what takes ms)

# id → (name, room, section)
TABLES = {
    "1": ("Tafel 1", "Main", "A"), "2": ("Tafel 2", "Main", "A"), "3": ("Tafel 3", "Main", "B"),
    "12": ("Tafel 12", "Main", "B"), "112": ("Tafel 112", "Salon", "A"), "120": ("Tafel 120", "Salon", "A"),
    "7": ("Feature", "Salon", "B"), "8": ("Tafel 8", "", ""),
}
RUNNING = "3"     # its clock runs the whole module (a long one, kept confirmed)
SILENT = "1"      # its clock runs too, and nothing more is heard of it (a device that sends no heartbeats)
OFFLINE = "120"   # gone: the broker's Last Will
FAULTY = "2"      # online with a fault (no sound)
LINK_FAULT = "12"  # online, its outbox failing (status degraded)
SEATED = "112"    # tracks seats: its players are found by name


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    f = InjectedFloor(tmp_path_factory.mktemp("dashfloor") / "broker")
    for table, (name, room, section) in TABLES.items():
        place = {k: v for k, v in (("room", room), ("section", section)) if v}
        f.status(table, online=table != OFFLINE, name=name, **place,
                 **({"degraded": "outbox: database is locked"} if table == LINK_FAULT else {}))
        if table == RUNNING:
            f.run_clock(table, 600, name=name)
        elif table == SILENT:
            f.state(table, "running", 600_000, 600, name=name, heartbeat_ms=None)
        elif table == SEATED:
            f.state(table, name=name, seats=[
                {"seat": 1, "player": "Anna de Vries", "in_hand": True, "all_in": False, "chips": None, "bank_ms": None},
                {"seat": 2, "player": "Bram", "in_hand": True, "all_in": False, "chips": None, "bank_ms": None}])
        else:
            f.state(table, name=name, faults=[{"kind": "no_sound", "detail": "no audio device"}] if table == FAULTY else [])
    f.start_heartbeats({RUNNING: TABLES[RUNNING][0]})
    yield f
    f.close()


def open_dashboard_of(web, floor, tables: int, hash_: str = "", width: int = 1024, height: int = 768):
    """The dashboard, logged in, once ``tables`` cards are drawn."""
    page = web.page(width, height, has_touch=True)
    page.goto(f"{floor.base}/dashboard/?lang=en{hash_}")
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", floor.passwords["floor-tester"])
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelectorAll('article.table').length === {tables}", timeout=WAIT)
    return page


def open_dashboard(web, floor, hash_: str = "", width: int = 1024, height: int = 768):
    page = open_dashboard_of(web, floor, len(TABLES), hash_, width, height)
    page.wait_for_function(f"Shotclock.phase(window.shotclockLink.tables['test/{RUNNING}'], performance.now())"
                           " === 'running'", timeout=WAIT)
    return page


@pytest.fixture
def dashboard(web, floor):
    page = open_dashboard(web, floor)
    yield page
    page.context.close()


def shown(page) -> list[str]:
    """The tables whose cards are shown, in the page's order."""
    return page.eval_on_selector_all("article.table:not([hidden])", "els => els.map(e => e.dataset.table)")


def wait_shown(page, tables) -> None:
    expected = sorted(tables)
    try:
        page.wait_for_function("want => JSON.stringify([...document.querySelectorAll('article.table:not([hidden])')]"
                               ".map(e => e.dataset.table).sort()) === JSON.stringify(want)", arg=expected,
                               timeout=WAIT)
    except Exception:
        pytest.fail(f"shown {sorted(shown(page))}, expected {expected}")


def count_text(page, what: str) -> str:
    return page.text_content(f"#show-{what}")


def test_every_table_is_counted_online_offline_or_degraded(dashboard):
    dashboard.wait_for_function("document.getElementById('show-all').textContent === 'All 8'", timeout=WAIT)
    # Online: all but the Last Will's; degraded: a fault on the screen, or the link's own (status degraded).
    assert [count_text(dashboard, k) for k in ("all", "online", "offline", "degraded")] == [
        "All 8", "Online 7", "Offline 1", "Degraded 2"]
    assert dashboard.text_content("#shown") == ""  # nothing filtered: nothing to say
    # A chip shows its tables only; a second tap shows every table again.
    dashboard.click("#show-degraded")
    wait_shown(dashboard, [FAULTY, LINK_FAULT])
    assert dashboard.get_attribute("#show-degraded", "aria-pressed") == "true"
    assert dashboard.text_content("#shown") == "2 of 8 shown"
    dashboard.click("#show-offline")
    wait_shown(dashboard, [OFFLINE])
    dashboard.click("#show-offline")
    wait_shown(dashboard, TABLES)


def test_rooms_and_sections_filter_and_the_counts_follow(dashboard):
    assert dashboard.eval_on_selector_all("#room option", "os => os.map(o => o.textContent)") == [
        "All rooms", "Main", "Salon"]
    dashboard.select_option("#room", "Salon")
    wait_shown(dashboard, ["112", "120", "7"])
    # A room's sections only, and its counts: the offline table is still filed under its room (its Last Will
    # says where it stands).
    assert dashboard.eval_on_selector_all("#section option", "os => os.map(o => o.value)") == ["", "A", "B"]
    dashboard.wait_for_function("document.getElementById('show-all').textContent === 'All 3'", timeout=WAIT)
    assert count_text(dashboard, "offline") == "Offline 1"
    dashboard.select_option("#section", "A")
    wait_shown(dashboard, ["112", "120"])
    assert dashboard.get_attribute(f"article.table[data-table='112']", "hidden") is None
    assert dashboard.text_content("article.table[data-table='112'] .place") == "Salon · A"
    # Another room: the section belonged to the first one, so it is cleared.
    dashboard.select_option("#room", "Main")
    wait_shown(dashboard, ["1", "2", "3", "12"])
    assert dashboard.input_value("#section") == ""
    dashboard.click("#clear-filters")
    wait_shown(dashboard, TABLES)


def test_search_finds_a_table_by_id_name_or_player(dashboard):
    search = dashboard.locator("#search")
    # "/" finds the box from anywhere on the page (a keyboard at the floor desk).
    dashboard.keyboard.press("/")
    assert dashboard.evaluate("document.activeElement.id") == "search"
    dashboard.keyboard.type("12")
    # A word typed starts a word of the table's: 12 and 120, not 112.
    wait_shown(dashboard, ["12", "120"])
    search.fill("feat")
    wait_shown(dashboard, ["7"])
    search.fill("anna")   # a player at a table that tracks seats
    wait_shown(dashboard, [SEATED])
    search.fill("tafel 1")
    wait_shown(dashboard, ["1", "12", "112", "120"])
    search.fill("nobody")
    wait_shown(dashboard, [])
    assert dashboard.is_visible("#no-match")
    search.press("Escape")  # clears it
    wait_shown(dashboard, TABLES)
    assert not dashboard.is_visible("#no-match")


def test_filters_survive_a_reload_and_a_link(dashboard, web, floor):
    dashboard.select_option("#room", "Main")
    dashboard.click("#show-degraded")
    dashboard.fill("#search", "tafel")
    wait_shown(dashboard, [FAULTY, LINK_FAULT])
    assert dashboard.evaluate("location.hash") == "#room=Main&q=tafel&show=degraded"
    dashboard.reload()
    # The login is kept for the tab (sessionStorage): the page comes back with its filters.
    dashboard.wait_for_function(f"document.querySelectorAll('article.table').length === {len(TABLES)}", timeout=WAIT)
    wait_shown(dashboard, [FAULTY, LINK_FAULT])
    assert dashboard.input_value("#room") == "Main" and dashboard.input_value("#search") == "tafel"
    assert dashboard.get_attribute("#show-degraded", "aria-pressed") == "true"
    # The same address on another tablet shows the same tables.
    other = open_dashboard(web, floor, "#room=Salon&section=B", 768, 1024)
    wait_shown(other, ["7"])
    assert other.input_value("#section") == "B"
    other.context.close()


def test_a_hidden_tables_clock_counts_on_and_is_right_when_shown_again(dashboard):
    # A clock no message touches while its card is hidden: nothing but the page's own count can put it right.
    card = f"article.table[data-table='{SILENT}']"
    table = f"window.shotclockLink.tables['test/{SILENT}']"
    before = int(dashboard.text_content(f"{card} .secs"))
    dashboard.select_option("#room", "Salon")
    wait_shown(dashboard, ["112", "120", "7"])
    hidden_text = dashboard.text_content(f"{card} .secs")
    # Hidden, the card is left alone; the clock counts on in the page's record of the table.
    dashboard.wait_for_function(f"Math.ceil(Shotclock.remainingMs({table}, performance.now()) / 1000) <= {before} - 2",
                                timeout=WAIT)
    # Shown again: from the first frame it is painted in, it shows the clock's time now, never the time it
    # had when it was hidden. Read in that frame, after the page's own drawing (its frame callback was asked
    # for first): what is painted.
    shown_now = dashboard.evaluate(f"""() => new Promise(done => {{
        const room = document.getElementById('room');
        room.value = '';
        room.dispatchEvent(new Event('change'));
        requestAnimationFrame(() => {{
          const secs = Number(document.querySelector("{card} .secs").textContent);
          done([secs, Shotclock.shownSeconds(Shotclock.remainingMs({table}, performance.now()))]);
        }});
      }})""")
    assert shown_now[0] <= int(hidden_text) - 2, (hidden_text, shown_now)
    # The count and the record agree to the second (the frame may have begun just before a second turned).
    assert shown_now[1] <= shown_now[0] <= shown_now[1] + 1, shown_now


def test_the_counts_and_filters_speak_dutch(web, floor):
    page = web.page(1024, 768)
    page.goto(f"{floor.base}/dashboard/?lang=nl#show=degraded")
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", floor.passwords["floor-tester"])
    page.click("button[type=submit]")
    page.wait_for_function("document.getElementById('show-degraded').textContent === 'Storing 2'", timeout=WAIT)
    assert page.text_content("#shown") == "2 van 8 getoond"
    assert page.get_attribute("#search", "placeholder") == "Zoek tafel of speler"
    page.context.close()


def test_a_room_a_table_cannot_have_is_not_offered(web, tmp_path):
    """A table's credential may write its own status: a room or section no device could send (too long, not a
    text) is not offered as a filter; the table still shows, under no room."""
    f = InjectedFloor(tmp_path / "broker")
    try:
        f.status("1", name="Tafel 1", room="Zaal 1", section="A")
        f.status("2", name="Tafel 2", room="x" * 5000, section={"nested": ["a"]})
        f.status("3", name="Tafel 3", room=17, section="B" * 33)
        for table in ("1", "2", "3"):
            f.state(table, name=f"Tafel {table}")
        page = open_dashboard_of(web, f, 3)
        options = lambda sel: page.eval_on_selector_all(f"#{sel} option", "os => os.map(o => o.value)")
        assert options("room") == ["", "Zaal 1"]
        assert options("section") == ["", "A"]
        assert page.text_content("article.table[data-table='2'] .place") == ""
        page.context.close()
    finally:
        f.close()
