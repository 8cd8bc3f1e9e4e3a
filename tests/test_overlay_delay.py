"""The broadcast overlay on a delay (``delay=SECONDS``, ``hold=1``): in Debian's chromium, against a real
Mosquitto serving the pages, a real table device (fake pins, its real link) and a scripted one.

The delayed overlay must show at time T the clock the device had at T − delay: the page samples its delayed
record, the test compares each sample with the device's own clock (it runs in this process), across a broker
restart.
"""

from __future__ import annotations

import json
import time

import pytest

from helpers import wait_until
from mqtt_broker import MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic
from shotclock.web import web_dir

WAIT = 30_000   # ms: only bounds a hang (a loaded 2-core machine takes seconds for what takes ms)
DELAY_S = 3
BOOT = "0123456789ab"

# Every 20 ms: the live count now, and the delayed overlay's count for now − delay (the same release the
# overlay's own frame does, so a sample does not depend on when chromium runs a frame).
SAMPLER = """delayS => {
  const S = window.Shotclock, link = window.shotclockLink, view = window.shotclockView;
  window.samples = [];
  setInterval(() => {
    const now = performance.now(), at = now - delayS * 1000;
    window.shotclockDelay.release(at, view);
    const live = link.tables["test/1"], past = view.tables["test/1"];
    window.samples.push([now, live ? S.remainingMs(live, now) : null, past ? S.remainingMs(past, at) : null,
                         link.connection]);
  }, 20);
}"""


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = MosquittoBroker(tmp_path_factory.mktemp("broker"), tables=["1", "2"], pages=web_dir()).start()
    yield b
    b.close()


def overlay_url(broker, **params) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"password": broker.passwords["overlay"], **params}.items())
    return f"http://127.0.0.1:{broker.ws_port}/overlay/?{query}"


def clock_offset(page) -> float:
    """The page's performance.now() minus this process's time.monotonic() (ms), from the quickest of a
    few round trips (its error is at most half that round trip)."""
    best = None
    for _ in range(20):
        before = time.monotonic()
        now = page.evaluate("performance.now()")
        after = time.monotonic()
        if best is None or after - before < best[0]:
            best = (after - before, now - (before + after) / 2 * 1000)
    return best[1]


def test_the_delayed_overlay_shows_the_clock_of_delay_ago_across_a_broker_restart(broker, web, tmp_path):
    device = RunningDevice(network_config(broker, table="1", extra="[clock]\nseconds = 120\n"), tmp_path / "dev")
    try:
        page = web.page(1920, 1080)
        page.goto(overlay_url(broker, table="1", delay=DELAY_S, language="en"))
        page.wait_for_function("window.shotclockLink.connection === 'online'", timeout=WAIT)
        # It asks the archive for the delay's history first (this floor has no collector: see test_overlay_reload.py).
        page.wait_for_function("document.getElementById('notice').textContent === "
                               "'Delay: fetching the last 0:03 from the archive…'", timeout=WAIT)
        assert page.evaluate("window.shotclockOverlay.visible") is False
        page.evaluate(SAMPLER, DELAY_S)
        device.tap("floor")
        # The device's truth: its clock's snapshot, a pure function of its monotonic clock (this process's).
        wait_until(lambda: device.device.loop.engine.state.phase == "running", 30, what="the device's clock")
        snapshot = device.device.loop.engine.state
        page_offset = clock_offset(page)
        page.wait_for_function("window.shotclockOverlay && window.shotclockOverlay.visible", timeout=WAIT)
        assert not page.is_visible("#notice")
        assert page.evaluate("(o => o.phase)(window.shotclockOverlay)") in ("running", "countdown")
        time.sleep(1.5)
        # The broker goes away and comes back (its retained states arrive again); the page keeps its buffer.
        SEQ = "window.shotclockLink.tables['test/1'].state.seq"
        stopped_at, seq = page.evaluate(f"[performance.now(), {SEQ}]")
        broker.stop()
        time.sleep(0.5)
        broker.start()
        page.wait_for_function("window.shotclockLink.connection === 'online'", timeout=WAIT)
        back_at = page.evaluate("performance.now()")
        # The device's own reconnection, then a delay's worth and a little of heartbeats after it.
        page.wait_for_function(f"{SEQ} > {seq}", timeout=WAIT)
        page.wait_for_timeout(DELAY_S * 1000 + 2500)
        samples = page.evaluate("window.samples")
        shown = page.evaluate("[document.querySelector('#graphic .secs').textContent, "
                              "Shotclock.shownSeconds(window.shotclockOverlay.remaining_ms)]")
        page.context.close()
    finally:
        device.stop()
    assert shown[0] == str(shown[1])
    compared, before, after, worst = 0, 0, 0, 0.0
    for now, _live, delayed, _conn in samples:
        if delayed is None:
            continue
        # What the device's clock said delay ago, on its own clock.
        want = snapshot.remaining((now - DELAY_S * 1000 - page_offset) / 1000) * 1000
        compared += 1
        before += now - DELAY_S * 1000 < stopped_at
        after += now - DELAY_S * 1000 > back_at
        worst = max(worst, abs(delayed - want))
        assert abs(delayed - want) < 100, (now, delayed, want)
    print(f"\ndelayed overlay: {compared} samples, worst {worst:.1f} ms from the device's clock {DELAY_S} s before")
    assert before > 20 and after > 20, (before, after)


