"""The tournament clock's process over a real Mosquitto (``shotclock tournament run`` in a process of its own): the
floor's commands answered in one line, the state retained for a late reader, the room's hand-for-hand taking RP-8's
minutes off, the changes archived, and a kill -9 that neither gains nor loses tournament time beyond the outage it
states."""

from __future__ import annotations

import json
import re
import signal
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_schemas import check
from tournament_clock import Clock, latest, remaining_now
from shotclock.cli import main
from shotclock.core.roomstate import next_room_state
from shotclock.core.topics import hand_for_hand_topic, tournament_topic

STRUCTURE = """title = "Sunday 250"
[[stage]]
small_blind = 25
big_blind = 50
minutes = 20
[[stage]]
small_blind = 50
big_blind = 100
ante = 100
big_blind_ante = true
minutes = 20
[[stage]]
break = true
name = "dinner"
minutes = 30
[[stage]]
small_blind = 100
big_blind = 200
minutes = 20
"""


@pytest.fixture
def venue(tmp_path):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1", "2"]) as broker:
        structure = tmp_path / "sunday.toml"
        structure.write_text(STRUCTURE)
        inbox = Inbox(broker.client("floor"), tournament_topic("test", "main", "#"))
        process = Clock(broker, tmp_path)
        yield broker, inbox, process, structure
        process.kill()


def command(broker, capsys, *args: str) -> tuple[int, str]:
    code = main(["tournament", *args[:1], "--broker", f"127.0.0.1:{broker.port}", "--venue", "test", "--credentials",
                 str(broker.credentials_file("floor")), "--id", "main", *args[1:]])
    said = capsys.readouterr()
    return code, (said.out + said.err).strip()


def test_the_floor_runs_the_clock_and_every_command_is_answered_in_one_line(venue, capsys):
    broker, inbox, clock, structure = venue
    clock.start("--structure", str(structure))
    first = latest(inbox)
    assert (first.title, first.level, first.started, first.scope.rooms) == ("Sunday 250", 1, False, ("Main",))
    assert command(broker, capsys, "pause") == (1, "tournament main: pause: not done: the clock has not started")
    code, said = command(broker, capsys, "start")
    assert code == 0 and said.startswith("tournament main: start: started: level 1, 20:00 left"), said
    code, said = command(broker, capsys, "take", "300")
    assert code == 0 and "adjusted: level 1, 15:0" in said, said
    code, said = command(broker, capsys, "level", "2")
    assert code == 0 and "level: now level 2, 20:00 left" in said, said
    assert command(broker, capsys, "level", "9")[1] == \
        "tournament main: level: not done: the structure has no level 9 (it has 1 to 3)"
    code, said = command(broker, capsys, "next")
    assert code == 0 and "next: now the break after level 2 (dinner), 30:00 left" in said, said
    state = latest(inbox, where=lambda s: s.stage.is_break)
    assert (state.stage.name, state.level, state.next_level, state.running) == ("dinner", None, 3, True)
    assert command(broker, capsys, "level", "x")[0] == 2  # plain digits, or one line and exit 2
    assert command(broker, capsys, "players", "123") == (0, "tournament main: players: 123 players")
    assert latest(inbox, where=lambda s: s.players == 123).players == 123
    code, said = command(broker, capsys, "status")
    assert code == 0 and re.fullmatch(r"tournament main \(Sunday 250\): break: dinner, (30:00|29:\d\d) left, running, "
                                      r"123 players",
                                      said), said


def test_a_kill_9_neither_gains_nor_loses_time_beyond_the_outage_it_states(venue, capsys):
    broker, inbox, clock, structure = venue
    clock.start("--structure", str(structure))
    latest(inbox)
    assert command(broker, capsys, "start")[0] == 0
    before = latest(inbox, where=lambda s: s.running)
    clock.kill()  # a power cut of the clock's machine: nothing flushed, no clean status
    killed_at = time.time()
    time.sleep(2.0)  # the outage (a real one: the clock counts it as played)
    clock.start()  # no --structure: the journal has it
    back = latest(inbox, after=killed_at, where=lambda s: s.away_s is not None)
    # Counted as played: the level's time left is what a clock that never stopped would show now.
    assert back.away_s >= 1.5 and back.running and back.level == 1
    # (both read at one moment: a clock that never stopped, and the one back from the kill)
    assert abs(remaining_now(back) - remaining_now(before)) < 1.0, (remaining_now(back), remaining_now(before))
    code, said = command(broker, capsys, "status")
    assert code == 0 and "was away" in said, said
    code, said = command(broker, capsys, "add", str(round(back.away_s)))  # the floor gives the outage back
    assert code == 0
    after = latest(inbox, where=lambda s: s.away_s is None and s.seq > back.seq)
    assert abs(remaining_now(after) - (remaining_now(before) + round(back.away_s))) < 1.0


