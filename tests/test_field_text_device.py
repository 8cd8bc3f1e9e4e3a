"""A name that is not valid Unicode (a lone surrogate, as `shotclock send --player` sends from a terminal that is
not UTF-8) against a real device in script mode on a real mosquitto: refused at the edge with one line, the table
runs on, later commands are acked, SIGTERM stops it, and the log holds every seat record and verifies."""

import json
import signal
import sqlite3
import subprocess
import time

from helpers import start_device, wait_until
from mqtt_broker import Inbox
from network_device import network_config
from shotclock.cli import main
from shotclock.core.topics import table_topic

SEATS = '[seats]\ntrack = true\ncount = 6\n'


def publish(floor, table, payload: bytes):
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = 5
    floor.publish(table_topic("test", table, "cmd"), payload, qos=1, properties=props)


def command(ident, **fields) -> bytes:
    # json.dumps writes a lone surrogate as the escape \udcf6, which any JSON reader takes back as one
    return json.dumps({"id": ident, "sender": "floor/test", "sent_ms": int(time.time() * 1000), **fields}).encode()


def test_a_name_with_a_lone_surrogate_is_refused_and_the_device_runs_on(broker, tmp_path):
    floor = broker.client("floor")
    inbox = Inbox(floor, table_topic("test", "1", "cmd/ack"), table_topic("test", "1", "status"))
    script = [{"t": 60.0, "button": "street", "hold": 0.05}]  # keeps the device running until it is stopped
    proc = start_device(tmp_path / "dev", config=network_config(broker, extra=SEATS), script=script,
                        stdout=subprocess.PIPE)
    try:
        wait_until(lambda: any(m.topic.endswith("/status") and json.loads(m.payload)["online"]
                               for m in list(inbox.messages)), what="the table online", alive=proc)
        publish(floor, "1", command("bad-seat", name="seat", seat=2, player="M\udcf6ller"))
        publish(floor, "1", command("bad-seating", name="seating", players=[[1, "Ana"], [2, "M\udcf6ller"]]))
        publish(floor, "1", command("good", name="seat", seat=2, player="Möller"))

        def acks():
            return {a["id"]: a for a in (json.loads(m.payload) for m in list(inbox.messages)
                                         if m.topic.endswith("/cmd/ack"))}
        wait_until(lambda: {"bad-seat", "bad-seating", "good"} <= set(acks()), what="three acks", alive=proc)
        got = acks()
        assert got["bad-seat"]["outcome"] == "refused" and got["bad-seat"]["reason"].startswith("malformed: 'player': a name must be valid Unicode")
        assert got["bad-seating"]["outcome"] == "refused"
        assert got["good"]["outcome"] == "done"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    db = sqlite3.connect(tmp_path / "dev" / "state" / "shotclock.db")
    try:
        players = [json.loads(d)["players"] for (d,) in db.execute("SELECT data FROM records WHERE type = 'seats'")]
    finally:
        db.close()
    assert players and players[-1]["2"] == "Möller"
    assert main(["log", "--state-dir", str(tmp_path / "dev" / "state"), "verify"]) == 0


class Failing:
    """A listener that raises every round (what the recorder and the network presenter did with a bad name)."""

    def __init__(self):
        self.rounds = 0
        self.broken = True

    def update(self, round):
        self.rounds += 1
        if self.broken:
            raise UnicodeEncodeError("utf-8", "M\udcf6ller", 1, 2, "surrogates not allowed")


def test_a_listener_that_raises_every_round_is_logged_once_and_when_it_works_again(caplog):
    import logging

    from shotclock.core.settings import Settings
    from shotclock.core.table import Table
    from shotclock.shell.loop import DeviceLoop

    caplog.set_level(logging.INFO, "shotclock.loop")
    failing = Failing()
    now = [0.0]
    loop = DeviceLoop(Table(Settings(), start=0.0), [failing], clock=lambda: now[0])
    for _ in range(500):
        now[0] += 0.01
        loop.run_once()
    failing.broken = False
    loop.run_once()
    loop.run_once()
    said = [r for r in caplog.records if r.name == "shotclock.loop"]
    assert failing.rounds == 502
    assert [r.getMessage() for r in said] == ["Failing failed; carrying on (said once until it works again)",
                                             "Failing works again (it failed 500 rounds)"]
    assert said[0].exc_info is not None  # the first failure's traceback, once


