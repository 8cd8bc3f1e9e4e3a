"""``shotclock fleet``: simulated tables that play clocks against a real broker."""

import json

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_schemas import check
from shotclock.core.topics import all_tables
from shotclock.floor.fleet import Arrivals, Dealer, start_fleet
from shotclock.cli import main

FAST = "[clock]\nseconds = 1.5\ncountdown = 1\n"
FAST_SHOT = ('mode = "shot"\n[shot]\npreflop = 1.5\nflop = 1.5\nturn = 1.5\nriver = 1.5\ncountdown = 1\n'
             "extension = 1\n[device]\nhold = 0.3\n")


@pytest.mark.slow
def test_fleet_tables_play_clocks_and_publish_them(tmp_path):
    with MosquittoBroker(tmp_path / "broker", tables=[str(n) for n in range(1, 6)]) as broker:
        inbox = Inbox(broker.client("collector"), all_tables("test", "event"), all_tables("test", "status"))
        tables = start_fleet(5, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                             extra=FAST, shot=2, shot_extra=FAST_SHOT)
        assert [t.config["mode"] for t in tables] == ["clock", "clock", "clock", "shot", "shot"]
        dealer = Dealer(tables, seed=7, pace=0.05)
        dealer.start()
        try:
            decided = lambda: {json.loads(m.payload)["table"] for m in list(inbox.messages)
                               if m.topic.endswith("/event") and json.loads(m.payload)["record"]["type"] == "decision"}
            wait_until(lambda: len(decided()) == 5, what="a ruling from each table")
            assert decided() == {"1", "2", "3", "4", "5"}
            # The shot tables play hands: each action starts the next player's clock, a street ends a round.
            records = lambda table: [json.loads(m.payload)["record"] for m in list(inbox.messages)
                                     if m.topic.endswith("/event") and json.loads(m.payload)["table"] == table]
            streets = lambda: {r.get("street") for t in ("4", "5") for r in records(t) if r["type"] == "start"}
            wait_until(lambda: len(streets()) >= 2, what="shot tables playing two streets")
        finally:
            dealer.stop()
            for table in tables:
                table.stop()
        events = [check("event", m.payload) for m in list(inbox.messages) if m.topic.endswith("/event")]
        boots = {e["table"]: e["boot"] for e in events}
        assert len(set(boots.values())) == 5  # each table its own device identity
        offline = [json.loads(m.payload) for m in list(inbox.messages) if m.topic.endswith("/status")
                   and not json.loads(m.payload)["online"]]
        assert {s["table"] for s in offline} == {"1", "2", "3", "4", "5"} and all(s["clean"] for s in offline)
        # Each says where it stands (the dashboard's filters): 100 tables a room, 10 a section.
        online = [check("status", m.payload) for m in list(inbox.messages) if m.topic.endswith("/status")
                  and json.loads(m.payload)["online"]]
        assert {(s["room"], s["section"]) for s in online} == {("Main", "A")}
        assert {(check("status", s)["room"], s["section"]) for s in offline} == {("Main", "A")}  # its clean stop too


def test_fleet_tables_stand_in_rooms_of_100_and_sections_of_10():
    from shotclock.config.loading import parse_config
    from shotclock.floor.fleet import fleet_place

    places = {n: parse_config("[network]\n" + fleet_place(str(n))) for n in (1, 10, 11, 100, 101, 500)}
    assert {n: (c["network.room"], c["network.section"]) for n, c in places.items()} == {
        1: ("Main", "A"), 10: ("Main", "A"), 11: ("Main", "B"), 100: ("Main", "J"), 101: ("Room 2", "A"),
        500: ("Room 5", "J")}


