"""Remake the README's picture of the broadcast overlay with seat tracking:  .venv/bin/python docs/screens/seats_overlay.py

A real broker with the pages and one real seat-aware device (time bank mode) playing a script: the floor names
the player with ``shotclock send``, the dealer deals a hand and starts her clock; at the picture her base time is
up and her own bank runs. The overlay (Debian's chromium, Playwright) shows her name, seat, seconds and bank. About 50 s.
"""

from __future__ import annotations

import json
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
TABLE = "9"
CONFIG = ('[shot]\npreflop = 20\n[seats]\ntrack = true\ncount = 6\nbank = 90\n[device]\nhold = 0.5\n'
          'label = "Tempo"\n')
# Button 1, blinds 2 and 3: seat 4 acts first. The last press keeps the device on the air past the picture.
SCRIPT = [{"t": 8.0, "button": "street", "hold": 0.8}, {"t": 10.0, "button": "action", "hold": 0.1},
          {"t": 90.0, "button": "bet", "hold": 0.1}]


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("seats_overlay.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        floor = Floor(folder, "demo", 1, extra_tables=[TABLE], quiet=True).start(collector=False, fleet=False)
        config = folder / "device.toml"
        config.write_text(network_config(floor, TABLE, mode="shot", extra=CONFIG).replace(
            'label = "Tempo"\n', ""), encoding="utf-8")
        script = folder / "script.jsonl"
        script.write_text("\n".join(json.dumps(p) for p in SCRIPT) + "\n")
        floor._spawn("device", [sys.executable, "-m", "shotclock", "run", "--pins", "mock", "--headless",
                                "--config", str(config), "--state-dir", str(folder / "state"),
                                "--script", str(script), "--report", str(folder / "report.jsonl")])
        start = time.monotonic()
        try:
            send = [sys.executable, "-m", "shotclock", "send", "--broker", f"127.0.0.1:{floor.port}", "--venue",
                    "demo", "--credentials", str(floor.credentials_file("floor")), "--table", TABLE,
                    "seat", "--seat", "4", "--player", "Ana Costa"]
            while subprocess.run(send, capture_output=True).returncode != 0:  # until the device is on the air
                if time.monotonic() - start > 7:
                    raise SystemExit("seats_overlay.py: the device did not answer")
                time.sleep(0.3)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
                frame = (OUT / "sample-frame.html").as_uri()
                url = f"http://127.0.0.1:{floor.ws_port}/overlay/?password={floor.passwords['overlay']}%26table={TABLE}"
                overlay.goto(f"{frame}?overlay={url}")
                overlay.frame_locator("#overlay").locator("#graphic:not(.hidden)").wait_for(timeout=20000)
                time.sleep(max(0.0, start + 44.6 - time.monotonic()))  # base 20 s up at 30 s: the bank runs
                overlay.screenshot(path=str(OUT / "seats-overlay.png"))
                browser.close()
        finally:
            floor.stop()
    print(f"wrote {OUT}/seats-overlay.png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