class ScriptedTable:
    """Table 2 spoken by the test with the table's own credential: states and event records with the
    device's clock (time.monotonic()) as a device writes them."""

    def __init__(self, broker):
        self.broker = broker
        self.client = broker.client("table-2")
        self.seq = 0
        self.record_seq = 0
        self.publish("status", {"online": True, "table": "2", "boot": BOOT, "name": "Tafel 2"})

    def publish(self, leaf, message):
        self.client.publish(table_topic("test", "2", leaf), json.dumps(message), qos=1,
                            retain=leaf in ("status", "state")).wait_for_publish(10)

    def state(self, **kw):
        self.seq += 1
        s = {"table": "2", "boot": BOOT, "seq": self.seq, "t": time.monotonic(), "name": "Tafel 2", "mode": "clock",
             "phase": "running", "facing_bet": True, "street": None, "extensions": 0, "seconds": 30,
             "remaining_ms": 20000, "countdown": 5, "last_ruling": None, "faults": [], "network": {"outbox": 0}}
        s.update(kw)
        self.publish("state", s)

    def record(self, **record):
        self.record_seq += 1
        self.publish("event", {"table": "2", "boot": BOOT, "seq": self.record_seq,
                               "record": {"t": time.monotonic(), **record}})


def test_hold_withholds_a_dead_hand_until_the_hand_is_over(broker, web):
    table = ScriptedTable(broker)
    table.state()
    pages = {}
    for hold in ("0", "1"):
        pages[hold] = web.page(1280, 720)
        pages[hold].goto(overlay_url(broker, table="2", delay=1, hold=hold, language="en"))
    for page in pages.values():
        page.wait_for_function("window.shotclockOverlay && window.shotclockOverlay.visible", timeout=WAIT)
    table.state(phase="idle", seconds=None, remaining_ms=None,
                last_ruling={"outcome": "hand_dead", "remaining_ms": 0, "at_zero": False, "age_ms": 0})
    table.record(type="decision", outcome="hand_dead", remaining=0.0, at_zero=False)
    pages["0"].wait_for_function("window.shotclockOverlay.ruling === 'hand_dead'", timeout=WAIT)
    assert pages["0"].text_content("#graphic .words") == "HAND DEAD"
    pages["1"].wait_for_timeout(1000)  # the hold page has had the ruling for as long again
    assert pages["1"].evaluate("[window.shotclockOverlay.ruling, window.shotclockOverlay.visible]") == [None, False]
    # The dealer's "new hand": the hand is over, the withheld ruling shows from there (a delay later).
    table.record(type="input", event="hand")
    pages["1"].wait_for_function("window.shotclockOverlay.ruling === 'hand_dead'", timeout=WAIT)
    assert pages["1"].text_content("#graphic .words") == "HAND DEAD"
    for page in pages.values():
        page.context.close()


def test_a_delay_it_cannot_read_shows_one_line_and_no_clock(broker, web):
    table = ScriptedTable(broker)
    table.state()
    for bad in ("3601", "-1", "soon", "1e3"):
        page = web.page(1280, 720)
        page.goto(overlay_url(broker, table="2", delay=bad, language="en"))
        page.wait_for_function("window.shotclockLink.connection === 'online'", timeout=WAIT)
        page.wait_for_timeout(300)
        assert page.text_content("#notice") == (f"Overlay: delay={bad} is not valid (expected: seconds, 0 – 3600); "
                                                "the overlay shows nothing")
        assert page.evaluate("window.shotclockOverlay.visible") is False
        page.context.close()


@pytest.fixture(scope="module")
def js(web):
    page = web.page()
    page.set_content("<!doctype html><title>delay.js</title>")
    for name in ("lib/device-texts.js", "lib/device-rules.js", "lib/clock.js", "lib/tones.js", "lib/texts.js",
                 "lib/link.js", "lib/delay.js"):
        page.add_script_tag(path=str(web_dir() / name))
    yield page
    page.context.close()


