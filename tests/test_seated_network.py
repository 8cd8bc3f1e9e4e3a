"""Seat commands from the floor over a real mosquitto: `shotclock send`, a table move with chips and bank."""

import json

from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.cli import main
from shotclock.core.topics import table_topic

SEATS = '[shot]\nallowance = 3\n[seats]\ntrack = true\ncount = 6\nbank = 120\n'


def send(capsys, broker, table, *argv):
    code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                 str(broker.credentials_file("floor")), "--table", table, "--json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_a_player_moves_between_tables_with_their_chips_and_bank(broker, tmp_path, capsys):
    watch = Inbox(broker.client("collector"), table_topic("test", "1", "status"), table_topic("test", "2", "status"))
    one = RunningDevice(network_config(broker, "1", mode="shot", extra=SEATS), tmp_path / "one")
    two = RunningDevice(network_config(broker, "2", mode="shot", extra=SEATS), tmp_path / "two")
    try:
        for table in ("1", "2"):
            watch.wait_for(lambda m, table=table: m.topic == table_topic("test", table, "status")
                           and json.loads(m.payload)["online"])
        code, ack, _ = send(capsys, broker, "1", "seat", "--seat", "5", "--player", "Ana Costa")
        assert code == 0 and ack["outputs"][0]["name"] == "Ana Costa"
        code, ack, _ = send(capsys, broker, "1", "top_up", "--chips", "2", "--seconds", "30")
        assert code == 0
        code, ack, _ = send(capsys, broker, "1", "empty", "--seat", "5")
        check("ack", ack)
        left = ack["outputs"][0]
        assert (left["name"], left["bank"], left["chips"]) == ("Ana Costa", 150, 5)
        code, ack, _ = send(capsys, broker, "2", "empty", "--seat", "2")
        code, ack, _ = send(capsys, broker, "2", "seat", "--seat", "2", "--player", "Ana Costa",
                            "--bank", str(left["bank"]), "--chips", str(left["chips"]))
        assert code == 0 and ack["outputs"][0]["bank"] == 150 and ack["outputs"][0]["chips"] == 5
        code, ack, _ = send(capsys, broker, "2", "button", "--seat", "3")
        assert code == 0
        code, ack, err = send(capsys, broker, "2", "empty", "--seat", "9")  # a table of six
        assert code == 1 and ack["outcome"] == "ignored" and ack["reason"] == "seat must be a number from 1 to 6, not 9"
        seats = two.device.loop.table.state.seats
        assert seats.name(2) == "Ana Costa" and seats.bank(2) == 150 and seats.button == 3
        code, ack, _ = send(capsys, broker, "2", "seating", "--seating", str(seating(tmp_path)), "--seats", "6")
        assert code == 0 and two.device.loop.table.state.seats.name(6) == "Bo, Li"
    finally:
        one.stop()
        two.stop()
    # The floor's commands are in the log with their fields: the run replays to the same records.
    for folder in ("one", "two"):
        assert main(["log", "--state-dir", str(tmp_path / folder), "replay", "--check"]) == 0, capsys.readouterr()


def seating(tmp_path):
    path = tmp_path / "seating.csv"
    path.write_text('seat,name\n2,Ana Costa\n6,"Bo, Li"\n')
    return path


def test_send_refuses_a_bad_command_before_it_connects(capsys, tmp_path):
    creds = tmp_path / "c.toml"
    creds.write_text('username = "floor"\npassword = "x"\n')
    base = ["send", "--venue", "test", "--credentials", str(creds), "--table", "1", "--broker", "127.0.0.1:1"]
    assert main(base + ["empty"]) == 2
    assert capsys.readouterr().err.strip() == "shotclock: the 'empty' command needs 'seat' (a seat number from 1 to 10)"
    assert main(base + ["seat", "--seat", "3", "--player", "a\tb"]) == 2
    assert "control characters" in capsys.readouterr().err
    bad = tmp_path / "s.csv"
    bad.write_text("1,Ana\n1,Bo\n")
    assert main(base + ["seating", "--seating", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {bad}: line 2: seat 1 is given twice (line 1 too)"


def test_the_floors_ledger_follows_a_player_by_name_across_tables(broker, tmp_path, capsys):
    import sqlite3

    from helpers import wait_until
    from test_collector import start_collector

    archive, collector = start_collector(broker, tmp_path / "floor")
    config = SEATS + "[device]\nhold = 0.3\n"
    one = RunningDevice(network_config(broker, "1", mode="shot", extra=config), tmp_path / "one")
    two = RunningDevice(network_config(broker, "2", mode="shot", extra=config), tmp_path / "two")
    try:
        # Table 1: button 1, blinds 2 and 3: Ana at seat 4 acts first, and takes a chip.
        assert send(capsys, broker, "1", "seat", "--seat", "4", "--player", "Ana Costa")[0] == 0
        one.tap("street", hold=0.6)  # a new hand
        wait_until(lambda: one.device.loop.table.state.seats.turn == 4, what="a hand on table 1")
        for command in ("start", "extend"):
            code, ack, err = send(capsys, broker, "1", command)
            assert code == 0, (command, ack, err)
        one.tap("action")  # the dealer: she acted
        wait_until(lambda: one.device.loop.table.state.on_clock == 5, what="seat 5's clock")
        # She moves to table 2, seat 2, where the button is put so that she acts first too.
        left = send(capsys, broker, "1", "empty", "--seat", "4")[1]["outputs"][0]
        assert send(capsys, broker, "2", "seat", "--seat", "2", "--player", "Ana Costa", "--bank", str(left["bank"]),
                    "--chips", str(left["chips"]))[0] == 0
        assert send(capsys, broker, "2", "button", "--seat", "5")[0] == 0
        two.tap("street", hold=0.6)
        wait_until(lambda: two.device.loop.table.state.seats.turn == 2, what="a hand on table 2")
        assert send(capsys, broker, "2", "start")[0] == 0
        two.tap("action")
        wait_until(lambda: two.device.loop.table.state.on_clock == 3, what="seat 3's clock")
        logs = [sqlite3.connect(tmp_path / folder / "shotclock.db") for folder in ("one", "two")]
        total = lambda: sum(db.execute("SELECT COUNT(*) FROM records").fetchone()[0] for db in logs)
        wait_until(lambda: archive.count() == total(), what="every record in the archive")
    finally:
        one.stop()
        two.stop()
        collector.stop()
    archive.close()
    capsys.readouterr()
    assert main(["log", "--collected", str(tmp_path / "floor"), "ledger", "--json"]) == 0
    lines = json.loads(capsys.readouterr().out)
    ana = [line for line in lines if line["player"] == "Ana Costa"]
    assert len(ana) == 1 and ana[0]["decisions"] == 2 and ana[0]["extensions"] == 1


def test_send_with_a_login_that_may_not_command_says_so_not_that_the_table_did_not_answer(broker, tmp_path, capsys):
    device = RunningDevice(network_config(broker, "1"), tmp_path / "one")
    try:
        for login in ("overlay", "table-2", "table-1"):  # read-only; another table; the table itself
            code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                         str(broker.credentials_file(login)), "--table", "1", "--wait", "30", "pause"])
            out, err = capsys.readouterr()
            assert code == 2 and not out, (login, out, err)
            assert f"not allowed for this login ('{login}' may not command table 1)" in err, err
            assert "did not answer" not in err and len(err.strip().splitlines()) == 1
    finally:
        device.stop()
