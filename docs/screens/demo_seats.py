"""Remake the README's picture of the floor demo's feature table:  .venv/bin/python docs/screens/demo_seats.py

What ``./dev floor`` starts (a broker with the pages, the collector, simulated tables and the feature table: a
real seat-tracked device in time bank mode with six named players, its dealer playing a hand), the dashboard
in Debian's chromium (Playwright) with the feature table's Seats panel open, while a player's bank runs.
About 60 s.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

from shotclock.floor.demo import Floor  # noqa: E402

OUT = ROOT / "docs" / "screens"
TABLES = 2


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("demo_seats.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        floor = Floor(Path(tmp), "demo", TABLES, shot=1, feature=True)
        floor.start()
        started = time.monotonic()  # within a second or two of the feature table's script starting
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"http://127.0.0.1:{floor.ws_port}/dashboard/?lang=en")
                page.fill("input[name=password]", floor.passwords["floor"])
                page.click("button[type=submit]")
                card = f"article.table[data-table='{floor.feature}']"
                page.wait_for_selector(card, timeout=30000)
                page.locator(f"{card} details.seat-panel summary").click()
                # The dealer's script: a hand at 0.5 s, seat 4's clock from 6 s; seats 4 and 5 act, seat 6's
                # clock starts at 28 s and she takes 38 s: her base (30 s) is up at 58 s and her own bank runs.
                time.sleep(max(0.0, started + 61 - time.monotonic()))
                page.locator(card).scroll_into_view_if_needed()
                page.screenshot(path=str(OUT / "demo-seats.png"))
                browser.close()
        finally:
            floor.stop()
    print(f"wrote {OUT}/demo-seats.png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
