"""Remake the README's picture of the room's screen:  .venv/bin/python docs/screens/room_screen.py
(sh docs/screens/make.sh)

A real broker serving the pages and the real tournament clock's process (tests/tournament_clock.py) on a short
structure, started, with the players typed; the room's screen (web/tournament) in Debian's chromium (Playwright) at
1920×1080, as a room's TV shows it, in English. About 15 s.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from floor_injector import InjectedFloor  # noqa: E402
from web_browser import CHROMIUM_ARGS, chromium_path  # noqa: E402

OUT = ROOT / "docs" / "screens" / "tournament-room.png"
STRUCTURE = """title = "Sunday Main Event"
[[stage]]
small_blind = 2000
big_blind = 4000
ante = 4000
big_blind_ante = true
minutes = 40
[[stage]]
break = true
name = "dinner"
minutes = 60
[[stage]]
small_blind = 3000
big_blind = 6000
ante = 6000
big_blind_ante = true
minutes = 40
"""


def main() -> int:
    from playwright.sync_api import sync_playwright

    if chromium_path() is None:
        print("room_screen.py: Debian's chromium is needed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        floor = InjectedFloor(Path(tmp) / "broker")
        structure = Path(tmp) / "structure.toml"
        structure.write_text(STRUCTURE)
        login = ["--broker", f"127.0.0.1:{floor.broker.port}", "--venue", "test", "--credentials",
                 str(floor.broker.credentials_file("floor")), "--id", "main"]
        me = [sys.executable, "-m", "shotclock", "tournament"]
        clock = subprocess.Popen(me + ["run", *login, "--journal", str(Path(tmp) / "j"), "--structure", str(structure)],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            clock.stdout.readline()  # "tournament main: running …"
            for action in (["start"], ["take", "1466"], ["players", "187"]):
                subprocess.run(me + [action[0], *login, *action[1:]], check=True, capture_output=True)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1920, "height": 1080})
                page.goto(f"{floor.base}/tournament/?password={floor.passwords['overlay']}&language=en")
                page.wait_for_function("document.getElementById('players').textContent !== ''", timeout=30_000)
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            clock.kill()
            floor.close()
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
