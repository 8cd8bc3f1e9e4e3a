"""A room broker bridged to the venue broker (``broker-config --bridge-to``), two real mosquitto instances.

The table runs on the room broker; the collector and the floor's subscriber (standing in for the dashboard
and the overlay) on the venue broker. Everything crosses the bridge: status (retained), state, events,
commands and their acks, the archive's ``stored`` and the collector's status.
"""

import json
import sqlite3
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker, require_mosquitto
from network_device import RunningDevice, network_config
from shotclock.adapters.archive import Archive
from shotclock.core.topics import table_topic
from shotclock.floor.broker.plan import bridge_client_id
from shotclock.floor.broker_config import bridge_state_topic, bridge_topics
from shotclock.floor.collector import Collector

VENUE = "test"


class Pair:
    """A venue broker and one room broker bridged to it (room ``east``: tables 1 and 2)."""

    def __init__(self, tmp_path, certificate):
        require_mosquitto()
        self.venue = MosquittoBroker(tmp_path / "venue", venue=VENUE, tables=["1", "2", "3"], websockets=False,
                                     tls=certificate)
        self.room = MosquittoBroker(tmp_path / "room", venue=VENUE, tables=["1", "2"], websockets=False,
                                    bridge_to=self.venue, room="east", cafile=certificate[0])
        self.venue.start()
        self.room.start()
        self.floor = self.venue.client("floor")
        self.inbox = Inbox(self.floor, f"shotclock/v1/{VENUE}/#")
        self.wait_bridged()

    def wait_bridged(self):
        """Until the bridge says it is connected (its retained state at the venue)."""
        topic = bridge_state_topic(VENUE, "east")
        assert self.inbox.wait_for(lambda m: m.topic == topic and m.payload == b"1", timeout=60), \
            f"the bridge did not connect:\n{self.room.log_text()}"

    def close(self):
        self.room.close()
        self.venue.close()


@pytest.fixture
def pair(tmp_path, certificate):
    p = Pair(tmp_path, certificate)
    yield p
    p.close()


def start_collector(broker, folder):
    archive = Archive(folder)
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector", broker.passwords["collector"])
    collector.start()
    assert collector.connected.wait(60)
    return archive, collector


def archived(archive, table="1") -> list[int]:
    """The seqs of ``table``'s records in the archive, one entry per stored row."""
    return [r[0] for r in archive.db.execute("SELECT seq FROM events WHERE table_id = ? ORDER BY seq", (table,))]


def logged(state_dir) -> set[int]:
    """Every record id of the device's own decision log."""
    db = sqlite3.connect(state_dir / "shotclock.db")
    try:
        return {r[0] for r in db.execute("SELECT id FROM records")}
    finally:
        db.close()


def status_of(inbox, table, predicate):
    topic = table_topic(VENUE, table, "status")
    return inbox.wait_for(lambda m: m.topic == topic and m.payload and predicate(json.loads(m.payload)))


def play_clock(device):
    device.tap("bet")
    device.tap("floor")
    time.sleep(0.3)  # a person's pace: the clock runs a moment before the action (not a wait on a result)
    device.tap("action")


def test_the_topic_lists_share_nothing_so_nothing_loops_or_arrives_twice():
    out, into = bridge_topics(VENUE, ["1", "2"])
    assert not set(out) & set(into)
    assert table_topic(VENUE, "1", "event") in out and table_topic(VENUE, "1", "stored") in into
    assert not any("/table/3/" in t for t in out + into)  # only the room's own tables


