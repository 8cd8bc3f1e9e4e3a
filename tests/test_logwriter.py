"""The log writer process's reading of the pipe: what it records when the device dies."""

import io
import json

from helpers import wait_until
from shotclock.adapters.logwriter import _Inbox, heard


def lines(*messages):
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


ALIVE = {"control": "alive", "t": 5.0, "clock": {"seq": 1}}
DECISION = {"seq": 2, "clock": {"seq": 1}, "type": "decision", "t": 5.1, "utc": "", "data": {}}


def lost_of(inbox):
    wait_until(lambda: inbox.eof, what="the end of the pipe")
    return [m for m in inbox.messages if m.get("type") == "lost"]


def test_a_device_killed_after_a_ruling_but_before_its_next_heartbeat_charges_no_clock():
    # The ruling's record reached the pipe, the heartbeat that says no clock runs did not (the device died
    # between the two writes): the lost record belonged to the decided clock.
    [lost] = lost_of(_Inbox(lines(ALIVE, DECISION)))
    assert lost["clock"] is None and lost["data"]["heard_at"] == 5.0


def test_a_device_killed_while_its_clock_runs_charges_that_clock():
    other = dict(DECISION, clock={"seq": 9})  # another clock's ruling says nothing about this one
    [lost] = lost_of(_Inbox(lines(ALIVE, other)))
    assert lost["clock"] == {"seq": 1}


def test_heard_keeps_the_last_heartbeat_and_forgets_a_decided_clock():
    assert heard(None, ALIVE) is ALIVE
    assert heard(ALIVE, {"type": "beep", "clock": {"seq": 1}}) is ALIVE
    assert heard(ALIVE, DECISION) == dict(ALIVE, clock=None)
    assert heard(None, DECISION) is None
