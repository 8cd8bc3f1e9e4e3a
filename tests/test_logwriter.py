"""The log writer process's reading of the pipe: what it records when the device dies."""

import io
import json

from helpers import wait_until
import msgspec
import pytest

from shotclock.adapters.logwriter import _Inbox, heard
from shotclock.core.log_records import Alive, Bye, ClockRef, LogRecord, read_message


def lines(*messages):
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


ALIVE = {"control": "alive", "t": 5.0, "clock": {"seq": 1}}
DECISION = {"seq": 2, "clock": {"seq": 1}, "type": "decision", "t": 5.1, "utc": "", "data": {}}


def lost_of(inbox):
    wait_until(lambda: inbox.eof, what="the end of the pipe")
    return [m for m in inbox.messages if m.type == "lost"]


def test_a_device_killed_after_a_ruling_but_before_its_next_heartbeat_charges_no_clock():
    # The ruling's record reached the pipe, the heartbeat that says no clock runs did not (the device died
    # between the two writes): the lost record belonged to the decided clock.
    [lost] = lost_of(_Inbox(lines(ALIVE, DECISION)))
    assert lost.clock is None and lost.data.heard_at == 5.0


def test_a_device_killed_while_its_clock_runs_charges_that_clock():
    other = dict(DECISION, clock={"seq": 9})  # another clock's ruling says nothing about this one
    [lost] = lost_of(_Inbox(lines(ALIVE, other)))
    assert lost.clock == ClockRef(seq=1)


def test_heard_keeps_the_last_heartbeat_and_forgets_a_decided_clock():
    alive, decision = read_message(ALIVE), read_message(DECISION)
    assert heard(None, alive) is alive
    assert heard(alive, msgspec.structs.replace(decision, type="beep")) is alive
    assert heard(alive, decision) == Alive(t=5.0, clock=None)
    assert heard(None, decision) is None


def test_the_pipe_messages_read_back_as_they_were_built():
    record = LogRecord(seq=4, clock=ClockRef(id=17), type="checkpoint", t=3.5, utc="2026-12-04T00:00:00.000000Z",
                       data={"remaining": 12.25})
    for message in (record, Alive(t=1.0, clock=None), Bye()):
        assert read_message(msgspec.json.encode(message)) == message
    session = read_message(b'{"seq": 1, "type": "session", "t": 0, "utc": "", "data": {}}')  # as documented
    assert (session.seq, session.clock, session.t) == (1, None, 0.0)


@pytest.mark.parametrize("line, problem", [
    (b'{"seq": 1, "clock": null, "type": "edge", "t": 1.0, "data": {}}', "utc"),  # a record without its date
    (b'{"control": "alive", "t": 1.0, "clock": {"seq": 1}, "extra": 1}', "extra"),
    (b'{"control": "sleep"}', "sleep"),
    (b'{"seq": 1, "clock": {"nr": 2}, "type": "edge", "t": 1.0, "utc": "", "data": {}}', "nr"),
    (b'[1, 2]', "object"),
])
def test_a_message_that_is_no_pipe_message_is_named(line, problem):
    with pytest.raises(ValueError, match=problem):
        read_message(line)


def test_a_damaged_message_is_skipped_and_the_ones_around_it_are_kept():
    damaged = {"seq": 3, "clock": None, "type": "edge"}  # cut short: no t, utc or data
    inbox = _Inbox(lines(DECISION, damaged, dict(DECISION, seq=4)))
    wait_until(lambda: inbox.eof, what="the end of the pipe")
    assert [m.seq for m in inbox.take()] == [2, 4]
