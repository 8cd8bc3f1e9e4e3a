"""A floor command's ack means its records are on disk: a power cut right after the ack keeps them."""

import json
import sqlite3
import threading
import time

from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.adapters.log import DB_NAME, DecisionLog
from shotclock.cli import main
from shotclock.core.topics import table_topic
from shotclock.shell.network import DurableAcks

SEATS = "[seats]\ntrack = true\ncount = 6\nbank = 60\n"


def test_an_ack_waits_for_the_commit_of_its_round_and_goes_at_once_when_the_log_fails():
    sent = []
    acks = DurableAcks(sent.append)
    acks.offer(b"a", after=3)
    acks.offer(b"b", after=5)
    acks.committed(4)
    assert sent == [b"a"] and acks.held == 1
    acks.committed(5)
    assert sent == [b"a", b"b"] and acks.held == 0
    acks.offer(b"c", after=5)  # its records were committed before it was offered
    assert sent[-1] == b"c"
    acks.offer(b"d", after=9)
    acks.committed(None)  # the log cannot be written: the floor still hears what the table did
    assert sent[-1] == b"d"
    acks.offer(b"e", after=10)
    assert sent[-1] == b"e"  # still failing: at once
    acks.committed(10)
    acks.offer(b"f", after=11)
    assert sent[-1] == b"e" and acks.held == 1  # written again: held until committed
    acks.offer(b"g", after=None)  # no log at all
    assert sent[-1] == b"g"


def test_a_seat_commands_ack_comes_only_once_its_records_are_in_the_log(broker, tmp_path, capsys):
    """The log writer is kept from committing for a moment (another connection holds the write lock): the ack
    must wait for the commit, and whoever gets it finds the seat, the name and the bank in the log at once."""
    watch = Inbox(broker.client("collector"), table_topic("test", "1", "status"))
    state = tmp_path / "one"
    device = RunningDevice(network_config(broker, "1", extra=SEATS), state)
    try:
        watch.wait_for(lambda m: json.loads(m.payload)["online"])
        for command in (["empty", "--seat", "4"], ["seat", "--seat", "4", "--player", "Ana Stroom", "--bank", "20"],
                        ["top_up", "--seconds", "45"]):
            blocker = sqlite3.connect(state / DB_NAME, isolation_level=None, timeout=10, check_same_thread=False)
            blocker.execute("BEGIN IMMEDIATE")  # the writer waits (its busy timeout is 1 s) until this ends
            released = []

            def release(blocker=blocker):
                released.append(time.monotonic())
                blocker.execute("COMMIT")
                blocker.close()

            timer = threading.Timer(0.8, release)
            timer.start()
            code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                         str(broker.credentials_file("floor")), "--table", "1", "--wait", "30", *command])
            acked = time.monotonic()
            rows = DecisionLog(state, readonly=True).rows("WHERE type IN ('command', 'seat', 'top_up')")
            timer.join()
            out = capsys.readouterr().out
            assert code == 0, out
            assert released and acked >= released[0], f"{command[0]}: acked while the log could not commit"
            assert rows and rows[-1]["type"] == ("top_up" if command[0] == "top_up" else "seat"), (command, rows[-1:])
        seat = [r for r in rows if r["type"] == "seat" and r["change"] == "seated"][-1]
        assert (seat["seat"], seat["name"], seat["bank"]) == (4, "Ana Stroom", 20)
        assert rows[-1]["seconds"] == 45
    finally:
        device.stop()
