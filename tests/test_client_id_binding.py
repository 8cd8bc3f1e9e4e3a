"""A table's session is its own, against every login (issue 36).

A client id is not a secret: the broker's own log prints it. What keeps a table's session its own is the
broker's client-id plugin (``broker-config`` builds it): table N's client id is for table N's login alone, and
that login connects with that id alone, so any other login naming it -- the overlay's, the floor's, a floor
person's, the collector's, another table's, a room bridge's -- is refused at CONNECT, before any takeover.
A copy of the table's own credential can still take it: then the broker tells the device, which says so on its
screen and in its decision log. Through a bridge: tests/test_bridge.py."""

import json
import logging
import os
import re
import signal
import sqlite3

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic
from shotclock.floor.broker_config import BrokerPlan, Endpoint, add_room, write_broker_config, write_rooms
from shotclock.shell.network import NetworkPresenter

CONNECTED = re.compile(r"New client connected from \S+ as (\S+) \(.*u'table-1'\)")
NOT_AUTHORIZED = 135  # MQTT 5 CONNACK: "Not authorized"
# Every kind of login a venue broker knows besides table 1's own.
OTHER_LOGINS = ("overlay", "floor", "floor-anna", "collector", "table-2", "bridge-east")


def venue_broker(folder, **kwargs) -> MosquittoBroker:
    """Tables 1 and 2, a floor person (anna) and a room (east, table 5) bridged in: every kind of login."""
    broker = MosquittoBroker(folder, venue="test", tables=["1", "2"], floor=["anna"], websockets=False, **kwargs)
    add_room(broker.folder, "test", "east", ["5"])
    broker.passwords.update(write_rooms(broker.folder, "test"))
    return broker


def offline(inbox) -> list[dict]:
    """The offline statuses table 1's watcher saw (its Last Will, when its session was taken)."""
    statuses = [json.loads(m.payload) for m in list(inbox.messages) if m.payload]
    return [s for s in statuses if s.get("online") is False]


def takeover_records(state_dir) -> list[dict]:
    """The ``session_taken`` records of the device's decision log."""
    path = state_dir / "shotclock.db"
    if not path.exists():
        return []
    db = sqlite3.connect(path)
    try:
        return [json.loads(r[0]) for r in db.execute("SELECT data FROM records WHERE type = 'session_taken'")]
    except sqlite3.OperationalError:  # the writer has not made its table yet
        return []
    finally:
        db.close()


def presenter_of(device) -> NetworkPresenter:
    """The device's floor-network listener, whose ``mark`` is its screen's network corner."""
    return next(x for x in device.device.loop.listeners if isinstance(x, NetworkPresenter))