def test_the_screen_says_so_while_the_recorder_fails():
    from shotclock.core.faults import LogFault
    from shotclock.core.settings import Settings
    from shotclock.core.table import Table
    from shotclock.shell.loop import DeviceLoop
    from shotclock.shell.recorder import Recorder

    class BrokenRecorder(Failing):
        failure_fault = Recorder.failure_fault

    failing = BrokenRecorder()
    now = [0.0]
    loop = DeviceLoop(Table(Settings(), start=0.0), [failing], clock=lambda: now[0])
    faults = []
    for broken in (True, True, False, False):
        failing.broken = broken
        now[0] += 0.1
        faults.append([f for f in loop.run_once().faults if isinstance(f, LogFault)])
    assert faults == [[], [Recorder.failure_fault], [Recorder.failure_fault], []]  # shown from the next round on


def test_the_network_presenter_acks_and_waits_a_heartbeat_when_its_state_cannot_be_offered():
    from shotclock.core.uplink import LinkStatus
    from shotclock.shell.network import NetworkPresenter

    class Link:
        boot, status = "0123456789ab", LinkStatus(False, 0)
        acks = []

        def offer_state(self, payload, expiry):
            raise UnicodeEncodeError("utf-8", "x", 0, 1, "surrogates not allowed")

        def offer_ack(self, payload):
            self.acks.append(json.loads(payload))

    from shotclock.core.settings import Settings
    from shotclock.core.table import Table
    from shotclock.core.inputs import Command

    table, link = Table(Settings(), start=0.0), Link()
    presenter = NetworkPresenter(link, "1", "Tafel 1", "nl")
    round = table.feed([Command(1.0, "call", id="c1", sender="floor")], now=1.0)
    try:
        presenter.update(round)
    except UnicodeEncodeError:
        pass
    assert [a["id"] for a in link.acks] == ["c1"]
    assert presenter.next_wake(1.0) >= 1.0 + presenter.interval - 0.01  # not due at once: the loop does not spin


def test_sigterm_stops_a_device_whose_listener_raises_every_round(tmp_path, caplog):
    import logging
    import os
    import threading

    from shotclock.config.loading import parse_config
    from shotclock.shell.device import build_device

    caplog.set_level(logging.ERROR)
    failing = Failing()
    device = build_device(parse_config("[clock]\nseconds = 30\n"), "mock", extra=[failing], log_dir=tmp_path)
    device.loop.post(__import__("shotclock.core.inputs", fromlist=["Command"]).Command(
        device.loop.clock(), "call", id="c1", sender="floor"))  # a running clock: rounds every frame
    threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGTERM)).start()
    started = time.monotonic()
    device.run()
    assert time.monotonic() - started < 30
    assert failing.rounds >= 1
    assert sum("Failing failed" in r.getMessage() for r in caplog.records) == 1


def test_a_record_with_text_that_is_not_unicode_costs_none_of_the_rounds_other_records(tmp_path, caplog):
    # The edge refuses such text (core/fields.py); should any slip past it, the log writer's pipe still takes
    # every record of the round, the bad text as "?", and says so once.
    import logging

    from shotclock.adapters.logwriter import WriterProcess
    from shotclock.core.records import RecordBuilder

    caplog.set_level(logging.ERROR, "shotclock.logwriter")
    builder, utc = RecordBuilder(), "2026-12-01T00:00:00.000Z"
    writer = WriterProcess(tmp_path)
    writer.put(builder.session(0.0, utc, {"table": "Tafel 1", "mode": "clock"}))
    writer.put([builder.message(None, "seats", 1.0, utc, {"players": {"2": "M\udcf6ller"}}),
                builder.message(None, "note", 1.0, utc, {"players": {"3": "M\udcf6ller"}}),
                builder.message(None, "decision", 1.0, utc, {"outcome": "acted", "remaining": 3.0})])
    assert writer.close()
    db = sqlite3.connect(tmp_path / "shotclock.db")
    try:
        kinds = [(t, json.loads(d)) for t, d in db.execute("SELECT type, data FROM records ORDER BY id")]
    finally:
        db.close()
    assert [k for k, _ in kinds] == ["session", "seats", "note", "decision"]
    assert kinds[1][1]["players"]["2"] == "M?ller"
    assert sum("not valid Unicode" in r.getMessage() for r in caplog.records) == 1
