"""The log corpus: the decision log's records, every column and the hash chain, of seeded sessions on the device.

``tests/test_log_corpus.py`` plays the same sessions again and holds every stored record (its data's text, its
``prev`` and its ``hash``) to ``tests/fixtures/log-records.jsonl`` line for line: a change in how the records are
built or carried (the declared records of core/log_records.py, the writer's pipe) that changed one stored byte
would change a hash, and a log written by an earlier version would no longer verify alike. The sessions are those
of the golden corpus (tests/golden_corpus.py), on a virtual clock and a fixed wall clock. To make the file again
after a deliberate change of the log's format (and read the diff before committing it)::

    .venv/bin/python tests/log_corpus.py        # rewrites tests/fixtures/log-records.jsonl
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
FIXTURE = HERE / "fixtures" / "log-records.jsonl"
SEEDS = range(6)  # two sessions of each configuration (tempo, shot, clock)
SCRIPTED = 100  # the "seed" of the scripted session: the records the random ones rarely make
TOUR = ('mode = "clock"\n[clock]\nseconds = 30\ncountdown = 5\n[seats]\ntrack = true\ncount = 6\nbank = 20\n'
        '[levels.3]\nclock.seconds = 20\n[rule_sets.bubble]\nclock.seconds = 15\n')


def scripted(folder: Path):
    """A session that makes the records the random sessions rarely do: the floor's seating, marks, levels, the room's
    hand-for-hand and a tournament clock's state, checkpoints of a long clock, a stuck button, a crash and a stop."""
    sys.path.insert(0, str(HERE))
    from conftest import VirtualClock
    from evidence import Bench
    from shotclock.core.inputs import RoomHandForHand, TournamentNews

    clock = VirtualClock()
    clock.now = 1000.0
    b = Bench(clock, folder / "state", TOUR)

    def post(item):
        b.device.loop.post(item)
        clock.now += 0.001
        b.device.loop.run_once()

    b.command("seating", players=((1, "Ana"), (2, "Bram"), (4, "Chloé"), (5, "Dirk")))
    b.command("button", seat=5)
    b.command("mark", seat=2, mark="clock", mark_seconds=20)
    b.command("level", level=3, hands=12)
    post(TournamentNews(clock.now, "main", 7, 3, 12, False, None, False, "", False))
    b.press("street")
    b.command("call", facing_bet=True)
    b.wait(12.0)  # checkpoints of the running clock
    b.press("action")
    b.command("hand_for_hand", minutes=2.5)
    post(RoomHandForHand(clock.now, True, 3, 2.5, 4, "main", None))
    b.command("rule_set", rule_set="bubble")
    b.press("floor", hold=0.05)
    b.wait(3.0)
    b.crash(4.0)  # mid-clock: the lost record, then the interrupted one
    b.command("resume")
    b.press("action", hold=130.0)  # held far too long: a stuck button's fault
    b.wait(2.0)
    b.command("call", facing_bet=False)
    b.wait(2.0)
    b.stop(3.0)  # a graceful stop with a clock open: the shutdown record
    b.command("end_hand_for_hand")
    post(TournamentNews(clock.now, "main", 8, 3, 12, True, 600.0, False, "Pauze", True))
    b.wait(40)
    return b


def session_lines(seed: int, through_pipe: bool = False) -> list[str]:
    """Every record the seeded session stored, one JSON line each (columns in the table's order).

    ``through_pipe``: each message goes through the writer's pipe format (encoded, then read back as the writer
    process reads it) before it is stored, instead of being handed over in-process."""
    sys.path.insert(0, str(HERE))
    from golden_corpus import session
    from test_evidence import CLOCK, SHOT, TEMPO

    config = (TEMPO, SHOT, CLOCK)[seed % 3]
    with tempfile.TemporaryDirectory() as folder:
        if through_pipe:
            from shotclock.adapters.logwriter import _line
            from shotclock.core.log_records import read_message
            from shotclock.shell.recorder import DirectSink

            put = DirectSink.put
            DirectSink.put = lambda self, messages: put(self, [read_message(_line(m)) for m in messages])
        try:
            bench = scripted(Path(folder)) if seed == SCRIPTED else session(random.Random(seed), config, Path(folder))
            bench.close()
        finally:
            if through_pipe:
                DirectSink.put = put
        db = sqlite3.connect(Path(folder) / "state" / "shotclock.db")
        try:
            columns = [c[1] for c in db.execute("PRAGMA table_info(records)")]
            rows = db.execute("SELECT * FROM records ORDER BY id").fetchall()
        finally:
            db.close()
    return [json.dumps(dict(zip(columns, row)), ensure_ascii=False) for row in rows]


def make() -> int:
    """Rewrite the fixture; returns how many records it holds."""
    lines = [f"# seed {seed}" if n == 0 else line
             for seed in (*SEEDS, SCRIPTED) for n, line in enumerate(["", *session_lines(seed)])]
    FIXTURE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sum(1 for line in lines if not line.startswith("#"))


def stored() -> dict[int, list[str]]:
    """The fixture's records by seed."""
    out: dict[int, list[str]] = {}
    seed = None
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("# seed "):
            seed = int(line[7:])
            out[seed] = []
        else:
            out[seed].append(line)
    return out


if __name__ == "__main__":
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    print(f"{FIXTURE.relative_to(HERE.parent)}: {make()} records written")