def test_commands_acks_status_and_the_archive_work_through_the_bridge(pair, tmp_path):
    archive, collector = start_collector(pair.venue, tmp_path / "floor")
    device = RunningDevice(network_config(pair.room, table="1"), tmp_path / "state")
    try:
        online = status_of(pair.inbox, "1", lambda s: s["online"] and s["boot"] == device.device.boot)
        assert online is not None, "table 1's status never reached the venue"
        # Retained at the venue: a dashboard that connects now sees the table at once.
        late = Inbox(pair.venue.client("overlay"), table_topic(VENUE, "1", "status"))
        seen = late.wait_for(lambda m: json.loads(m.payload)["boot"] == device.device.boot)
        assert seen is not None and seen.retain
        # The collector's retained status crossed the other way: the table waits for the archive's word.
        wait_until(lambda: device.link.status.connected, what="the table connected")
        # A floor command at the venue, its ack back from the room.
        pair.floor.publish(table_topic(VENUE, "1", "cmd"),
                           json.dumps({"id": "cmd-1", "name": "pause", "sender": "test", "sent_ms": int(time.time() * 1000)}), qos=1)
        ack = pair.inbox.wait_for(lambda m: m.topic == table_topic(VENUE, "1", "cmd/ack")
                                  and json.loads(m.payload)["id"] == "cmd-1")
        assert ack is not None and json.loads(ack.payload)["table"] == "1"
        play_clock(device)
        wait_until(lambda: logged(tmp_path / "state") and logged(tmp_path / "state") <= set(archived(archive)),
                   what="every record archived at the venue")
        wait_until(lambda: device.link.status.pending == 0, what="the archive's word back through the bridge")
    finally:
        device.stop()
        collector.stop()
    assert sorted(archived(archive)) == sorted(logged(tmp_path / "state"))
    archive.close()


def test_a_room_cannot_publish_another_rooms_tables_at_the_venue(pair):
    from test_broker_config import NOT_AUTHORIZED, publish_rc

    # The bridge's own credential, as a client of the venue broker: table 3 is not in room east. (Its client id
    # is bound to it: this client takes the real bridge's session for a moment, the broker telling the bridge so;
    # it reconnects after 1 s.)
    bridge = pair.venue.client("bridge-east")
    assert publish_rc(bridge, table_topic(VENUE, "3", "event")) == NOT_AUTHORIZED
    assert publish_rc(bridge, table_topic(VENUE, "1", "stored")) == NOT_AUTHORIZED  # only the collector says so


def test_through_a_bridge_no_other_login_takes_a_tables_or_the_bridges_session(pair, tmp_path):
    # Issue 36 through a bridge: on the room broker, each of its logins names table 1's client id and the bridge's
    # own (local) one; on the venue broker, each login names the bridge's client id, and the bridge's login a
    # venue table's. Every one is refused at CONNECT; the table and the bridge keep their sessions, and a floor
    # command at the venue still reaches the table and is answered.
    device = RunningDevice(network_config(pair.room, table="1"), tmp_path / "state")
    try:
        assert status_of(pair.inbox, "1", lambda s: s["online"] and s["boot"] == device.device.boot) is not None
        wait_until(lambda: device.link.status.connected, what="table 1 connected to its room broker")
        start = len(pair.inbox.messages)
        table = pair.room.bound_client_id("table-1")
        local = bridge_client_id(VENUE, "east", pair.venue.passwords["bridge-east"], side="local")
        remote = pair.venue.bound_client_id("bridge-east")
        assert f"local_clientid {local}" in pair.room.conf.read_text()
        attempts = [(pair.room, user, cid) for user in ("overlay", "floor", "collector", "table-2")
                    for cid in (table, local)]
        attempts += [(pair.venue, user, remote) for user in ("overlay", "floor", "collector", "table-3")]
        attempts += [(pair.venue, "bridge-east", pair.venue.bound_client_id("table-3"))]
        answers = {}
        for broker, user, cid in attempts:
            thief = broker.client(user, session=cid)
            answers[(broker is pair.room and "room" or "venue", user, cid)] = thief.connack.value
            thief.disconnect()
        assert set(answers.values()) == {135}, answers  # CONNACK "not authorised", each of them
        for broker in (pair.room, pair.venue):
            log = broker.log_text()
            assert "already connected" not in log and "administrative action" not in log
        seen = list(pair.inbox.messages)[start:]
        assert not [m for m in seen if m.topic == bridge_state_topic(VENUE, "east") and m.payload == b"0"]
        assert not [m for m in seen if m.topic == table_topic(VENUE, "1", "status")
                    and json.loads(m.payload)["online"] is False]
        assert device.link.status.connected and not device.link.status.taken
        pair.floor.publish(table_topic(VENUE, "1", "cmd"), json.dumps(
            {"id": "cmd-36", "name": "pause", "sender": "test", "sent_ms": int(time.time() * 1000)}), qos=1)
        assert pair.inbox.wait_for(lambda m: m.topic == table_topic(VENUE, "1", "cmd/ack")
                                   and json.loads(m.payload)["id"] == "cmd-36") is not None
    finally:
        device.stop()