def test_fleet_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["fleet", "--tables", "0", "--venue", "v", "--credentials", str(tmp_path)]) == 2
    assert "--tables" in capsys.readouterr().err
    assert main(["fleet", "--tables", "2", "--venue", "v", "--credentials", str(tmp_path / "none")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["fleet", "--tables", "2", "--venue", "v", "--credentials", str(tmp_path), "--duration", "1"]) == 2
    assert "no credentials for table 1" in capsys.readouterr().err
    (tmp_path / "table-1.toml").write_text("")
    assert main(["fleet", "--tables", "1", "--venue", "v", "--credentials", str(tmp_path),
                 "--arrivals", str(tmp_path / "none" / "arrivals.jsonl")]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "--arrivals" in said[0] and "cannot be written" in said[0]


def statuses(inbox, online: bool) -> dict:
    """Each table's newest status message with ``online``, by table id."""
    found = {}
    for m in list(inbox.messages):
        if m.topic.endswith("/status") and m.payload and json.loads(m.payload)["online"] is online:
            found[json.loads(m.payload)["table"]] = json.loads(m.payload)
    return found


def press_each(tables) -> None:
    import time

    for table in tables:
        now = time.monotonic()
        table.press("floor", now)
        table.release("floor", now + 0.05)


@pytest.mark.slow
def test_a_fleet_runs_its_tables_on_a_few_threads_and_stops_them_cleanly(tmp_path):
    import threading

    from shotclock.floor.fleet_loop import CONNECTORS

    ids = [str(n) for n in range(1, 41)]
    with MosquittoBroker(tmp_path / "broker", tables=ids, websockets=False) as broker:
        inbox = Inbox(broker.client("collector"), all_tables("test", "event"), all_tables("test", "status"))
        threads_before = threading.active_count()
        tables = start_fleet(40, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                             extra=FAST)
        try:
            # Forty tables, each its own login and client id, on the loop's and the log writer's threads (and the
            # loop's few connector threads, which open connections).
            assert threading.active_count() - threads_before <= 2 + CONNECTORS
            wait_until(lambda: len(statuses(inbox, True)) == 40, what="every table online")
            press_each(tables)
            called = lambda: {json.loads(m.payload)["table"] for m in list(inbox.messages) if m.topic.endswith("/event")
                              and json.loads(m.payload)["record"]["type"] == "start"}
            wait_until(lambda: called() == set(ids), what="each table's clock call published")
        finally:
            loop = tables[0].fleet_loop
            for table in tables:  # one by one, as a test or a script stops them
                table.stop()
        assert statuses(inbox, False).keys() == set(ids) and all(s["clean"] for s in statuses(inbox, False).values())
        loop.thread.join(10)
        assert not loop.thread.is_alive()  # it ends with its last table


@pytest.mark.slow
def test_fleet_tables_reconnect_when_the_broker_comes_back(tmp_path):
    ids = [str(n) for n in range(1, 11)]
    with MosquittoBroker(tmp_path / "broker", tables=ids, websockets=False) as broker:
        tables = start_fleet(10, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                             extra=FAST)
        try:
            wait_until(lambda: all(t.link.status.connected for t in tables), what="every table connected")
            broker.kill()
            wait_until(lambda: not any(t.link.status.connected for t in tables), what="every table offline")
            broker.start()
            wait_until(lambda: all(t.link.status.connected for t in tables), what="every table back")
            inbox = Inbox(broker.client("collector"), all_tables("test", "event"))
            press_each(tables)
            wait_until(lambda: {json.loads(m.payload)["table"] for m in list(inbox.messages)} == set(ids),
                       what="an event from each table after the broker's return")
            assert tables[0].fleet_loop.thread.is_alive() and not tables[0].fleet_loop.failures
        finally:
            for table in tables:
                table.stop()


@pytest.mark.slow
def test_fleet_says_in_one_line_that_its_tables_lost_the_broker(tmp_path):
    import subprocess
    import sys

    ids = [str(n) for n in range(1, 21)]
    with MosquittoBroker(tmp_path / "broker", tables=ids, websockets=False) as broker:
        inbox = Inbox(broker.client("collector"), all_tables("test", "status"))
        log = open(tmp_path / "fleet.log", "w+")
        fleet = subprocess.Popen([sys.executable, "-m", "shotclock", "fleet", "--tables", "20", "--idle",
                                  "--broker", f"127.0.0.1:{broker.port}", "--venue", "test",
                                  "--credentials", str(broker.folder / "credentials")],
                                 stdout=subprocess.DEVNULL, stderr=log)
        text = lambda: (tmp_path / "fleet.log").read_text()
        try:
            wait_until(lambda: len(statuses(inbox, True)) == 20, what="every table online", alive=fleet)
            broker.kill()
            wait_until(lambda: "lost the broker" in text(), what="the fleet saying so", alive=fleet)
            broker.start()
            wait_until(lambda: "connected to the broker" in text() and "again" in text(), what="the fleet back",
                       alive=fleet)
        finally:
            fleet.terminate()
            assert fleet.wait(60) == 0
            log.close()
        lines = text().splitlines()
        assert len([line for line in lines if "lost the broker" in line]) == 1, text()
        assert "Traceback" not in text()


@pytest.mark.slow
def test_fleet_tables_connect_over_tls(tmp_path, certificate):
    with MosquittoBroker(tmp_path / "broker", tables=["1", "2", "3"], websockets=False, tls=certificate) as broker:
        inbox = Inbox(broker.client("collector"), all_tables("test", "event"), all_tables("test", "status"))
        tables = start_fleet(3, "127.0.0.1", broker.tls_port, "test", broker.folder / "credentials",
                             tmp_path / "fleet", tls=True, ca_file=certificate[0], extra=FAST)
        try:
            wait_until(lambda: len(statuses(inbox, True)) == 3, what="every table online over TLS")
            press_each(tables)
            wait_until(lambda: {json.loads(m.payload)["table"] for m in list(inbox.messages)
                                if m.topic.endswith("/event")} == {"1", "2", "3"}, what="an event from each table")
        finally:
            for table in tables:
                table.stop()


@pytest.mark.slow
def test_fleet_tables_play_hand_for_hand_by_their_own_rules(tmp_path):
    import time

    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from shotclock.core.topics import venue_cmd_topic

    ids = [str(n) for n in range(1, 6)]
    with MosquittoBroker(tmp_path / "broker", tables=ids, websockets=False) as broker:
        floor = broker.client("floor")
        inbox = Inbox(floor, all_tables("test", "cmd/ack"), all_tables("test", "state"), all_tables("test", "status"))

        def send(name):
            props = Properties(PacketTypes.PUBLISH)
            props.MessageExpiryInterval = 5
            ident = f"{name}-{time.monotonic_ns()}"
            floor.publish(venue_cmd_topic("test"), json.dumps({"id": ident, "name": name, "sender": "floor",
                                                               "sent_ms": int(time.time() * 1000)}),
                          qos=1, properties=props)
            return ident

        def acks(ident):
            return {m.topic.split("/")[4]: json.loads(m.payload) for m in list(inbox.messages)
                    if m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == ident}

        def waiting():
            newest = {}
            for m in list(inbox.messages):
                if m.topic.endswith("/state"):
                    newest[m.topic.split("/")[4]] = (json.loads(m.payload).get("hand_for_hand") or {}).get("waiting")
            return {t for t, w in newest.items() if w}

        arrivals = Arrivals(tmp_path / "arrivals.jsonl")
        tables = start_fleet(5, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                             extra=FAST + "[device]\nhold = 0.3\n", arrivals=arrivals)
        dealer = Dealer(tables, seed=3, pace=0.05, deal=True)
        try:
            wait_until(lambda: len(statuses(inbox, True)) == 5, what="every table online")
            started = send("hand_for_hand")
            wait_until(lambda: acks(started).keys() == set(ids), what="every table in hand-for-hand")
            dealer.start()  # each dealer deals its next hand: the table waits for the floor
            wait_until(lambda: waiting() == set(ids), what="every table waiting for the release")
            before = time.monotonic()
            released = send("release_hand")
            wait_until(lambda: acks(released).keys() == set(ids), what="every table's ack of the release")
            acked = time.monotonic()
            for ack in acks(released).values():
                assert ack["outcome"] == "done"
                assert [(o["type"], o["why"], o["hands"]) for o in ack["outputs"]] == [("hand_for_hand", "released", 1)]
        finally:
            dealer.stop()
            for table in tables:
                table.stop()
        # --arrivals: when the release reached each table, on this process's monotonic clock, before its ack came
        arrivals.write()
        reached = [json.loads(line) for line in (tmp_path / "arrivals.jsonl").read_text().splitlines()]
        of_release = {a["table"]: a["t"] for a in reached if a["id"] == released}
        assert of_release.keys() == set(ids)
        assert all(before <= t <= acked for t in of_release.values())
        assert {a["id"] for a in reached} >= {started, released}


def test_a_stop_while_the_tables_start_stops_the_ones_started(tmp_path):
    import threading

    from mqtt_broker import free_port

    for n in (1, 2, 3):
        (tmp_path / f"table-{n}.toml").write_text(f'username = "table-{n}"\npassword = "x"\n')
    cancel = threading.Event()
    cancel.set()  # Ctrl-C came while the first table started
    before = threading.active_count()
    # No broker on the port: the tables try to connect, which never holds the stop up.
    assert start_fleet(3, "127.0.0.1", free_port(), "test", tmp_path, tmp_path / "fleet", cancel=cancel) == []
    assert (tmp_path / "fleet" / "1").is_dir() and not (tmp_path / "fleet" / "2").exists()
    wait_until(lambda: threading.active_count() <= before + 1, what="the fleet loop's end")  # the log writer stays


def test_a_table_connecting_to_a_broker_that_does_not_answer_holds_up_no_other(tmp_path):
    import socket

    from shotclock.adapters.mqtt_login import LinkSettings
    from shotclock.floor.fleet_link import LoopLink
    from shotclock.floor.fleet_loop import FleetLoop

    deaf = socket.socket()
    deaf.bind(("127.0.0.1", 0))
    deaf.listen(0)  # never accepted: once its queue is full the kernel drops each new handshake
    answering = socket.socket()
    answering.bind(("127.0.0.1", 0))
    answering.listen(8)  # the kernel completes the handshake (the CONNECT then waits for its CONNACK)
    queued = []
    loop = FleetLoop()
    loop.join()
    try:
        for _ in range(4):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(deaf.getsockname())
            queued.append(s)
        stuck, other = (LoopLink(loop, LinkSettings(*server.getsockname(), "test", table, f"table-{table}", "pw"), "b0")
                        for server, table in ((deaf, "1"), (answering, "2")))
        loop.call_soon(lambda: stuck.connect("table-1", "pw", None))  # as the sender does, on the loop
        wait_until(lambda: stuck.client is not None and stuck._attempting, what="table 1 connecting")
        during = []
        loop.call_soon(lambda: during.append(stuck._attempting))
        loop.call_soon(lambda: other.connect("table-2", "pw", None))
        wait_until(lambda: during, what="the loop's next turn")
        assert during == [True]  # the loop went on while table 1's handshake waited
        wait_until(lambda: other.client is not None and not other._attempting and other.client.socket() is not None,
                   what="table 2 connected")
        assert stuck._attempting  # table 1's handshake still waits (paho's connect timeout: 5 s)
    finally:
        for s in queued:
            s.close()
        deaf.close()
        answering.close()
        loop.leave()
    assert not loop.thread.is_alive()


def test_the_tables_log_lines_pass_once_per_kind():
    import logging

    from shotclock.floor.fleet import OncePerKind

    once = OncePerKind()
    records = [logging.LogRecord("shotclock.network", logging.ERROR, "", 0, msg, (n,), None)
               for n in range(1, 1001) for msg in ("the broker refused the connection: %s", "other %s")]
    passed = [r for r in records if once.filter(r)]
    assert [r.getMessage() for r in passed] == [
        "the broker refused the connection: 1", "other 1",
        "the broker refused the connection: 1000 (said 1000 times by the fleet's tables)",
        "other 1000 (said 1000 times by the fleet's tables)"]


def test_a_table_notes_a_command_as_it_is_read_and_acts_on_it_on_the_loops_next_turn():
    from types import SimpleNamespace

    from shotclock.adapters.mqtt_login import LinkSettings
    from shotclock.core.topics import table_topic
    from shotclock.floor.fleet_link import LoopLink

    later, noted, handled = [], [], []
    loop = SimpleNamespace(call_soon=later.append)
    link = LoopLink(loop, LinkSettings("127.0.0.1", 1, "test", "7", "table-7", "pw"), "boot",
                    on_arrival=lambda table, payload: noted.append((table, payload)))
    link._on_command = lambda payload, props: handled.append(json.loads(payload))
    command = b'{"id": "release_hand-1", "name": "release_hand"}'
    for topic in (table_topic("test", "7", "cmd"), "shotclock/v1/test/cmd"):
        link._on_message(link.client, None, SimpleNamespace(topic=topic, payload=command, properties=None, retain=False))
    link._on_message(link.client, None, SimpleNamespace(topic=table_topic("test", "7", "stored"), payload=b"{}",
                                                        properties=None, retain=False))
    assert noted == [("7", command), ("7", command)]  # the commands, not the archive's word
    assert handled == []  # read now, acted on once the loop has read what else is ready
    for call in later:
        call()
    assert [(c["id"], c["sender"]) for c in handled] == [("release_hand-1", "floor")] * 2


def test_a_dealer_whose_table_waits_for_the_floor_deals_once_it_is_released():
    from types import SimpleNamespace

    from shotclock.floor.fleet import WAIT_LOOK

    presses = []
    table = SimpleNamespace(config=SimpleNamespace(mode="clock"), waiting=True,
                            press=lambda button, t: presses.append(button), release=lambda button, t: None)
    table.waits_for_floor = lambda: table.waiting
    dealer = Dealer([table], seed=1, deal=True)
    dealer._act(table, 0, "deal", 100.0)
    assert presses == [] and dealer._queue == [(100.0 + WAIT_LOOK, 0, "deal")]
    dealer._queue.clear()
    table.waiting = False
    dealer._act(table, 0, "deal", 101.0)
    assert (101.3, 0, "call") in dealer._queue  # dealt: the clock is called next


def test_fleet_tables_take_the_venues_hand_for_hand_state_when_they_connect(tmp_path):
    # Issue 36, 3: the simulated tables are the device's Table and link: one that connects while its room plays
    # hand-for-hand joins it at the room's count, and leaves it when the room's state says it ended.
    from shotclock.core.roomstate import next_room_state
    from shotclock.core.topics import hand_for_hand_topic

    with MosquittoBroker(tmp_path / "broker", tables=["1", "2"], websockets=False) as broker:
        floor = broker.client("floor")
        inbox = Inbox(floor, all_tables("test", "state"), all_tables("test", "status"))
        on = next_room_state(None, "hand_for_hand", None, None, minutes=3, by="floor", now_ms=1_000)
        released = next_room_state(on, "release_hand", None, None, by="floor", now_ms=2_000)
        floor.publish(hand_for_hand_topic("test"), released.encode(), qos=1, retain=True).wait_for_publish(30)
        tables = start_fleet(2, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                             extra=FAST)

        def hand_for_hand(table: str):
            states = [json.loads(m.payload) for m in list(inbox.messages) if m.topic.endswith(f"/table/{table}/state")]
            return states[-1].get("hand_for_hand") if states else "none yet"

        try:
            for t in ("1", "2"):
                wait_until(lambda t=t: hand_for_hand(t) == {"waiting": False, "hands": 1, "minutes": 3,
                                                           "time_off_s": 180}, what=f"table {t} in hand-for-hand")
            ended = next_room_state(released, "end_hand_for_hand", None, None, by="floor", now_ms=3_000)
            floor.publish(hand_for_hand_topic("test"), ended.encode(), qos=1, retain=True).wait_for_publish(30)
            for t in ("1", "2"):
                wait_until(lambda t=t: hand_for_hand(t) is None, what=f"table {t} out of hand-for-hand")
        finally:
            for table in tables:
                table.stop()
