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


def test_the_summary_names_each_table_that_did_not_take_it_once_and_the_same_reason_once(capsys):
    # ./dev floor, issue 36: "9 tables answered, 2 took it" named no table and no reason for the other 7.
    from argparse import Namespace

    from shotclock.floor.send_all import _summary
    from shotclock.floor.venue import VenueView

    view = VenueView("demo")
    for n in range(1, 41):
        online = n != 40
        body = {"online": online, "table": str(n), "boot": "0123456789ab", "room": "Main"}
        status = body if online else {**body, "clean": False}
        view.take(f"shotclock/v1/demo/table/{n}/status", json.dumps(status).encode())
    playing = {"outcome": "ignored", "reason": "this table is still playing its hand"}
    answers = {str(n): playing for n in range(1, 36)} | {"36": {"outcome": "done"}, "37": {"outcome": "done"}}
    args = Namespace(room="Main", section=None, wait=5.0)
    assert _summary(args, [str(n) for n in range(1, 41)], answers, view, None) == 1
    assert capsys.readouterr().err.splitlines() == [
        "2 of 40 tables in room 'Main' took it; 38 did not:",
        "  tables " + ", ".join(str(n) for n in range(1, 31)) + " and 5 more: refused: this table is still playing "
        "its hand",
        "  tables 38, 39: no answer within 5 s",
        "  table 40: offline: its connection was lost"]
    assert _summary(args, ["36", "37"], answers, view, None) == 0
    assert capsys.readouterr().err == "2 of 2 tables in room 'Main' took it\n"


def test_a_tournament_commands_answer_is_said_in_words():
    from shotclock.floor.said import said

    record = {"type": "hand_for_hand", "on": False, "waiting": False, "minutes": 2.5}
    assert said(dict(record, why="ended", hands=1)) == \
        "hand-for-hand ended after 1 hand (2.5 min off the tournament clock)"
    assert said(dict(record, why="started", hands=0, on=True)) == \
        "hand-for-hand started (2.5 min off the tournament clock a hand)"
    assert said({"type": "level_set", "hands": 0}) == "hands not counted from the next hand"
    assert said({"type": "rule_set", "why": "chosen", "rule_set": "", "next": "bubble"}) == \
        "rule set bubble from the next hand"
    assert ack_line("3", {"name": "release_hand", "outcome": "done", "outputs": [
        dict(record, why="released", hands=2, on=True)]}) == \
        "table 3: released: hand 2 of hand-for-hand (5 min off the tournament clock)"
