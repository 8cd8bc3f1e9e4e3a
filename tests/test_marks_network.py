"""The floor marks a player over a real mosquitto: `shotclock send mark`, who marked (the login the broker proved),
the mark in the table's state, a table move that takes it along, and a table without seat tracking that refuses."""

import json

from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.cli import main
from shotclock.core.topics import table_topic

SEATS = '[shot]\npreflop = 20\n[seats]\ntrack = true\ncount = 6\n'


def send(capsys, broker, login, table, *argv):
    code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                 str(broker.credentials_file(login)), "--table", table, "--json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_a_mark_from_the_floor_names_who_made_it_and_moves_with_the_player(tmp_path, capsys):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1", "2"], floor=["anna"]) as broker:
        watch = Inbox(broker.client("collector"), table_topic("test", "1", "status"),
                      table_topic("test", "2", "status"), table_topic("test", "1", "state"))
        one = RunningDevice(network_config(broker, "1", mode="shot", extra=SEATS), tmp_path / "one")
        two = RunningDevice(network_config(broker, "2", mode="shot"), tmp_path / "two")  # no seat tracking
        try:
            for table in ("1", "2"):
                watch.wait_for(lambda m, table=table: m.topic == table_topic("test", table, "status")
                               and json.loads(m.payload)["online"])
            assert send(capsys, broker, "floor", "1", "seat", "--seat", "4", "--player", "Ana Costa")[0] == 0
            code, ack, _ = send(capsys, broker, "floor-anna", "1", "mark", "--seat", "4", "--mark", "clock",
                                "--mark-seconds", "10")
            assert code == 0, ack
            check("ack", ack)
            assert ack["outputs"][0] == {"t": ack["outputs"][0]["t"], "type": "mark", "seat": 4, "change": "marked",
                                         "mark": "clock", "mark_seconds": 10, "name": "Ana Costa",
                                         "by": "floor-anna"}
            state = watch.wait_for(lambda m: m.topic == table_topic("test", "1", "state") and any(
                s.get("mark") == "clock" for s in json.loads(m.payload).get("seats", [])))
            check("state", json.loads(state.payload))
            # Seat tracking off: one reason, in the ack.
            code, ack, _ = send(capsys, broker, "floor", "2", "mark", "--seat", "4", "--mark", "warning")
            assert code == 1 and ack["reason"].startswith("'mark' needs seat tracking (seats.track): without it the "
                                                          "table does not know whose turn it is")
            # A move: the empty's ack carries the mark, and a seat command brings it.
            left = send(capsys, broker, "floor", "1", "empty", "--seat", "4")[1]["outputs"][0]
            assert (left["mark"], left["mark_seconds"]) == ("clock", 10)
            code, ack, _ = send(capsys, broker, "floor", "1", "seat", "--seat", "6", "--player", "Ana Costa",
                                "--mark", left["mark"], "--mark-seconds", str(left["mark_seconds"]))
            assert code == 0 and one.device.loop.table.state.seats.mark(6) == ("clock", 10)
            code, ack, _ = send(capsys, broker, "floor-anna", "1", "unmark", "--seat", "6")
            assert code == 0 and ack["outputs"][0]["change"] == "unmarked"
        finally:
            one.stop()
            two.stop()
        capsys.readouterr()
        assert main(["log", "--state-dir", str(tmp_path / "one"), "replay", "--check"]) == 0, capsys.readouterr()
        import sqlite3

        db = sqlite3.connect(tmp_path / "one" / "shotclock.db")
        marks = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'mark' ORDER BY id")]
        assert [(m["change"], m["by"]) for m in marks] == [("marked", "floor-anna"), ("unmarked", "floor-anna")]


def test_send_checks_a_mark_before_it_connects(capsys, tmp_path):
    creds = tmp_path / "c.toml"
    creds.write_text('username = "floor"\npassword = "x"\n')
    base = ["send", "--venue", "test", "--credentials", str(creds), "--table", "1", "--broker", "127.0.0.1:1"]
    assert main(base + ["mark", "--seat", "3"]) == 2
    assert capsys.readouterr().err.strip() == "shotclock: the 'mark' command needs 'mark' (warning or clock)"
    assert main(base + ["mark", "--seat", "3", "--mark", "clock", "--mark-seconds", "1000"]) == 2
    assert capsys.readouterr().err.strip() == \
        "shotclock: --mark-seconds: must be a number of seconds from 5 to 300, not 1000.0"
    assert main(base + ["mark", "--seat", "3", "--mark", "warning", "--mark-seconds", "10"]) == 2
    assert capsys.readouterr().err.strip() == \
        "shotclock: the command: a warning takes no 'mark_seconds' (only a clock mark has its own clock)"