def test_hand_for_hand_stops_the_clock_and_a_release_takes_its_minutes_off(venue, capsys):
    broker, inbox, clock, structure = venue
    clock.start("--structure", str(structure))
    latest(inbox)
    command(broker, capsys, "start")
    floor = broker.client("floor")
    on = next_room_state(None, "hand_for_hand", "Main", None, by="floor-anna", now_ms=int(time.time() * 1000))
    floor.publish(hand_for_hand_topic("test", "Main"), on.encode(), qos=1, retain=True).wait_for_publish(10)
    stopped = latest(inbox, where=lambda s: s.hand_for_hand)
    assert not stopped.running
    released = next_room_state(on, "release_hand", "Main", None, by="floor-anna", now_ms=int(time.time() * 1000))
    floor.publish(hand_for_hand_topic("test", "Main"), released.encode(), qos=1, retain=True).wait_for_publish(10)
    after = latest(inbox, where=lambda s: s.remaining is not None and s.remaining <= stopped.remaining - 119)
    assert after.remaining == pytest.approx(stopped.remaining - 120, abs=0.01) and not after.running


def test_a_clock_that_is_gone_is_said_unreachable(venue, capsys):
    broker, inbox, clock, structure = venue
    clock.start("--structure", str(structure))
    latest(inbox)
    clock.process.send_signal(signal.SIGKILL)
    clock.process.wait(30)
    wait_until(lambda: any(m.topic.endswith("/status") and b'"online":false' in m.payload for m in inbox.messages),
               what="the clock's Last Will")
    statuses = [check("tournament_status", m.payload) for m in inbox.messages if m.topic.endswith("/status")]
    assert statuses[0]["online"] and statuses[-1] == {"online": False, "id": "main", "clean": False}
    code, said = command(broker, capsys, "status")
    assert code == 1 and "UNREACHABLE" in said, said


def test_no_clock_no_answer_and_a_wrong_id_is_one_line(venue, capsys):
    broker, inbox, clock, structure = venue
    code, said = command(broker, capsys, "start", "--wait", "0.5")
    assert code == 2 and said == "shotclock: tournament main: no answer within 0.5 s (is its clock running? " \
                                 "'shotclock tournament status --id main')", said
    assert main(["tournament", "start", "--venue", "test", "--credentials", "x", "--id", "a b"]) == 2
    assert capsys.readouterr().err.strip() == \
        "shotclock: --id 'a b' must be 1 to 32 letters, digits, '-' or '_'"


def test_every_change_is_archived_beside_the_rulings_with_who_made_it_and_none_twice(venue, capsys, tmp_path):
    from shotclock.adapters.archive import Archive
    from shotclock.floor.collector import Collector

    broker, inbox, clock, structure = venue
    archive = Archive(tmp_path / "floor")
    collector = Collector(archive, "127.0.0.1", broker.port, "test", "collector", broker.passwords["collector"])
    collector.start()
    try:
        assert collector.connected.wait(60)
        clock.start("--structure", str(structure))
        latest(inbox)
        assert command(broker, capsys, "start")[0] == 0
        assert command(broker, capsys, "take", "60")[0] == 0

        def archived():
            rows = archive.db.execute("SELECT seq, type, data FROM events WHERE table_id = 'tournament:main' "
                                      "ORDER BY seq")
            return [(seq, dict(json.loads(data), type=kind)) for seq, kind, data in rows]

        wait_until(lambda: len(archived()) >= 3, what="the clock's changes in the archive")
        clock.kill()
        clock.start()  # sends every change again: the archive keeps each once
        latest(inbox, where=lambda s: s.away_s is not None)
        wait_until(lambda: len(archived()) >= 4, what="the restore's change")
        rows = archived()
        assert [r["why"] for _, r in rows] == ["loaded", "started", "adjusted", "restored"]
        assert [r["by"] for _, r in rows[:3]] == ["floor"] * 3 and rows[0][1]["type"] == "tournament"
        assert len({seq for seq, _ in rows}) == len(rows)
    finally:
        collector.stop()
        archive.close()


