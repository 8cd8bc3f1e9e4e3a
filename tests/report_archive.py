"""Floor archives for the slow-play report's tests and its screenshot: real decision logs (hand-written records),
sent as the devices' ``event`` messages into a real :class:`~shotclock.adapters.archive.Archive`."""

from __future__ import annotations

import random

from shotclock.adapters.archive import Archive


def device_log(state_dir, table, boot, records, utc="2026-12-01T20:00:00.000000Z"):
    """``records`` (type, clock offset or None, fields) written to a real decision log in ``state_dir``, as the
    ``event`` messages the device sends the collector; a clock offset names the record that many before."""
    from shotclock.adapters.log import DecisionLog
    from shotclock.core.wire import event_message

    log = DecisionLog(state_dir)
    session = log.new_session(0.0, utc, {"table": f"Tafel {table}", "mode": "shot", "config": {}, "boot": boot})
    rows = list(log.last_written)
    starts = []
    for n, (kind, fields) in enumerate(records, start=1):
        if kind == "start":
            starts.append(log.next_id())
        clock = starts[-1] if kind in ("start", "extended", "decision", "pause", "resume") else None
        log.append([{"session": session, "clock": clock, "type": kind, "t": float(n), "utc": fields.pop("utc", utc),
                     "data": fields}])
        rows += log.last_written
    log.close()
    return [event_message(table, boot, row) for row in rows]


def build_archive(folder, tmp_path):
    """Table 1: Ana (two decisions, one a dead hand) and "=Bo" (one); table 2 on the next floor day: Ana again, and
    the floor puts her on her own 10 s clock."""
    archive = Archive(folder)
    one = [("seat", {"seat": 4, "change": "seated", "name": "Ana"}),
           ("seat", {"seat": 5, "change": "seated", "name": "=Bo"}),
           ("start", {"seconds": 30, "street": "flop", "seat": 4}),
           ("decision", {"outcome": "acted", "remaining": 21.5, "at_zero": False, "seat": 4}),   # 8.5 s
           ("start", {"seconds": 20, "street": "turn", "seat": 5}),
           ("decision", {"outcome": "acted", "remaining": 19, "at_zero": False, "seat": 5}),    # 1 s
           ("start", {"seconds": 20, "street": "river", "seat": 4}),
           ("extended", {"seconds": 30, "seat": 4}),
           ("decision", {"outcome": "hand_dead", "seat": 4})]                                  # 50 s
    two = [("seat", {"seat": 1, "change": "seated", "name": "Ana"}),
           ("start", {"seconds": 30, "street": "flop", "seat": 1, "utc": "2026-12-02T20:00:00.000000Z"}),
           ("decision", {"outcome": "acted", "remaining": 2, "at_zero": False, "seat": 1}),     # 28 s
           ("mark", {"seat": 1, "change": "marked", "mark": "clock", "mark_seconds": 10, "name": "Ana",
                     "by": "floor-anna", "utc": "2026-12-02T20:30:00.000000Z"})]                 # her own clock
    for event in device_log(tmp_path / "one", "1", "0123456789ab", one) + device_log(tmp_path / "two", "2",
                                                                                     "ba9876543210", two):
        archive.add(event)
    archive.close()
    return str(folder)


PLAYERS = ["Ana Costa", "Bo Li", "Cem Yilmaz", "Daan de Vries", "Eva Jansen", "Femke Bakker", "Gert Visser",
           "Hanna Smit", "Ivo Mulder"]


def sample_archive(folder, tmp_path, seed: int = 7) -> str:
    """Three tables over two floor days, nine players who move between them, a few hundred shot-clock decisions
    (some with an extension or the time bank, a few rulings against), ten hands a level: the report's picture."""
    rng = random.Random(seed)
    archive = Archive(folder)
    for n, table in enumerate(("1", "2", "7")):
        records = []
        for day in ("2026-12-01", "2026-12-02"):
            seated = rng.sample(PLAYERS, 6)
            records += [("seat", {"seat": s, "change": "seated", "name": name}) for s, name in enumerate(seated, 1)]
            for hand in range(40):
                if hand % 10 == 0:  # ten hands a level: levels 1-4 on the first day, 5-8 on the second
                    records.append(("level", {"level": (4 if day.endswith("02") else 0) + hand // 10 + 1, "hand": 1}))
                seat = rng.randint(1, 6)
                slow = 1.0 + (PLAYERS.index(seated[seat - 1]) % 4) * 2.5  # some players are slower than others
                when = f"{day}T{14 + hand // 10:02d}:{hand % 10 * 6:02d}:00.000000Z"
                records.append(("start", {"seconds": 30, "street": "flop", "seat": seat, "utc": when}))
                used = min(rng.expovariate(1 / (4 * slow)), 58)
                if used > 30:
                    records.append(("extended", {"seconds": 30, "seat": seat}))
                if used > 55 and rng.random() < 0.5:
                    records.append(("decision", {"outcome": rng.choice(["hand_dead", "check"]), "seat": seat}))
                else:
                    left = (60 if used > 30 else 30) - used
                    records.append(("decision", {"outcome": "acted", "remaining": round(left, 3), "at_zero": False,
                                                 "seat": seat}))
        for event in device_log(tmp_path / f"sample-{table}", table, f"{n + 1:012x}", records):
            archive.add(event)
    archive.close()
    return str(folder)
