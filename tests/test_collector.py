"""``shotclock floor collect`` and ``shotclock log --collected``: one archive of every table's rulings."""

import json
import sqlite3
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic
from shotclock.adapters.archive import Archive, table_log
from shotclock.floor.collector import Collector
from shotclock.cli import main


def start_collector(broker, folder):
    archive = Archive(folder)
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                          broker.passwords["collector"])
    collector.start()
    assert collector.connected.wait(60)  # connected and subscribed
    return archive, collector


@pytest.mark.slow
def test_collector_archives_two_tables_and_log_reads_each(broker, tmp_path, capsys):
    archive, collector = start_collector(broker, tmp_path / "floor")
    devices = [RunningDevice(network_config(broker, table=t), tmp_path / f"state{t}") for t in ("1", "2")]
    try:
        for d in devices:
            d.tap("bet")
            d.tap("floor")
        time.sleep(0.3)
        devices[0].tap("action")
        logs = [sqlite3.connect(tmp_path / f"state{t}" / "shotclock.db") for t in ("1", "2")]
        total = lambda: sum(db.execute("SELECT COUNT(*) FROM records").fetchone()[0] for db in logs)
        wait_until(lambda: archive.count() == total() and total() > 6, what="every record in the archive")
    finally:
        for d in devices:
            d.stop()
        collector.stop()
    assert archive.duplicates == 0 or archive.count() == archive.added
    archive.close()
    folder = str(tmp_path / "floor")
    assert main(["log", "--collected", folder]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("1 ") and out.splitlines()[2].startswith("2 ")
    assert main(["log", "--collected", folder, "--table", "1"]) == 0
    listing = capsys.readouterr().out
    assert "Tafel 1" in listing and "acted" in listing
    assert main(["log", "--collected", folder, "--table", "2", "show", "1"]) == 0
    assert "Tafel 2" in capsys.readouterr().out
    assert main(["log", "verify", "--collected", folder, "--table", "1"]) == 0
    assert "chain intact" in capsys.readouterr().out
    assert main(["log", "--collected", folder, "--table", "1", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clocks"] == 1


def chained_events(count):
    """``count`` events whose log fields chain as a device's log does."""
    from shotclock.adapters.log import GENESIS, record_hash

    events, prev = [], GENESIS
    for n in range(1, count + 1):
        row = {"id": n, "session": 1, "clock": None, "type": "beep", "t": float(n), "utc": "2026-11-30T01:00:00.000000Z",
               "data": json.dumps({"remaining": 1}, separators=(",", ":")), "prev": prev}
        row["hash"] = prev = record_hash(row)
        events.append({"table": "7", "boot": "0123456789ab", "seq": n,
                       "record": {"t": float(n), "type": "beep", "remaining": 1},
                       "log": {k: row[k] for k in ("session", "clock", "utc", "prev", "hash")}})
    return events


def test_archive_drops_duplicates_and_verify_names_a_gap(tmp_path, capsys):
    archive = Archive(tmp_path)
    e = chained_events(4)
    assert [archive.add(x) for x in (e[0], e[1], e[1], e[3])] == [True, True, False, True]
    assert archive.duplicates == 1 and archive.count() == 3
    archive.close()
    assert main(["log", "verify", "--collected", str(tmp_path), "--table", "7"]) == 1
    assert "record 3 was removed" in capsys.readouterr().out
    archive = Archive(tmp_path)
    archive.add(e[2])  # the late one arrives: the chain is whole
    archive.close()
    assert main(["log", "verify", "--collected", str(tmp_path), "--table", "7"]) == 0
    assert "chain intact" in capsys.readouterr().out


def test_log_collected_needs_a_known_table(tmp_path, capsys):
    Archive(tmp_path).close()
    assert main(["log", "--collected", str(tmp_path), "--table", "9", "stats"]) == 2
    assert "no table '9'" in capsys.readouterr().err
    assert main(["log", "--collected", str(tmp_path / "nowhere"), "--table", "1"]) == 2


def test_collect_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["floor", "collect", "--venue", "a b", "--credentials", "x", "--archive", str(tmp_path)]) == 2
    assert "venue" in capsys.readouterr().err
    assert main(["floor", "collect", "--venue", "v", "--credentials", str(tmp_path / "none.toml"),
                 "--archive", str(tmp_path)]) == 2
    assert "credentials" in capsys.readouterr().err
