"""The golden corpus: replay files exported from tables played on the real device, with the output each gives.

``tests/test_golden.py`` replays every ``tests/golden/*.events.jsonl`` (and the examples in ``docs/examples``) and
holds the output to the stored ``*.expected.jsonl`` byte for byte. The files are made here, by seeded random
sessions played as in ``tests/test_evidence_sessions.py`` (tests/evidence.py): each clock's ``log export --replay
N`` is kept only when it replays to the ruling, seat and bank the device logged. To make them again after a
deliberate change of the replay output (and read the diff before committing it)::

    .venv/bin/python tests/golden_corpus.py        # rewrites tests/golden/
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
CLOCKS = 200  # the corpus's size: clocks exported


def replay_text(events_text: str) -> str:
    """What ``shotclock replay`` prints for a replay file with a header (its settings)."""
    from shotclock.config.loading import config_from
    from shotclock.core.replay import ReplayInput, replay_steps

    source = ReplayInput([events_text.encode("utf-8")])
    settings = config_from(source.header, "header").settings if source.header is not None else None
    if settings is None:
        from shotclock.config.typed import Config
        settings = Config().settings
    from shotclock.core.events import json_lines

    return json_lines([o for outputs in replay_steps(source.events(settings.mode), settings) for o in outputs]).decode()


def session(rng: random.Random, config: str, folder: Path):
    """One seeded session on the device; returns the bench (closed by the caller)."""
    sys.path.insert(0, str(HERE))
    from conftest import VirtualClock
    from evidence import Bench
    from test_evidence_sessions import NAMES, play

    clock = VirtualClock()
    clock.now = 1000.0  # the same times on every machine
    b = Bench(clock, folder / "state", config)
    b.press("street", hold=2.1)
    kinds = ["action"] * 6 + ["wait"] * 5 + ["hold", "floor", "bet", "extend", "street", "chord", "empty", "seat",
                                               "top_up", "rename", "command", "crash"]
    for _ in range(rng.randint(8, 30)):
        kind = rng.choice(kinds)
        if kind in ("action", "floor", "bet", "extend", "street"):
            step = ("press", kind)
        elif kind == "wait":
            step = ("wait", rng.choice([0.3, 1.0, 2.5, 4.5, 9.0]))
        elif kind == "hold":
            step = ("hold", rng.choice(["action", "street"]))
        elif kind == "chord":
            step = ("chord", rng.choice([("bet", "action"), ("bet", "street"), ("bet", "extend")]))
        elif kind == "empty":
            step = ("empty", rng.randint(1, 4))
        elif kind == "seat":
            step = ("seat", rng.randint(1, 4), rng.choice((None, *NAMES)), rng.choice([None, 2.0, 5.5]))
        elif kind == "top_up":
            step = ("top_up", rng.choice([1.5, 3.0]))
        elif kind == "rename":
            step = ("rename", rng.randint(1, 4), rng.choice(NAMES))
        elif kind == "command":
            step = ("command", rng.choice(["pause", "resume", "start", "fold", "all_in", "turn_back",
                                           "turn_forward", "extend", "cancel"]))
        else:
            step = (rng.choice(["crash", "stop"]), rng.choice([2.0, 30.0]))
        play(b, step)
    b.wait(30)
    return b


def make() -> int:
    """Rewrite tests/golden/ (the files the corpus's test replays); returns how many clocks it holds."""
    sys.path.insert(0, str(HERE))
    from evidence import DECISION, logged_clocks, pick, replayed
    from test_evidence import CLOCK, SHOT, TEMPO

    for old in GOLDEN.glob("*.jsonl"):
        old.unlink()
    GOLDEN.mkdir(exist_ok=True)
    made, seed = 0, 0
    configs = {"tempo": TEMPO, "shot": SHOT, "clock": CLOCK}
    while made < CLOCKS:
        name = list(configs)[seed % len(configs)]
        rng = random.Random(seed)
        with tempfile.TemporaryDirectory() as folder:
            b = session(rng, configs[name], Path(folder))
            try:
                for number, (_, decision) in enumerate(logged_clocks(b.rows()), 1):
                    if decision is None or made >= CLOCKS:
                        continue
                    text = b.export(number)
                    again = [r for r in replayed(text) if r["type"] == "decision"]
                    if not again or pick(again[0], DECISION) != pick(decision, DECISION):
                        raise SystemExit(f"seed {seed}, clock {number}: the export does not replay to the log's "
                                         f"decision ({pick(decision, DECISION)})")
                    stem = GOLDEN / f"{name}-{seed:03d}-{number:02d}"
                    stem.with_suffix(".events.jsonl").write_text(text, encoding="utf-8")
                    stem.with_suffix(".expected.jsonl").write_text(replay_text(text), encoding="utf-8")
                    made += 1
            finally:
                b.close()
        seed += 1
    return made


if __name__ == "__main__":
    import logging
    import warnings

    logging.disable(logging.WARNING)  # the restored clocks' journal lines
    warnings.simplefilter("ignore")
    print(f"tests/golden: {make()} clocks written")
