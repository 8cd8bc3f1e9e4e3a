"""The differential test: random sessions played on the real device in script mode's way (fake pins, virtual time,
the real decision log) -- folds, all-ins, corrections, run-outs into the bank, pauses, extensions, the floor's
seat commands mid-clock and restarts -- and for every clock the logged decision, the ``log export --replay N |
shotclock replay`` decision, the ledger's line and the next clock's bank agree (tests/evidence.py), and
``log replay --check --all`` holds every session to the log."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, example, given, settings, strategies as st

from conftest import VirtualClock
from evidence import Bench, disagreements
from test_evidence import CLOCK, SHOT, TEMPO

NAMES = ("Ana", "Bo", "Cy Møller")
PRESS = st.tuples(st.just("press"), st.sampled_from(["action", "action", "action", "floor", "bet", "extend", "street"]))
WAIT = st.tuples(st.just("wait"), st.sampled_from([0.3, 1.0, 2.5, 4.5, 9.0]))
STEP = st.one_of(
    PRESS, PRESS, PRESS, WAIT, WAIT,  # (one_of draws each branch alike: the dealer's presses and time, most often)
    st.tuples(st.just("hold"), st.sampled_from(["action", "street", "street"])),  # a fold; a new hand
    st.tuples(st.just("chord"), st.sampled_from([("bet", "action"), ("bet", "street"), ("bet", "extend")])),
    st.tuples(st.just("empty"), st.integers(1, 4)),
    st.tuples(st.just("seat"), st.integers(1, 4), st.sampled_from((None, *NAMES)), st.sampled_from([None, 2.0, 5.5])),
    st.tuples(st.just("top_up"), st.sampled_from([1.5, 3.0])),
    st.tuples(st.just("seating"), st.permutations([1, 2, 3, 4])),
    st.tuples(st.just("rename"), st.integers(1, 4), st.sampled_from(NAMES)),
    st.tuples(st.just("button"), st.integers(1, 4)),
    st.tuples(st.just("command"), st.sampled_from(["pause", "resume", "start", "last_action", "fold", "all_in",
                                                   "turn_back", "turn_forward", "extend", "cancel"])),
    st.tuples(st.sampled_from(["crash", "stop"]), st.sampled_from([2.0, 30.0])),
)


def play(b: Bench, step: tuple) -> None:
    kind, *args = step
    if kind == "press":
        b.press(args[0])
    elif kind == "hold":
        b.press(args[0], hold=2.1)
    elif kind == "chord":
        b.chord(*args[0])
    elif kind == "wait":
        b.wait(args[0])
    elif kind == "empty":
        b.command("empty", seat=args[0])
    elif kind == "seat":
        b.command("seat", seat=args[0], player=args[1], bank=args[2])
    elif kind == "top_up":
        b.command("top_up", seconds=args[0])
    elif kind == "seating":
        b.command("seating", players=tuple((seat, NAMES[i % 3]) for i, seat in enumerate(args[0][:3])))
    elif kind == "rename":
        b.command("rename", seat=args[0], player=args[1])
    elif kind == "button":
        b.command("button", seat=args[0])
    elif kind == "command":
        b.command(args[0])
    elif kind == "crash":
        b.crash(down=args[0])
    else:
        b.stop(down=args[0])


def what_it_saw(rows: list[dict]) -> set[str]:
    """The kinds of clock a session's log holds."""
    seen = set()
    for r in rows:
        if r["type"] == "decision":
            seen.add(f"ended by {r['by']}" if r.get("by") else r["outcome"])
            if (r.get("bank_used") or 0) > 0:
                seen.add("ran into the bank")
        elif r["type"] == "interrupted" and r.get("restored"):
            seen.add("restored after a stop")
        elif r["type"] == "top_up" and r.get("remaining") is not None:
            seen.add("topped up mid-clock")
    return seen


@given(st.sampled_from([TEMPO, SHOT, CLOCK]), st.lists(STEP, min_size=8, max_size=30))
# A reseating ends the hand with one player left, a clock is started, and the dealer's chord moves the turn back
# to that player: the export's prologue could not put the turn on a seat from nobody (it only stepped forward).
@example(TEMPO, [("press", "action")] * 4 + [("seat", 4, "Ana", None), ("seating", [4, 2, 3, 1]), ("press", "action"),
                                           ("chord", ("bet", "street"))])
# The floor empties every seat but one (the hand is over) and the dealer moves the turn back: no clock of a lone
# player can start (the device had given seat 4 a clock that no prologue could replay).
@example(TEMPO, [("press", "action")] * 3 + [("empty", 1), ("empty", 2), ("empty", 3), ("command", "turn_back"),
                                           ("press", "action")])
@settings(max_examples=80, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
def test_every_clock_of_a_random_session_has_one_account(config, steps):
    with tempfile.TemporaryDirectory() as folder:
        b = Bench(VirtualClock(), Path(folder) / "state", config)
        try:
            b.press("street", hold=2.1)  # a hand dealt, so most sessions have clocks with seats
            for step in steps:
                play(b, step)
            b.wait(30)  # every clock left running is ruled
            for kind in what_it_saw(b.rows()):
                event(kind)  # pytest --hypothesis-show-statistics: how many sessions saw each
            assert disagreements(b) == []
        finally:
            b.close()