@pytest.mark.slow
def test_the_bridge_down_for_30_s_loses_nothing_and_duplicates_nothing(pair, tmp_path):
    archive, collector = start_collector(pair.venue, tmp_path / "floor")
    device = RunningDevice(network_config(pair.room, table="1"), tmp_path / "state")
    try:
        assert status_of(pair.inbox, "1", lambda s: s["online"]) is not None
        play_clock(device)
        wait_until(lambda: logged(tmp_path / "state") <= set(archived(archive)), what="the first clock archived")
        pair.venue.kill()  # the venue broker gone: the bridge, the collector and the floor lose it
        down = time.monotonic()
        for _ in range(3):
            play_clock(device)
            time.sleep(1)
        during = logged(tmp_path / "state")
        time.sleep(max(0.0, 30 - (time.monotonic() - down)))
        assert device.link.status.pending > 0  # the table still holds what the archive does not have
        pair.venue.start()
        wait_until(lambda: during <= set(archived(archive)), timeout=90,
                   what="every record of the outage archived once the bridge is back")
        wait_until(lambda: device.link.status.pending == 0, timeout=60, what="the table's outbox empty")
    finally:
        device.stop()
        collector.stop()
    rows = archived(archive)
    assert len(rows) == len(set(rows)), "a record archived twice"
    assert set(rows) == logged(tmp_path / "state")
    archive.close()


def test_a_room_broker_restart_shows_its_tables_offline_at_the_venue_then_back(pair, tmp_path):
    device = RunningDevice(network_config(pair.room, table="1"), tmp_path / "state")
    try:
        boot = device.device.boot
        assert status_of(pair.inbox, "1", lambda s: s["online"] and s["boot"] == boot) is not None
        start = len(pair.inbox.messages)
        pair.room.stop()  # a restart (systemctl restart): mosquitto publishes its clients' wills as it stops
        offline = pair.inbox.wait_for(lambda m: pair.inbox.messages.index(m) >= start
                                      and m.topic == table_topic(VENUE, "1", "status")
                                      and not json.loads(m.payload)["online"])
        assert offline is not None, "the venue never saw table 1 offline"
        pair.room.start()
        back = pair.inbox.wait_for(lambda m: pair.inbox.messages.index(m) > pair.inbox.messages.index(offline)
                                   and m.topic == table_topic(VENUE, "1", "status")
                                   and json.loads(m.payload)["online"] and json.loads(m.payload)["boot"] == boot,
                                   timeout=60)
        assert back is not None, "table 1 never came back online at the venue"
    finally:
        device.stop()


def test_cli_writes_both_sides_and_the_venue_keeps_its_rooms(tmp_path, capsys):
    from shotclock.cli import main

    venue, room = tmp_path / "venue", tmp_path / "room"
    assert main(["broker-config", str(venue), "--venue", "casino", "--tables", "1"]) == 0
    assert main(["broker-config", str(room), "--venue", "casino", "--tables", "2-3", "--bridge-to", "127.0.0.1:1884",
                 "--room", "east", "--venue-dir", str(venue)]) == 0
    conf = (room / "mosquitto.conf").read_text()
    assert "bridge_protocol_version mqttv50" in conf and "cleansession false" in conf
    assert "topic shotclock/v1/casino/table/2/event out 1" in conf and "topic shotclock/v1/casino/cmd in 1" in conf
    assert (room / "mosquitto.conf").stat().st_mode & 0o777 == 0o640  # it holds the bridge's password
    password = (venue / "credentials" / "bridge-east.toml").read_text()
    assert password.split('password = "')[1].split('"')[0] in conf
    # The venue broker's own run again (another floor list): the room's bridge stays, with its password.
    assert main(["broker-config", str(venue), "--venue", "casino", "--tables", "1", "--floor", "anna"]) == 0
    assert (venue / "credentials" / "bridge-east.toml").read_text() == password
    acl = (venue / "acl").read_text()
    assert "user bridge-east" in acl and "topic write shotclock/v1/casino/table/3/event" in acl
    assert "topic write shotclock/v1/casino/table/1/event" in acl.split("user bridge-east")[0]  # table 1's own
    assert "table/1/" not in acl.split("user bridge-east")[1]  # not the bridge's
    assert (venue / "passwd").read_text().count("bridge-east:") == 1


