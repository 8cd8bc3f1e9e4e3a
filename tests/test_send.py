"""``shotclock send`` prints the table's answer as one line a person reads: ok with what it did, or refused with
the table's reason (exit 1); ``--json`` prints the ack itself."""

import json

from helpers import wait_until
from network_device import RunningDevice, network_config
from shotclock.cli import main
from shotclock.floor.said import ack_line

SEATS = "[seats]\ntrack = true\ncount = 6\n"


def send(capsys, broker, *argv):
    code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                 str(broker.credentials_file("floor")), "--table", "1", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_send_prints_ok_with_what_the_command_did_and_refused_with_the_reason(broker, tmp_path, capsys):
    dev = RunningDevice(network_config(broker, "1", extra=SEATS), tmp_path / "state")
    try:
        wait_until(lambda: dev.link.status.connected, what="the table online")
        code, out, err = send(capsys, broker, "seat", "--seat", "4", "--player", "Ana Costa")
        assert (code, err) == (0, "")
        assert out == "table 1: ok: seat: seat (seat 4, change seated, name Ana Costa)\n"
        code, out, err = send(capsys, broker, "seat", "--seat", "4", "--player", "Bo Li")
        assert code == 1 and out.startswith("table 1: refused: seat: ") and "Ana Costa" in out
        assert len(out.splitlines()) == 1 and "{" not in out
        code, out, err = send(capsys, broker, "--json", "empty", "--seat", "4")
        ack = json.loads(out)
        assert code == 0 and ack["outcome"] == "done" and ack["outputs"][0]["change"] == "emptied"
    finally:
        dev.stop()


def test_an_ack_line_rounds_long_numbers_and_says_when_nothing_changed():
    ack = {"name": "pause", "outcome": "done", "outputs": [{"t": 8.0, "type": "pause", "remaining": 9.999820051}]}
    assert ack_line("7", ack) == "table 7: ok: pause: pause (remaining 10)"
    assert ack_line("7", {"name": "bet", "outcome": "done", "outputs": []}) == "table 7: ok: bet: nothing changed"
    assert ack_line("7", {"name": "frob", "outcome": "refused", "reason": "unknown: frob"}) == \
        "table 7: refused: frob: unknown: frob"
