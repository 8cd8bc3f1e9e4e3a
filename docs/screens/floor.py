"""Remake the README's pictures of the floor pages:  .venv/bin/python docs/screens/floor.py  (sh docs/screens/make.sh)

A real floor on this machine (``shotclock floor-demo``'s broker with the pages, collector and fleet) plus one
real device that is killed, steered from the dashboard in Debian's chromium (Playwright) into several states
at once: a countdown, a running clock, a paused one, a fresh ruling, an offline table. About 45 s.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from network_device import network_config  # noqa: E402
from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

from shotclock.floor.demo import Floor  # noqa: E402

OUT = ROOT / "docs" / "screens"
TABLES = 6
DEAD = "7"  # a real device, killed: the broker's Last Will shows it offline


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("floor.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        floor = Floor(folder, "demo", TABLES, extra_tables=[DEAD], quiet=True).start()
        dead = floor.start_device(DEAD, network_config(floor, DEAD))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                shoot(browser, floor, dead)
                browser.close()
        finally:
            floor.stop()
    print(f"wrote {OUT}/dashboard.png, dashboard-phone.png, overlay.png, overlay-delay.png", file=sys.stderr)
    return 0


def login(browser, base: str, password: str, width: int, height: int):
    """A dashboard page, logged in as the floor, once every table is on it."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(base + "/dashboard/?lang=nl")
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelectorAll('article.table').length === {TABLES + 1}", timeout=15000)
    return page


def shoot(browser, floor: Floor, dead: subprocess.Popen) -> None:
    base = f"http://127.0.0.1:{floor.ws_port}"
    page = login(browser, base, floor.passwords["floor"], 1280, 860)
    phone = login(browser, base, floor.passwords["floor"], 390, 844)

    def click(table: str, what: str) -> None:
        page.click(f"article.table[data-table='{table}'] button[data-cmd={what}]")

    # Times are chosen so that at the moment of the pictures (about 34 s) every state is on screen at once.
    link = "window.shotclockLink"
    start = time.monotonic()
    at = lambda t: time.sleep(max(0.0, start + t - time.monotonic()))  # noqa: E731
    page.evaluate(f"{link}.command({link}.tables['demo/4'], 'bet', {{facing_bet: true}})")
    click("4", "call")                       # no action facing a bet: HAND DOOD at 30.5 s
    at(7)
    page.evaluate(f"{link}.command({link}.tables['demo/1'], 'bet', {{facing_bet: true}})")
    click("1", "call")                       # in the red countdown at the picture, on the stream
    page.click("article.table[data-table='1'] button.feature")
    at(20)
    click("2", "call")                       # running, about 16 s left
    at(25)
    click("3", "call")
    at(27)
    click("3", "pause")                      # paused with 28 s left
    dead.send_signal(signal.SIGKILL)         # offline within the Last Will's 3 s (keep-alive 2 s)
    overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
    frame = (OUT / "sample-frame.html").as_uri()
    overlay_url = f"{base}/overlay/?password={floor.passwords['overlay']}"
    overlay.goto(f"{frame}?overlay={overlay_url.replace('&', '%26')}")
    overlay.frame_locator("#overlay").locator("#graphic:not(.hidden)").wait_for(timeout=5000)
    at(33.6)
    page.screenshot(path=str(OUT / "dashboard.png"))
    overlay.screenshot(path=str(OUT / "overlay.png"))
    phone.screenshot(path=str(OUT / "dashboard-phone.png"))
    # On a 30-minute delay, just opened: the collector's archive holds only the demo's half minute, so it shows no
    # clock, says what the archive had and how long until it has heard the rest (a reload later shows at once).
    delayed = browser.new_page(viewport={"width": 1920, "height": 1080})
    delayed.goto(f"{frame}?overlay={(overlay_url + '&delay=1800&language=en').replace('&', '%26')}")
    delayed.frame_locator("#overlay").locator("#notice:has-text('Building')").wait_for(timeout=10000)
    delayed.wait_for_timeout(500)
    delayed.screenshot(path=str(OUT / "overlay-delay.png"))


if __name__ == "__main__":
    sys.exit(main())
