"""A delayed overlay that is reloaded (a browser source refreshed, OBS restarted) shows at once what it showed: its
history comes from the collector's archive. In Debian's chromium, against a real Mosquitto serving the pages, a
real collector and a real table device (fake pins, its real link).

Two pages follow the same table on the same delay; one is reloaded. The other, never reloaded, shows what the
reloaded one would have shown: frame by frame, each page records the moment it drew (the device's clock: the
delayed moment less the page's offset for the device's boot) and what it drew; at every moment both drew, the
reloaded page must have drawn what the other did, to the frame.
"""

from __future__ import annotations

import bisect
import json
import time
import uuid

import pytest

from helpers import wait_until
from mqtt_broker import MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.adapters.archive import Archive
from shotclock.core.topics import table_topic
from shotclock.floor.collector import Collector
from shotclock.web import web_dir

WAIT = 30_000   # ms: only bounds a hang (a loaded 2-core machine takes seconds for what takes ms)
DELAY_S = 10

# Each frame: what the overlay drew last (the moment it drew on the device's clock, and what a viewer saw).
RECORDER = """
window.frames = [];
(function record() {
  requestAnimationFrame(() => {
    const o = window.shotclockOverlay;
    if (o && o.device_ms !== null) {
      const g = document.getElementById("graphic"), text = c => g.querySelector("." + c).textContent;
      window.frames.push({device_ms: o.device_ms, visible: o.visible, phase: o.phase, ruling: o.ruling,
                          remaining: o.remaining_ms, secs: text("secs"), state: text("state"), words: text("words"),
                          detail: text("detail"), name: text("name"), notice: o.notice, real: performance.now()});
    }
    record();
  });
})();
"""


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = MosquittoBroker(tmp_path_factory.mktemp("broker"), tables=["1"], pages=web_dir()).start()
    yield b
    b.close()


def overlay_url(broker, **params) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"password": broker.passwords["overlay"], **params}.items())
    return f"http://127.0.0.1:{broker.ws_port}/overlay/?{query}"


def command(floor, name: str) -> None:
    body = {"id": uuid.uuid4().hex, "name": name, "sender": "floor", "sent_ms": round(time.time() * 1000)}
    floor.publish(table_topic("test", "1", "cmd"), json.dumps(body), qos=1).wait_for_publish(10)


CLOCK_ON = ("running", "countdown", "paused", "interrupted")


def drawn(frame: dict) -> tuple:
    """What a frame shows a viewer: nothing, the clock (its digits, its line, whose it is) or the ruling."""
    if not frame["visible"]:
        return ("nothing",)
    if frame["phase"] in CLOCK_ON:
        return "clock", frame["phase"], frame["secs"], frame["state"], frame["name"]
    return "ruling", frame["ruling"], frame["words"], frame["detail"], frame["name"]


def at_device(frame: dict) -> float:
    return frame["device_ms"]


def test_a_reloaded_delayed_overlay_shows_at_once_what_it_showed(broker, web, tmp_path):
    started = time.monotonic()
    archive = Archive(tmp_path / "archive")
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector", broker.passwords["collector"])
    collector.start()
    assert collector.connected.wait(60)
    device = RunningDevice(network_config(broker, table="1", extra="[clock]\nseconds = 120\n"), tmp_path / "dev")
    floor = broker.client("floor")
    pages = {}
    try:
        wait_until(lambda: device.link.status.connected, 30, what="the device on the broker")
        for name in ("kept", "reloaded"):
            pages[name] = web.page(1280, 720)
            pages[name].add_init_script(RECORDER)
            pages[name].goto(overlay_url(broker, table="1", delay=DELAY_S, language="en"))
        for page in pages.values():
            page.wait_for_function("window.shotclockLink.connection === 'online'", timeout=WAIT)
        t0 = time.monotonic()

        def at(seconds: float) -> None:  # on the test's clock, from t0
            time.sleep(max(0.0, t0 + seconds - time.monotonic()))

        # The device's clock: a call, a pause and a resume, the player's action (a ruling), a new call; all within
        # the delay before the reload, so the reloaded page must draw each from the archive's history.
        at(1)
        command(floor, "call")
        at(5)
        command(floor, "pause")
        at(7)
        command(floor, "resume")
        at(9)
        device.tap("action")
        at(10.5)
        command(floor, "call")
        at(12)
        reload_at = pages["kept"].evaluate("performance.now()")
        pages["reloaded"].reload()
        pages["reloaded"].wait_for_function("window.shotclockLink.connection === 'online'", timeout=WAIT)
        at(12 + DELAY_S + 1)
        kept = [f for f in pages["kept"].evaluate("window.frames") if f["real"] > reload_at - 5000]
        reloaded = pages["reloaded"].evaluate("window.frames")
        archive_state = pages["reloaded"].evaluate("window.shotclockOverlay.archive")
    finally:
        for page in pages.values():
            page.context.close()
        device.stop()
        collector.stop()
        archive.close()
    assert not any("Building" in (f["notice"] or "") for f in reloaded), "the reloaded page built its delay again"
    assert archive_state == {"state": "done", "covered": DELAY_S}, archive_state
    times = [at_device(f) for f in kept]
    compared, worst, seen = 0, 0.0, set()
    for frame in reloaded:
        x = at_device(frame)
        i = bisect.bisect_left(times, x)
        if i == 0 or i == len(times):
            continue
        before, after = kept[i - 1], kept[i]
        assert drawn(frame) in (drawn(before), drawn(after)), (x, frame, before, after)
        if frame["phase"] == before["phase"] == after["phase"] == "running":
            # The count between the two frames the kept page drew around that moment, on the device's clock.
            span = at_device(after) - at_device(before)
            want = before["remaining"] + (after["remaining"] - before["remaining"]) * (x - at_device(before)) / span
            worst = max(worst, abs(frame["remaining"] - want))
        compared += 1
        seen.add(frame["phase"] if not frame["ruling"] else frame["ruling"])
    first = min((f["real"] for f in reloaded if f["visible"]), default=None)  # its clock starts at the reload
    print(f"\nreloaded overlay: {compared} frames compared, count within {worst:.1f} ms, first drawn "
          f"{first:.0f} ms after the reload; the test took {time.monotonic() - started:.1f} s")
    assert compared > 200 and {"running", "paused", "acted"} <= seen, (compared, seen)
    assert worst < 17, worst  # within a frame at 60 Hz
