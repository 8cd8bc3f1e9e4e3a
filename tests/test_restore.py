"""The one restore: a clock the device stopped on comes back with the time it had then, whatever came before.

Driven in pure code with virtual time: the table, the record builder, the writer's ``lost`` record,
and the restore read back from the records, compared with the same table run without the stop.
"""

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from shotclock.adapters.logwriter import lost_message
from shotclock.config.loading import parse_config
from shotclock.core.clocks import clocks_from
from shotclock.core.inputs import Command
from shotclock.core.log_records import Alive, ClockRef
from shotclock.core.records import RecordBuilder
from shotclock.core.restore import (HEARTBEAT, HOW_LOST, HOW_PAUSED, HOW_POWER_CUT, HOW_STOPPED, ClockAtStop, Interrupted,
                                    at_stop, plan_recovery)
from shotclock.core.table import Table

SHOT = parse_config('preset = "shot-30"\n').settings
ACTIONS = ["extend", "undo", "pause", "resume", "bet"]


def stored(messages: list, session: int = 1) -> list[dict]:
    """The messages as the log stores them: numbered from 1, stream references resolved to record ids."""
    rows, ids = [], {}
    for msg in map(msgspec.to_builtins, messages):  # as the writer's pipe carries them
        if "control" in msg:
            continue
        rid = len(rows) + 1
        if msg["seq"] is not None:
            ids[msg["seq"]] = rid
        ref = msg["clock"]
        clock = None if ref is None else ref["id"] if "id" in ref else ids.get(ref["seq"], rid)
        rows.append({**msg["data"], "id": rid, "session": session, "clock": clock, "type": msg["type"],
                     "t": msg["t"], "utc": msg["utc"]})
    return rows


class Run:
    """A table with its record builder, fed commands and woken as the device's loop wakes it."""

    def __init__(self, settings=SHOT):
        self.table, self.builder, self.messages = Table(settings), RecordBuilder(), []
        self.now = 0.0
        self.messages += self.builder.session(0.0, "", {"mode": settings.mode})

    def wake_until(self, t: float) -> None:
        """Every round the loop would run before ``t`` (beeps, rulings, heartbeats, checkpoints)."""
        while True:
            wakes = [w for w in (self.table.next_wake(), self.builder.next_wake(self.now)) if w is not None]
            if not wakes or min(wakes) >= t:
                return
            self.feed([], max(min(wakes), self.now))

    def feed(self, inputs, now: float) -> None:
        self.now = now
        self.messages += self.builder.round(self.table.feed(inputs, now), lambda t: "")

    def command(self, t: float, name: str) -> None:
        self.wake_until(t)
        self.feed([Command(t, name, id=f"c{len(self.messages)}", sender="floor")], t)


def open_clock(rows):
    clocks = clocks_from(rows)
    return clocks[-1] if clocks and clocks[-1].open else None


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(st.tuples(st.floats(0.05, 12), st.sampled_from(ACTIONS)), max_size=12),
       crash_after=st.floats(0.01, 20), writer_lives=st.booleans())
def test_any_undo_extension_pause_and_resume_then_a_crash_restores_the_time_at_the_crash(steps, crash_after,
                                                                                          writer_lives):
    run = Run()
    run.command(1.0, "start")
    t = 1.0
    for gap, name in steps:
        t += gap
        run.command(t, name)
    crash = t + crash_after
    run.wake_until(crash)
    truth = run.table.state  # what the table would show at the crash, run without it
    if writer_lives:  # the process died; its log writer, reading the end of the pipe, records when
        alive = last_heartbeat(run.messages)
        run.messages.append(lost_message(alive, crash - alive.t, ""))
    rows = stored(run.messages)
    clock = open_clock(rows)
    if truth.phase == "idle":
        assert clock is None  # ruled (or ended) before the crash: nothing to restore
        return
    point = at_stop(clock.records)
    paused = truth.phase == "paused"
    if paused or writer_lives:
        assert point.remaining == pytest.approx(truth.remaining(crash), abs=1e-6)
        assert point.how == (HOW_PAUSED if paused else HOW_LOST)
    else:  # a power cut: the time at the last record, at most the checkpoint interval above the truth
        assert truth.remaining(crash) - 1e-6 <= point.remaining <= truth.remaining(crash) + 5.0 + 1e-6
        assert point.how == HOW_POWER_CUT
    assert (point.seconds, point.extensions, point.facing_bet, point.street) == pytest.approx(
        (truth.seconds, truth.extensions, truth.facing_bet, truth.street))
    # The one restore puts a restarted table in the paused state with that time, whatever the downtime.
    restarted = Table(SHOT, start=500.0)
    restarted.restore(point, 500.0)
    after = restarted.state
    assert (after.phase, after.interrupted, after.remaining(600.0)) == ("paused", True, pytest.approx(point.remaining))
    assert (after.seconds, after.extensions) == pytest.approx((point.seconds, point.extensions))


