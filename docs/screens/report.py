"""Remake the README's picture of the slow-play report:  .venv/bin/python docs/screens/report.py  (make.sh)

A real Mosquitto serving the pages, the real collector answering from a sample archive (tests/report_archive.py:
three tables, two days, nine players), the report page in Debian's chromium (Playwright). About 10 s.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from mqtt_broker import MosquittoBroker  # noqa: E402
from report_archive import sample_archive  # noqa: E402
from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

from shotclock.adapters.archive import Archive  # noqa: E402
from shotclock.floor.collector import Collector  # noqa: E402
from shotclock.web import web_dir  # noqa: E402

OUT = ROOT / "docs" / "screens" / "report.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("report.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = MosquittoBroker(folder / "broker", venue="demo", tables=["1", "2", "7"], pages=web_dir(),
                                 floor=["anna"]).start()
        archive = Archive(sample_archive(folder / "archive", folder))
        collector = Collector(archive, "127.0.0.1", broker.port, "demo", "collector", broker.passwords["collector"])
        collector.start()
        try:
            assert collector.connected.wait(60), "the collector did not connect"
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(f"http://127.0.0.1:{broker.ws_port}/dashboard/?lang=en&venue=demo")
                page.fill("input[name=user]", "floor-anna")
                page.fill("input[name=password]", broker.passwords["floor-anna"])
                page.click("button[type=submit]")
                page.click("#to-report")  # the tab's login goes along
                page.wait_for_selector("#rows tr", timeout=30_000)
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            collector.stop()
            archive.close()
            broker.close()
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