def test_the_command_line_says_which_tables_follow_the_clock_and_the_journal_keeps_its_tournament(tmp_path, capsys):
    credentials = tmp_path / "floor.toml"
    credentials.write_text('username = "floor"\npassword = "x"\n')
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    run = ["tournament", "run", "--broker", "127.0.0.1:9", "--venue", "test", "--credentials", str(credentials),
           "--journal", str(tmp_path / "main.journal"), "--structure", str(structure)]

    def said(*args: str) -> tuple[int, str]:
        code = main([*run, *args])
        return code, capsys.readouterr().err.strip()

    assert said("--id", "main") == (2, "shotclock: say which tables follow this tournament: --room, --section, "
                                       "--tables or --venue-wide")
    assert said("--id", "main", "--venue-wide", "--room", "Main") == (
        2, "shotclock: --venue-wide is every table of the venue: leave out --room, --section and --tables")
    from shotclock.adapters.clock_journal import ClockJournal

    journal = ClockJournal(tmp_path / "main.journal")
    journal.set_meta(id="main")
    journal.close()
    assert said("--id", "sunday", "--venue-wide") == (
        2, f"shotclock: {tmp_path / 'main.journal'}: the journal of tournament 'main', not 'sunday'")


def test_only_a_floor_login_commands_the_clock_and_only_under_its_own_name(tmp_path):
    """The ACL (shotclock broker-config): a table's or the overlay's login can neither command the clock nor publish
    its state, and a floor person cannot command it under another's name; the clock says who did what."""
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1"], floor=["anna", "ben"]) as broker:
        inbox = Inbox(broker.client("floor"), tournament_topic("test", "main", "#"))
        clock = Clock(broker, tmp_path)
        try:
            clock.start("--structure", str(structure), scope=("--venue-wide",))
            latest(inbox)
            fake = {"id": "main", "title": "fake", "seq": 10 ** 15, "at_ms": 1, "index": 0, "level": 1,
                    "stage": {"minutes": 1}, "remaining": 1, "started": True, "running": False, "paused": False,
                    "hand_for_hand": False, "finished": False}
            for login in ("table-1", "overlay"):
                other = broker.client(login)
                other.publish(tournament_topic("test", "main", "state"), json.dumps(fake), qos=1,
                              retain=True).wait_for_publish(30)
                other.publish(tournament_topic("test", "main", f"cmd/by/{login}"),
                              json.dumps({"id": login, "name": "start"}), qos=1).wait_for_publish(30)
            anna = broker.client("floor-anna")
            anna.publish(tournament_topic("test", "main", "cmd/by/floor-ben"),
                         json.dumps({"id": "as-ben", "name": "start"}), qos=1).wait_for_publish(30)
            anna.publish(tournament_topic("test", "main", "cmd/by/floor-anna"),
                         json.dumps({"id": "a1", "name": "start"}), qos=1).wait_for_publish(30)
            ack = inbox.wait_for(lambda m: m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == "a1")
            assert ack is not None and json.loads(ack.payload)["outcome"] == "done"
            started = inbox.wait_for(lambda m: m.topic.endswith("/event") and
                                     json.loads(m.payload)["record"]["why"] == "started")
            assert started is not None and json.loads(started.payload)["record"]["by"] == "floor-anna"
            acks = {json.loads(m.payload)["id"] for m in list(inbox.messages) if m.topic.endswith("/cmd/ack")}
            assert acks == {"a1"}  # the others never reached the clock
            assert not any(m.topic.endswith("/state") and b'"fake"' in m.payload for m in list(inbox.messages))
        finally:
            clock.kill()