def last_heartbeat(messages):
    """The device's last ``alive`` message (what the writer keeps in memory)."""
    return [m for m in messages if isinstance(m, Alive)][-1]


def test_an_undo_while_paused_keeps_the_clock_paused():
    # Issue 17's defect: an undo record was read as "running", so the downtime ran off the paused clock.
    run = Run()
    run.command(0.3, "start")
    run.command(1.0, "extend")
    run.command(2.0, "pause")
    run.command(4.0, "undo")
    rows = stored(run.messages)
    point = at_stop(open_clock(rows).records)
    assert (point.remaining, point.how, point.extensions, point.seconds) == (pytest.approx(28.3), HOW_PAUSED, 0, 30)


def test_a_graceful_stop_and_a_restore_that_was_left_paused_keep_their_exact_time():
    run = Run()
    run.command(0.0, "start")
    run.wake_until(7.5)
    run.messages += run.builder.stop(7.5, run.table.state, "")
    rows = stored(run.messages)
    point = at_stop(open_clock(rows).records)
    assert (point.remaining, point.how, point.cause) == (pytest.approx(22.5), HOW_STOPPED, "stop")
    # The restart records it; a second stop before the floor resumed it keeps the same time.
    again = rows + [{"id": len(rows) + 1, "session": 2, "clock": rows[0]["clock"] or open_clock(rows).id,
                     "type": "interrupted", "t": 3.0, "utc": "", **msgspec.to_builtins(point), "restored": True}]
    assert at_stop(open_clock(again).records).remaining == pytest.approx(22.5)


def test_the_interrupted_record_holds_everything_the_restore_needs():
    point = ClockAtStop(remaining=41.2, seconds=90, extensions=2, facing_bet=True, street="turn", how=HOW_LOST,
                        cause="crash")
    assert ClockAtStop.from_record(msgspec.to_builtins(point)) == point
    old = {"remaining": 12.5, "facing_bet": True, "street": None, "how": "exact: same boot"}  # an older record
    assert ClockAtStop.from_record(old).seconds == 12.5 and ClockAtStop.from_record(old).extensions == 0


def test_a_clock_is_restored_only_on_its_own_table_and_mode():
    run = Run()
    run.command(0.0, "start")
    clock = open_clock(stored(run.messages))
    clock.mode = "shot"
    assert plan_recovery(clock, "Tafel 1", "Tafel 1", "shot").restored
    other = plan_recovery(clock, "Tafel 2", "Tafel 1", "shot")
    assert (other.restored, Interrupted.of(other)["table"]) == (False, "Tafel 2")
    assert not plan_recovery(clock, "Tafel 1", "Tafel 1", "clock").restored


def test_a_hung_device_is_taken_as_stopped_at_its_last_heartbeat():
    alive = Alive(t=100.0, clock=ClockRef(seq=3))
    assert lost_message(alive, 0.01, "").t == pytest.approx(100.01)  # killed at once: the end of the pipe
    assert lost_message(alive, 25.0, "").t == 100.0  # hung, then killed: the last sign of life
    assert lost_message(alive, HEARTBEAT, "").clock == ClockRef(seq=3)
