"""The README's picture of the dashboard at 500 tables on a tablet:  .venv/bin/python docs/screens/dashboard_500.py

A real Mosquitto serving the page, and one client publishing 500 tables as their devices would (the fleet
simulator's rooms and sections, 100 clocks running, some paused, faults, offline tables; tests/floor_injector.py),
seen in Debian's chromium (Playwright) at 1024×768 with one room chosen. About 20 s.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from floor_injector import InjectedFloor, populate  # noqa: E402
from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

OUT = ROOT / "docs" / "screens" / "dashboard-500.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("dashboard_500.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        floor = InjectedFloor(Path(tmp) / "broker", venue="demo", floor=("anna",))
        try:
            tables = populate(floor, 500, 100)
            for n in (103, 117, 142):  # paused by the floor, with time left
                floor.running.pop(str(n), None)
                floor.state(str(n), "paused", 14_000 + n * 90, 60, name=tables[str(n)]["name"])
            floor.run_clock("111", 4.5, name=tables["111"]["name"])   # in its countdown at the picture
            floor.start_heartbeats({t: f["name"] for t, f in tables.items()})
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1024, "height": 768}, has_touch=True)
                page.goto(f"{floor.base}/dashboard/?lang=en#room=Room%202")
                page.fill("input[name=user]", "floor-anna")
                page.fill("input[name=password]", floor.passwords["floor-anna"])
                page.click("button[type=submit]")
                page.wait_for_function("document.querySelectorAll('article.table').length === 500", timeout=60000)
                page.wait_for_selector("article.table[data-table='111'].phase-countdown", timeout=60000)
                # Every clock confirmed by its heartbeats (a loaded machine may hold some up for a while).
                page.wait_for_function("Object.values(window.shotclockLink.tables).every(t => "
                                       "Shotclock.phase(t, performance.now()) !== 'quiet')", timeout=60000)
                time.sleep(0.5)
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            floor.close()
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
