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


class _Broker:
    """What network_config() needs to know about the demo's broker."""

    def __init__(self, floor: Floor):
        self.port, self.venue = floor.port, floor.venue
        self.folder = floor.folder / "broker"

    def credentials_file(self, user: str) -> Path:
        return self.folder / "credentials" / f"{user}.toml"


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("floor.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        floor = Floor(folder, "demo", TABLES, extra_tables=[DEAD], quiet=True).start()
        config = folder / "dead.toml"
        config.write_text(network_config(_Broker(floor), DEAD))
        dead = subprocess.Popen([sys.executable, "-m", "shotclock", "run", "--pins", "mock", "--headless",
                                 "--config", str(config), "--state-dir", str(folder / "dead-state")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                shoot(browser, floor, dead)
                browser.close()
        finally:
            if dead.poll() is None:
                dead.kill()
            floor.stop()
    print(f"wrote {OUT}/dashboard.png, dashboard-phone.png, overlay.png", file=sys.stderr)
    return 0


def shoot(browser, floor: Floor, dead: subprocess.Popen) -> None:
    base = f"http://127.0.0.1:{floor.ws_port}"
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.goto(base + "/dashboard/?lang=nl")
    page.fill("input[name=password]", floor.passwords["floor"])
    page.fill("input[name=who]", "anna")
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelectorAll('article.table').length === {TABLES + 1}", timeout=15000)

    def click(table: str, what: str) -> None:
        page.click(f"article.table[data-table='{table}'] button[data-cmd={what}]")

    # Times are chosen so that at the moment of the picture (about 34 s) every state is on screen at once.
    link = "window.shotclockLink"
    page.evaluate(f"{link}.command({link}.tables['demo/4'], 'bet', {{facing_bet: true}})")
    click("4", "call")                       # no action facing a bet: HAND DOOD at 30.5 s
    time.sleep(7)
    click("1", "call")                       # in the red countdown at the picture
    page.click("article.table[data-table='1'] button.feature")
    time.sleep(13)
    click("2", "call")                       # running, about 16 s left
    time.sleep(5)
    click("3", "call")
    time.sleep(2)
    click("3", "pause")                      # paused with 28 s left
    dead.send_signal(signal.SIGKILL)         # offline within the Last Will's 7.5 s
    time.sleep(7.5)
    page.screenshot(path=str(OUT / "dashboard.png"))

    overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
    frame = (OUT / "sample-frame.html").as_uri()
    overlay_url = f"{base}/overlay/?password={floor.passwords['overlay']}"
    overlay.goto(f"{frame}?overlay={overlay_url.replace('&', '%26')}")
    overlay.frame_locator("#overlay").locator("#graphic:not(.hidden)").wait_for(timeout=5000)
    time.sleep(0.5)  # the graphic's fade-in
    overlay.screenshot(path=str(OUT / "overlay.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    time.sleep(0.3)
    page.screenshot(path=str(OUT / "dashboard-phone.png"))


if __name__ == "__main__":
    sys.exit(main())
