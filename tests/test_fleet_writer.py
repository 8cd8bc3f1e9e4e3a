"""The fleet's shared log writer: one thread writes many simulated tables' decision logs."""

import threading

from helpers import wait_until
from shotclock.adapters.log import DecisionLog
from shotclock.floor.fleet_writer import SharedWriter

UTC = "2026-12-01T20:00:00.000000Z"


def stream(table):
    return [{"seq": 1, "type": "session", "t": 0.0, "utc": UTC, "data": {"table": table}},
            {"control": "alive", "t": 0.1, "clock": None},
            {"seq": 2, "clock": None, "type": "beep", "t": 1.0, "utc": UTC, "data": {"remaining": 1}}]


def test_each_table_gets_its_own_log_and_its_written_rows(tmp_path):
    writer = SharedWriter()
    reports = {name: [] for name in ("a", "b")}
    lock = threading.Lock()

    def on_status(name):
        def report(status):
            with lock:
                reports[name].append(status)
        return report

    sinks = {name: writer.sink(tmp_path / name, on_status(name), lock_fd=None, report_rows=True) for name in reports}
    for name, sink in sinks.items():
        sink.put(stream(name))
    written = lambda name: [row for s in reports[name] for row in s.get("written", [])]
    wait_until(lambda: all(len(written(n)) == 2 for n in reports), what="both tables' rows reported")
    assert all(sink.close() for sink in sinks.values())  # nothing left unwritten
    for name in reports:
        log = DecisionLog(tmp_path / name)
        try:
            rows = log.rows()
        finally:
            log.close()
        assert [r["type"] for r in rows] == ["session", "beep"]  # the heartbeat is never stored
        assert rows[0]["table"] == name and [r["id"] for r in written(name)] == [1, 2]
