"""Remake the README's picture of the dashboard in hand-for-hand:  .venv/bin/python docs/screens/tournament.py
(sh docs/screens/make.sh)

A real broker serving the pages, and one client publishing eight tables' states as their devices would
(tests/floor_injector.py): the Main room in hand-for-hand, two tables still playing their hand, one gone offline,
the rest done and waiting for the floor; two have the bubble rule set waiting for their next hand. The dashboard,
in Debian's chromium (Playwright), filtered to the room. About 10 s.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from floor_injector import InjectedFloor  # noqa: E402
from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

OUT = ROOT / "docs" / "screens" / "dashboard-tournament.png"
PLAYING, OFFLINE = ("3", "7"), "5"


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("tournament.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        floor = InjectedFloor(Path(tmp) / "broker")
        try:
            for n in range(1, 9):
                table, name = str(n), f"Tafel {n}"
                floor.status(table, online=table != OFFLINE, name=name, room="Main", rule_sets=["bubble"])
                h4h = {"waiting": table not in PLAYING, "hands": 4, "minutes": 2, "time_off_s": 480}
                rules = {"rule_set": {"name": "", "next": "bubble"}} if n in (2, 4) else {}
                floor.state(table, name=name, hand_for_hand=h4h, **rules)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(floor.base + "/dashboard/?lang=nl#room=Main")
                page.fill("input[name=user]", "floor-tester")
                page.fill("input[name=password]", floor.passwords["floor-tester"])
                page.click("button[type=submit]")
                page.wait_for_function("document.getElementById('h4h-counts').textContent.startsWith('spelen: 2')",
                                       timeout=30000)
                page.wait_for_function("document.querySelectorAll('article.table .tour:not(:empty)').length >= 7",
                                       timeout=30000)
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            floor.close()
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