# A sink that records what the delay hands on: [topic, seq, date].
RUN = """steps => {
  const d = new Shotclock.Delay(3000), out = [], enc = new TextEncoder();
  const sink = {receive: (topic, payload, packet, now) => {
    const m = JSON.parse(new TextDecoder().decode(payload)); out.push([topic.split("/").pop(), m.seq, now]); }};
  for (const [kind, arg, arrival] of steps) {
    if (kind === "add") d.add(arg[0], enc.encode(JSON.stringify(arg[1])), {}, arrival);
    else out.push(["released", d.release(arg, sink)]);
  }
  return {out: out, toGo: d.toGo(2000), pending: d.pending.length};
}"""
STATE = "shotclock/v1/test/table/1/state"
STATUS = "shotclock/v1/test/table/1/status"


def test_messages_are_dated_by_the_devices_clock_not_their_arrival(js):
    # Device clock t = 100 s arrives at page time 5000 (offset 4 900 000 ms after t); seq 2 (t = 101 s) waited in a
    # queue and arrives 2.5 s late, after seq 3 (t = 102 s): it is dated 6000 and handed on before seq 3.
    got = js.evaluate(RUN, [
        ["add", [STATE, {"boot": BOOT, "seq": 1, "t": 100.0}], 5000],
        ["add", [STATE, {"boot": BOOT, "seq": 3, "t": 102.0}], 7000],
        ["add", [STATE, {"boot": BOOT, "seq": 2, "t": 101.0}], 8500],
        ["release", 6500], ["release", 9000]])
    assert got["out"] == [["state", 1, 5000], ["state", 2, 6000], ["released", 2], ["state", 3, 7000],
                          ["released", 1]]


def test_the_fastest_message_sets_the_offset_for_the_whole_boot(js):
    # The retained state arrives long after it was sent (a page that connects later); the next, live one
    # shows the offset, and the retained one is dated where the device sent it.
    got = js.evaluate(RUN, [
        ["add", [STATE, {"boot": BOOT, "seq": 7, "t": 10.0}], 9000],
        ["add", [STATE, {"boot": BOOT, "seq": 8, "t": 11.0}], 2000],
        ["release", 10000]])
    assert got["out"] == [["state", 7, 1000], ["state", 8, 2000], ["released", 2]]


def test_repeated_messages_are_kept_once(js):
    # QoS 1 twice, and the retained state and status again after a broker restart.
    online = {"online": True, "table": "1", "boot": BOOT}
    got = js.evaluate(RUN, [
        ["add", [STATUS, online], 1000], ["add", [STATE, {"boot": BOOT, "seq": 1, "t": 1.0}], 1000],
        ["add", [STATUS, online], 3000], ["add", [STATE, {"boot": BOOT, "seq": 1, "t": 1.0}], 3000],
        ["add", [STATE, {"boot": "ba9876543210", "seq": 1, "t": 1.0}], 3000],
        ["release", 5000]])
    assert [o[:2] for o in got["out"]] == [["status", None], ["state", 1], ["state", 1], ["released", 3]]
    assert got["toGo"] == 2000  # the history began at 1000: a 3 s delay is there at 4000


def test_an_hour_of_messages_stays_within_its_bound(js):
    got = js.evaluate("""() => {
      const d = new Shotclock.Delay(3600 * 1000), enc = new TextEncoder(), n = Shotclock.DELAY_MAX_MESSAGES + 500;
      for (let i = 1; i <= n; i++) {
        d.add("shotclock/v1/test/table/1/state", enc.encode(JSON.stringify({boot: "0123456789ab", seq: i, t: i})),
              {}, i * 1000);
      }
      return [d.pending.length, d.dropped, Object.keys(d.seen).length <= 2 * Shotclock.DELAY_MAX_MESSAGES,
              JSON.parse(new TextDecoder().decode(d.pending[0].payload)).seq];
    }""")
    assert got == [20000, 500, True, 501]


def test_a_state_carries_the_devices_clock_and_a_new_time_alone_is_no_change():
    from network_schemas import check
    from shotclock.core.engine import Engine
    from shotclock.core.settings import Settings
    from shotclock.core.wire import state_key, state_message

    state = Engine(Settings()).state
    a = state_message(state, 8123.4021, "7", BOOT, 1, "Tafel 7", [], {"outbox": 0})
    b = state_message(state, 8124.5, "7", BOOT, 2, "Tafel 7", [], {"outbox": 0})
    check("state", a)
    assert (a["t"], b["t"]) == (8123.402, 8124.5)  # the event records' clock, in seconds
    assert state_key(a) == state_key(b)  # only the heartbeat's due time sends an unchanged state again
