"""The slow-play report end to end: real table devices (fake pins, real time) on a real Mosquitto, the real
collector writing the archive, then ``shotclock floor report`` checked against the decisions the devices logged
-- with a pause and a device restart inside one player's decision."""

import csv
import io
import json
import sqlite3
import time
from datetime import datetime

from helpers import wait_until
from network_device import RunningDevice, network_config
from shotclock.cli import main
from test_collector import start_collector
from test_seated_network import SEATS, send

CONFIG = SEATS + "[device]\nhold = 0.3\n"


def logged_decisions(state_dir):
    """From a device's own log: (seat, seconds of the clock it ruled on, what it had left, outcome, start utc,
    ruling utc) for every decision with a seat -- the clock's length is its start's plus its extensions."""
    db = sqlite3.connect(state_dir / "shotclock.db")
    out = []
    for clock, data, utc in db.execute("SELECT clock, data, utc FROM records WHERE type = 'decision' ORDER BY id"):
        decision = json.loads(data)
        start, start_utc = db.execute("SELECT data, utc FROM records WHERE id = ?", (clock,)).fetchone()
        seconds = json.loads(start)["seconds"] + sum(
            json.loads(d)["seconds"] for (d,) in db.execute("SELECT data FROM records WHERE clock = ? AND "
                                                           "type = 'extended'", (clock,)))
        out.append((decision.get("seat"), seconds, decision.get("remaining"), decision["outcome"], start_utc, utc))
    db.close()
    return out


def seconds_between(a: str, b: str) -> float:
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    return (parse(b) - parse(a)).total_seconds()


def test_the_report_from_a_real_archive_matches_the_devices_own_decisions(broker, tmp_path, capsys):
    archive, collector = start_collector(broker, tmp_path / "floor")
    state = {t: tmp_path / f"table-{t}" for t in ("1", "2")}
    one = RunningDevice(network_config(broker, "1", mode="shot", extra=CONFIG), state["1"])
    two = RunningDevice(network_config(broker, "2", mode="shot", extra=CONFIG), state["2"])
    devices = [one, two]
    try:
        for seat, name in ((4, "Ana Costa"), (5, "Bo Li")):
            assert send(capsys, broker, "1", "seat", "--seat", str(seat), "--player", name)[0] == 0
        one.tap("street", hold=0.6)  # a new hand: button 1, blinds 2 and 3, Ana at seat 4 first
        wait_until(lambda: one.device.loop.table.state.seats.turn == 4, what="Ana's turn")
        assert send(capsys, broker, "1", "start")[0] == 0
        time.sleep(0.5)
        assert send(capsys, broker, "1", "pause")[0] == 0  # the floor counts a bet: 1.5 s paused
        time.sleep(1.5)
        assert send(capsys, broker, "1", "resume")[0] == 0
        time.sleep(0.5)
        one.stop()  # the device goes down in the middle of her decision, for 2 s
        time.sleep(2.0)
        one = devices[0] = RunningDevice(network_config(broker, "1", mode="shot", extra=CONFIG), state["1"])
        wait_until(lambda: one.device.loop.table.state.phase == "paused", what="her clock back, paused")
        assert send(capsys, broker, "1", "resume")[0] == 0
        time.sleep(0.3)
        one.tap("action")  # she acts
        wait_until(lambda: one.device.loop.table.state.on_clock == 5, what="Bo's clock")
        time.sleep(0.4)
        one.tap("action")  # he acts
        wait_until(lambda: one.device.loop.table.state.on_clock not in (None, 5), what="the next seat's clock")
        # Ana moves to table 2, where she acts first too.
        assert send(capsys, broker, "2", "seat", "--seat", "2", "--player", "Ana Costa")[0] == 0
        assert send(capsys, broker, "2", "button", "--seat", "5")[0] == 0
        two.tap("street", hold=0.6)
        wait_until(lambda: two.device.loop.table.state.seats.turn == 2, what="Ana's turn at table 2")
        assert send(capsys, broker, "2", "start")[0] == 0
        time.sleep(0.6)
        two.tap("action")
        wait_until(lambda: two.device.loop.table.state.on_clock == 3, what="seat 3's clock at table 2")
        logs = [sqlite3.connect(state[t] / "shotclock.db") for t in ("1", "2")]
        total = lambda: sum(db.execute("SELECT COUNT(*) FROM records").fetchone()[0] for db in logs)
        wait_until(lambda: archive.count() == total(), what="every record in the archive")
    finally:
        for device in devices:
            device.stop()
        collector.stop()
    archive.close()
    capsys.readouterr()

    # What the devices ruled: each acted decision's time on the clock is its length less what it had left.
    one_log, two_log = logged_decisions(state["1"]), logged_decisions(state["2"])
    acted = [(seat, seconds - left, begun, ruled) for seat, seconds, left, outcome, begun, ruled in one_log
             if outcome == "acted"]
    [(ana_1, ana_1_begun, ana_1_ruled)] = [a[1:] for a in acted if a[0] == 4]
    [bo_time] = [a[1] for a in acted if a[0] == 5]
    (ana_2,) = [seconds - left for seat, seconds, left, outcome, *_ in two_log if seat == 2 and outcome == "acted"]
    # The pause (1.5 s) and the downtime (2 s and the restart) lie inside her decision, and do not count.
    assert seconds_between(ana_1_begun, ana_1_ruled) > ana_1 + 3.5
    assert 1.0 < ana_1 < seconds_between(ana_1_begun, ana_1_ruled) - 3.5

    assert main(["floor", "report", "--archive", str(tmp_path / "floor"), "--json"]) == 0
    got = {p["player"]: p for p in json.loads(capsys.readouterr().out)["players"]}
    assert set(got) == {"Ana Costa", "Bo Li"}
    ana, bo = got["Ana Costa"], got["Bo Li"]
    times = sorted([ana_1, ana_2])
    assert (ana["tables"], ana["decisions"]) == ("1, 2", 2)
    assert ana["median_s"] == round((times[0] + times[1]) / 2, 3)
    assert ana["max_s"] == round(times[1], 3) and ana["p95_s"] == round(times[0] + 0.95 * (times[1] - times[0]), 3)
    assert (bo["tables"], bo["decisions"], bo["max_s"]) == ("1", 1, round(bo_time, 3))
    assert main(["floor", "report", "--archive", str(tmp_path / "floor"), "--table", "2", "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["player"], r["decisions"], r["max_s"]) for r in rows] == [("Ana Costa", "1", str(round(ana_2, 3)))]
