"""How long the slow-play report takes on a big floor archive: ``python bench/report_speed.py [TABLES DAYS]``.

Builds an archive of TABLES shot-clock tables (default 20) over DAYS days (default 3), each day 1,500 decisions a
table (a busy feature table, docs/log.md) with eight records a clock like the device's (inputs, beeps, a
checkpoint), six named players a table; then prints how long ``shotclock floor report`` (a cold read of the whole
archive) and the dashboard's report question (the same, then asked again with nothing new) take.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shotclock.adapters.archive import EVENT_COLUMNS, open_store  # noqa: E402
from shotclock.floor.report import answer_report, archive_report  # noqa: E402

DECISIONS_A_DAY = 1500


def build(folder: Path, tables: int, days: int) -> int:
    """The archive's events, written straight into SQLite (the collector's table); returns how many."""
    store = open_store(folder)  # a new archive, its schema made as the collector makes it
    rows = []
    for table in range(1, tables + 1):
        seq = 0
        boot = f"{table:012x}"

        def add(kind, data, clock=None, day=0, n=0):
            nonlocal seq
            seq += 1
            utc = f"2026-12-{day + 1:02d}T{12 + n * 8 // DECISIONS_A_DAY:02d}:00:00.000000Z"
            rows.append((str(table), boot, seq, 1, seq if clock == "own" else clock, kind, float(seq), utc,
                         json.dumps(data), "0" * 64, "0" * 64, utc))
            return seq

        for seat in range(1, 7):
            add("seat", {"seat": seat, "change": "seated", "name": f"Player {table}-{seat}"})
        for day in range(days):
            for n in range(DECISIONS_A_DAY):
                seat = n % 6 + 1
                start = add("start", {"seconds": 30, "street": "flop", "seat": seat}, "own", day, n)
                add("input", {"button": "action", "gesture": "tap"}, start, day, n)
                for _ in range(4):
                    add("beep", {"remaining": 3}, start, day, n)
                add("checkpoint", {"remaining": 10}, start, day, n)
                add("decision", {"outcome": "acted", "remaining": n % 29, "at_zero": False, "seat": seat}, start,
                    day, n)
    with store.transaction():
        store.db.executemany(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    store.close()
    return len(rows)


def main() -> None:
    tables, days = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (20, 3)
    with tempfile.TemporaryDirectory() as folder:
        events = build(Path(folder), tables, days)
        db = open_store(folder, readonly=True)
        began = time.perf_counter()
        result = archive_report(db)
        cold = time.perf_counter() - began
        began = time.perf_counter()
        answer_report(db, {"what": "report"})
        first = time.perf_counter() - began
        began = time.perf_counter()
        answer_report(db, {"what": "report"})
        again = time.perf_counter() - began
        db.close()
    decisions = sum(p["decisions"] for p in result.players)
    print(f"archive: {tables} tables, {days} days, {events:,} events, {decisions:,} decisions, "
          f"{len(result.players)} players")
    print(f"report_cold_s {cold:.2f}  ({events / cold:,.0f} events/s)")
    print(f"report_answer_first_s {first:.2f}")
    print(f"report_answer_again_ms {again * 1000:.2f}")


if __name__ == "__main__":
    main()