def test_no_other_login_can_connect_with_a_tables_client_id_and_the_table_keeps_its_session(tmp_path):
    # Issue 36: with table 1's client id from the broker's log, the overlay's login held its session for 25 s
    # (48 reconnects of the device, 2 of 6 floor commands unanswered, nothing said). Each kind of login tries it,
    # with a persistent session (the strongest attempt: it would inherit the table's queued commands).
    with venue_broker(tmp_path / "broker") as broker:
        watcher = Inbox(broker.client("floor"), table_topic("test", "1", "status"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        try:
            wait_until(lambda: device.link.status.connected, what="table 1 online")
            found = wait_until(lambda: CONNECTED.search(broker.log_text()), what="table 1 in the broker's log")
            stolen = found.group(1)
            assert stolen == broker.bound_client_id("table-1")
            answers = {}
            for user in OTHER_LOGINS:
                thief = broker.client(user, session=stolen)
                answers[user] = thief.connack.value
                thief.disconnect()
            assert answers == dict.fromkeys(OTHER_LOGINS, NOT_AUTHORIZED)
            log = broker.log_text()
            assert "already connected" not in log and "administrative action" not in log
            assert len(CONNECTED.findall(log)) == 1  # the device connected once: never knocked off
            assert device.link.status.connected and not offline(watcher)
            for user in OTHER_LOGINS:  # the plugin says who tried, from where
                assert f"shotclock client ids: refused {user} from 127.0.0.1: client id {stolen} belongs to table-1" in log
        finally:
            device.stop()


@pytest.mark.parametrize("bound", [True, False], ids=["bound", "unbound (as before)"])
def test_a_client_id_read_from_the_brokers_log_does_not_take_a_tables_session(tmp_path, bound):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1", "2"], bind_client_ids=bound) as broker:
        watcher = Inbox(broker.client("floor"), table_topic("test", "1", "status"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        try:
            wait_until(lambda: device.link.status.connected, what="table 1 online")
            found = wait_until(lambda: CONNECTED.search(broker.log_text()), what="table 1 in the broker's log")
            stolen = found.group(1)  # the attacker's source: the broker's log
            assert stolen == device.link.client_id
            refused = 0
            for _ in range(15):  # the attack's 15 takeovers (it made them in 5 s)
                thief = broker.client("overlay", session=stolen)
                refused += bool(thief.connack.is_failure)
                thief.disconnect()
            if bound:
                assert refused == 15
                assert "already connected" not in broker.log_text()
                assert not offline(watcher) and device.link.status.connected
            else:  # the test can fail: without the binding the same attack takes the session
                assert refused == 0
                wait_until(lambda: "already connected" in broker.log_text(), what="the takeover in the broker's log")
        finally:
            device.stop()


def test_a_bound_login_with_another_client_id_is_refused(tmp_path):
    with venue_broker(tmp_path / "broker") as broker:
        assert broker.client("table-1", session="shotclock-test-1-0000000000000000").connack.value == NOT_AUTHORIZED
        assert broker.client("bridge-east", session="someone-else").connack.value == NOT_AUTHORIZED
        assert not broker.client("table-1").connack.is_failure  # its own (bound) client id
        assert not broker.client("bridge-east").connack.is_failure
        for user in ("floor", "floor-anna", "overlay", "collector"):  # the shared logins keep any other client id
            assert not broker.client(user).connack.is_failure


def test_a_wrong_password_with_a_tables_login_and_client_id_takes_nothing(tmp_path):
    # The plugin tells a session it is taken only once the newcomer proved the table's own password: a guess
    # neither takes the session nor disturbs the table.
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1"], websockets=False) as broker:
        watcher = Inbox(broker.client("floor"), table_topic("test", "1", "status"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        try:
            wait_until(lambda: device.link.status.connected, what="table 1 online")
            own = broker.bound_client_id("table-1")
            for password in ("guess", "", broker.passwords["overlay"]):
                assert broker.client("table-1", password, session=own).connack.value == NOT_AUTHORIZED
            log = broker.log_text()
            assert "administrative action" not in log and "already connected" not in log
            assert device.link.status.connected and not offline(watcher) and not device.link.status.taken
        finally:
            device.stop()


def test_the_bindings_are_read_again_on_sighup_and_hold_no_password(tmp_path):
    # A table added is bound, and a table removed refused, after a reload: no restart, no session lost.
    run_as = "root" if os.geteuid() == 0 else None
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1", "2"], websockets=False) as broker:
        plugin = broker.conf.read_text().split("\nplugin ")[1].split("\n")[0]
        assert not broker.client("table-2").connack.is_failure
        bindings = (broker.folder / "client-ids").read_text()
        assert not any(p in bindings for p in broker.passwords.values()) and "$7$" not in bindings
        passwords = write_broker_config(BrokerPlan("test", ["1", "3"], local=Endpoint("127.0.0.1", broker.port),
                                                   websockets=None, run_as=run_as, client_id_plugin=plugin),
                                        broker.folder)
        broker.passwords.update(passwords)
        os.kill(broker.process.pid, signal.SIGHUP)
        wait_until(lambda: broker.client("table-2").connack.is_failure, what="table 2 refused after the reload")
        assert broker.client("overlay", session=broker.bound_client_id("table-3")).connack.value == NOT_AUTHORIZED
        assert not broker.client("table-3").connack.is_failure
        assert not broker.client("table-1").connack.is_failure
        assert broker.log_text().count("shotclock client ids: 2 bindings from") == 2  # at the start and the reload


def test_a_reload_with_unreadable_bindings_keeps_the_ones_in_force(tmp_path):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1"], websockets=False) as broker:
        (broker.folder / "client-ids").write_text("one field only\n")
        os.kill(broker.process.pid, signal.SIGHUP)
        wait_until(lambda: "the bindings read before stay in force (1)" in broker.log_text(), what="the warning")
        assert "line 1: expected CLIENT_ID USERNAME" in broker.log_text()
        assert broker.client("overlay", session=broker.bound_client_id("table-1")).connack.value == NOT_AUTHORIZED
        assert not broker.client("table-1").connack.is_failure


def test_a_broker_whose_bindings_cannot_be_read_does_not_start(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker", venue="test", tables=["1"], websockets=False)
    (broker.folder / "client-ids").unlink()
    with pytest.raises(RuntimeError, match="mosquitto's listeners"):
        broker.start()
    assert "shotclock client ids: cannot read" in broker.log_text()


def test_a_second_connection_with_the_tables_own_credential_is_said_on_screen_and_in_the_log(broker, tmp_path, caplog):
    # A copy of table 1's credential (a cloned SD card, or the file copied) is table 1 to the broker: it may take the
    # session. Mosquitto 2.0.11 closes the old connection without a word; the plugin tells it first (0x98), Mosquitto
    # 2.0.15 and later say 0x8E: either way the device says so, on screen and in its decision log, and waits before
    # taking the session back.
    caplog.set_level(logging.ERROR, logger="shotclock.network")
    state = tmp_path / "state"
    device = RunningDevice(network_config(broker, table="1"), state)
    copy = None
    try:
        wait_until(lambda: device.link.status.connected, what="table 1 online")
        presenter = presenter_of(device)
        assert "overgenomen" not in presenter.mark() and not takeover_records(state)
        copy = broker.client("table-1")  # the same login, password and client id
        assert not copy.connack.is_failure
        wait_until(lambda: device.link.status.taken, what="the device told its session was taken")
        assert presenter.mark().startswith("netwerk: sessie overgenomen")  # the screen's corner (Dutch by default)
        records = wait_until(lambda: takeover_records(state), what="the session_taken record")
        assert records == [{"reason": device.link.status.taken, "count": 1}]
        assert device.link.status.taken in ("Administrative action", "Session taken over")
        assert any("took its session" in r.getMessage() for r in caplog.records)  # the system log
        assert not device.link.status.connected  # it waits before taking the session back: no flapping
    finally:
        if copy is not None:
            copy.disconnect()
        device.stop()
