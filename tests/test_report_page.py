"""The slow-play report page in a real browser (Debian's chromium through Playwright), served by a real Mosquitto,
answered by the real collector from a real archive: the numbers the CLI prints, sortable, filtered by day and
table, opened from the dashboard."""

from __future__ import annotations

import json

import pytest

from mqtt_broker import MosquittoBroker
from report_archive import sample_archive
from shotclock.cli import main
from shotclock.web import web_dir

WAIT = 30_000  # ms: only bounds a hang


@pytest.fixture(scope="module")
def floor(tmp_path_factory, web):
    from test_collector import start_collector

    folder = tmp_path_factory.mktemp("report")
    broker = MosquittoBroker(folder / "broker", venue="test", tables=["1", "2", "7"], pages=web_dir(),
                             floor=["tester"]).start()
    archive_dir = folder / "archive"
    sample_archive(archive_dir, folder)
    archive, collector = start_collector(broker, archive_dir)
    broker.archive_dir = archive_dir
    yield broker
    collector.stop()
    archive.close()
    broker.close()


def cli_report(capsys, broker, *argv) -> dict:
    capsys.readouterr()
    assert main(["floor", "report", "--archive", str(broker.archive_dir), "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def log_in(page, broker):
    """Log in on the dashboard: the report page takes the tab's login."""
    page.goto(f"http://127.0.0.1:{broker.ws_port}/dashboard/?lang=en&venue=test")
    page.fill("input[name=user]", "floor-tester")
    page.fill("input[name=password]", broker.passwords["floor-tester"])
    page.click("button[type=submit]")
    page.wait_for_selector("#to-report", state="visible", timeout=WAIT)


def open_report(page, broker):
    log_in(page, broker)
    page.goto(f"http://127.0.0.1:{broker.ws_port}/report/index.html?lang=en&venue=test")


def shown(page) -> list[dict]:
    """The report's rows as the page shows them: column → text."""
    return page.eval_on_selector_all("#rows tr", "trs => trs.map(tr => Object.fromEntries("
                                                 "[...tr.cells].map(td => [td.dataset.column, td.textContent])))")


def seconds(value) -> str:
    return "–" if value is None else f"{value:.1f} s"


def test_the_report_shows_the_clis_numbers_and_sorts_by_any_column(floor, web, capsys):
    page = web.page(1280, 900)
    open_report(page, floor)
    want = cli_report(capsys, floor)["players"]
    page.wait_for_function(f"document.querySelectorAll('#rows tr').length === {len(want)}", timeout=WAIT)
    rows = shown(page)
    assert [r["player"] for r in rows] == [p["player"] for p in want]  # the longest median first, as the CLI
    for row, p in zip(rows, want):
        assert (row["tables"], row["decisions"], row["median_s"], row["p95_s"], row["max_s"]) == (
            p["tables"], str(p["decisions"]), seconds(p["median_s"]), seconds(p["p95_s"]), seconds(p["max_s"]))
        assert (row["extensions"], row["rulings_against"], row["hands_dead"], row["checks"]) == tuple(
            str(p[c]) for c in ("extensions", "rulings_against", "hands_dead", "checks"))
    page.click("th[data-column=decisions] button")
    by_decisions = [int(r["decisions"]) for r in shown(page)]
    assert by_decisions == sorted(by_decisions, reverse=True) and len(set(by_decisions)) > 1
    assert page.get_attribute("th[data-column=decisions]", "aria-sort") == "descending"
    page.click("th[data-column=decisions] button")  # again: the other way round
    assert [int(r["decisions"]) for r in shown(page)] == sorted(by_decisions)
    page.click("th[data-column=player] button")
    assert [r["player"] for r in shown(page)] == sorted(p["player"] for p in want)
    assert "sort=player" in page.evaluate("location.hash")
    page.context.close()


def test_the_day_and_table_filters_ask_the_archive_again(floor, web, capsys):
    page = web.page(1280, 900)
    open_report(page, floor)
    page.wait_for_selector("#rows tr", timeout=WAIT)
    assert page.eval_on_selector_all("#day option", "os => os.map(o => o.value)") == ["", *cli_report(
        capsys, floor)["days"]]
    day = cli_report(capsys, floor)["days"][-1]
    want = cli_report(capsys, floor, "--day", day, "--table", "7")["players"]
    on_day = cli_report(capsys, floor, "--day", day)["players"]
    page.select_option("#day", day)
    page.wait_for_function(f"document.querySelectorAll('#rows tr').length === {len(on_day)} && "
                           f"document.querySelector('#rows td[data-column=decisions]').textContent === "
                           f"'{on_day[0]['decisions']}'", timeout=WAIT)
    page.select_option("#table", "7")
    page.wait_for_function(f"[...document.querySelectorAll('#rows td[data-column=tables]')]"
                           f".every(td => td.textContent === '7') && "
                           f"document.querySelectorAll('#rows tr').length === {len(want)}", timeout=WAIT)
    assert [(r["player"], r["decisions"]) for r in shown(page)] == [(p["player"], str(p["decisions"])) for p in want]
    assert f"day={day}" in page.evaluate("location.hash") and "table=7" in page.evaluate("location.hash")
    page.reload()  # the filters stay (the hash), the login too (the tab's session)
    page.wait_for_function(f"document.querySelectorAll('#rows tr').length === {len(want)}", timeout=WAIT)
    assert page.input_value("#table") == "7"
    page.context.close()


def test_the_level_filter_asks_for_the_clocks_started_at_that_level(floor, web, capsys):
    page = web.page(1280, 900)
    open_report(page, floor)
    page.wait_for_selector("#rows tr", timeout=WAIT)
    levels = cli_report(capsys, floor)["levels"]
    assert levels == list(range(1, 9))
    assert page.eval_on_selector_all("#level option", "os => os.map(o => o.value)") == ["", *map(str, levels)]
    want = cli_report(capsys, floor, "--level", "6")["players"]
    page.select_option("#level", "6")
    page.wait_for_function(f"document.querySelectorAll('#rows tr').length === {len(want)} && "
                           f"document.querySelector('#rows td[data-column=decisions]').textContent === "
                           f"'{want[0]['decisions']}'", timeout=WAIT)
    assert [(r["player"], r["decisions"], r["median_s"]) for r in shown(page)] == [
        (p["player"], str(p["decisions"]), seconds(p["median_s"])) for p in want]
    assert sum(p["decisions"] for p in want) == 30  # ten hands a table at level 6, three tables
    assert "level=6" in page.evaluate("location.hash")
    page.context.close()


def test_the_floor_opens_the_report_from_the_dashboard(floor, web):
    page = web.page(1280, 900)
    page.goto(f"http://127.0.0.1:{floor.ws_port}/report/index.html?lang=en&venue=test")
    page.wait_for_selector("#login", state="visible", timeout=WAIT)  # no login in this tab yet: the dashboard's
    assert page.text_content("#login").startswith("Log in on the floor dashboard first")
    assert page.is_hidden("#main") and page.is_hidden("#filters")
    page.click("#to-login")
    page.wait_for_selector("input[name=user]", timeout=WAIT)
    assert "venue=test" in page.url
    log_in(page, floor)
    page.click("#to-report")
    page.wait_for_selector("#rows tr", timeout=WAIT)  # no second login: the tab's session
    assert page.text_content("h1") == "Shotclock Slow play" and "venue=test" in page.url
    assert "Marks: the warnings and own clocks the floor gave a player" in page.text_content(".notes")
    assert [page.text_content(f"th[data-column={c}]") for c in ("warnings", "clock_marks", "marks")] == [
        "Warnings", "Own clock", "Marks"]
    assert not web.errors, web.errors
    page.context.close()


def test_only_the_latest_questions_answer_is_drawn(floor, web):
    """The floor changes a filter while the archive still works out the last one: the later answer wins, whichever
    arrives first."""
    page = web.page(1280, 900)
    open_report(page, floor)
    page.wait_for_selector("#rows tr", timeout=WAIT)
    page.evaluate("""() => {
        const link = window.shotclockLink, real = link.ask.bind(link);
        window.held = [];
        link.ask = (venue, question, timeout) => new Promise(resolve =>
            window.held.push(() => real(venue, question, timeout).then(resolve)));
    }""")
    page.select_option("#table", "1")
    page.select_option("#table", "7")
    page.wait_for_function("window.held.length === 2", timeout=WAIT)
    page.evaluate("window.held[1]()")  # table 7's answer first,
    page.wait_for_function("[...document.querySelectorAll('#rows td[data-column=tables]')]"
                           ".every(td => td.textContent === '7')", timeout=WAIT)
    # then table 1's, late: the collector's answer is in, and the page has handled it
    page.evaluate("async () => { await window.held[0](); await new Promise(r => setTimeout(r, 50)); }")
    tables = page.eval_on_selector_all("#rows td[data-column=tables]", "tds => tds.map(td => td.textContent)")
    assert tables and set(tables) == {"7"} and page.input_value("#table") == "7"
    page.context.close()


def test_an_archive_that_does_not_answer_is_said_and_the_last_report_keeps_its_time(floor, web):
    page = web.page(1280, 900)
    open_report(page, floor)
    page.wait_for_selector("#rows tr", timeout=WAIT)
    as_of = page.text_content("#as-of")
    page.evaluate("window.shotclockLink.ask = () => Promise.resolve({ok: false, reason: 'no answer'})")
    page.click("#refresh")
    page.wait_for_selector("#status.problem", timeout=WAIT)
    assert page.text_content("#status") == ("The archive does not answer: is 'shotclock floor collect' running for "
                                            "this venue?")
    assert page.text_content("#as-of") == as_of and as_of.startswith("as of ")
    page.evaluate("window.shotclockLink.ask = () => Promise.resolve({ok: false, reason: 'no table \\'9\\''})")
    page.click("#refresh")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('The archive refused')",
                           timeout=WAIT)
    assert page.text_content("#status") == "The archive refused: no table '9'"
    page.context.close()