@pytest.mark.parametrize("args, says", [
    (["--bridge-to", "floor.local"], "--bridge-to needs --room and --venue-dir"),
    (["--bridge-to", "floor.local", "--room", "east", "--venue-dir", "VENUE"], "needs TLS: give --ca-file"),
    (["--bridge-to", "127.0.0.1", "--room", "east", "--venue-dir", "NOWHERE"], "run 'shotclock broker-config' for "
                                                                              "the venue broker first"),
    (["--bridge-to", "127.0.0.1", "--room", "west", "--venue-dir", "VENUE"], "tables already in another room: 2 (room east)"),
    (["--bridge-to", "127.0.0.1", "--room", "a/b", "--venue-dir", "VENUE"], "room 'a/b' must be"),
    (["--room", "east"], "--room: only with --bridge-to HOST"),
    (["--venue-dir", "VENUE", "--ca-file", "x.pem"], "--venue-dir and --ca-file: only with --bridge-to HOST"),
])
def test_cli_refuses_a_bridge_it_cannot_write_in_one_line(tmp_path, capsys, args, says):
    from shotclock.cli import main

    venue = tmp_path / "venue"
    assert main(["broker-config", str(venue), "--venue", "casino", "--tables", "1"]) == 0
    assert main(["broker-config", str(tmp_path / "east"), "--venue", "casino", "--tables", "2", "--bridge-to",
                 "127.0.0.1", "--room", "east", "--venue-dir", str(venue)]) == 0
    capsys.readouterr()
    args = [str(venue) if a == "VENUE" else str(tmp_path / a) if a == "NOWHERE" else a for a in args]
    assert main(["broker-config", str(tmp_path / "room"), "--venue", "casino", "--tables", "2-3", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "room" / "mosquitto.conf").exists()


def test_a_crashed_room_broker_shows_its_tables_unreachable_and_the_collector_records_it(pair, tmp_path, capsys):
    from shotclock.cli import main

    archive, collector = start_collector(pair.venue, tmp_path / "floor")
    device = RunningDevice(network_config(pair.room, table="1"), tmp_path / "state")
    try:
        # The table names the room broker's bridge it reaches the venue through (it read the bridge's own state
        # on its broker), so whoever reads its status at the venue knows what a dead bridge hides.
        behind = status_of(pair.inbox, "1", lambda s: s["online"] and s.get("bridge") == "east"
                           and s["boot"] == device.device.boot)
        assert behind is not None, "table 1's status never named its bridge"
        start = len(pair.inbox.messages)
        pair.room.kill()  # kill -9: no Last Will of the table reaches the venue, its status stays "online"
        down = pair.inbox.wait_for(lambda m: pair.inbox.messages.index(m) >= start
                                   and m.topic == bridge_state_topic(VENUE, "east") and m.payload == b"0")
        assert down is not None, "the venue broker never said the bridge is down"
        wait_until(lambda: [n for n in archive.network() if n[:3] == ("bridge", "east", False)],
                   what="the collector noting the bridge down")
        note = [n for n in archive.network() if n[:3] == ("bridge", "east", False)][-1]
        assert note[4] == "tables 1"
        # What the venue still holds about table 1 says online: only the bridge's state says otherwise.
        late = Inbox(pair.venue.client("floor"), table_topic(VENUE, "1", "status"))
        held = late.wait_for(lambda m: True)
        assert json.loads(held.payload)["online"] is True
        capsys.readouterr()
        code = main(["floor", "status", "--venue", VENUE, "--broker", f"127.0.0.1:{pair.venue.port}",
                     "--credentials", str(pair.venue.credentials_file("floor"))])
        out = capsys.readouterr().out
        assert code == 1, out
        assert "room east: NOT CONNECTED (tables 1: unreachable)" in out
        assert "tables: 0 online, 0 offline, 1 unreachable" in out
    finally:
        device.stop()
        collector.stop()
    archive.close()
