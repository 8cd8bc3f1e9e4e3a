"""``shotclock broker-config`` against a real mosquitto: who may connect, publish and read what."""

import json
import subprocess
import threading

import paho.mqtt.client as mqtt
import pytest

from mqtt_broker import Inbox, MosquittoBroker, mosquitto_path
from shotclock.core.topics import feature_topic, table_topic
from shotclock.floor.broker_config import (BrokerPlan, Endpoint, check_password, conf_text, hash_password, parse_tables,
                                           write_broker_config)
from shotclock.cli import main

NOT_AUTHORIZED = 135  # MQTT 5 reason codes
BAD_LOGIN = 134
OK = "ok"  # 0 (success) or 16 (no matching subscribers): both below 0x80


def publish_rc(client, topic, payload=b"x", retain=False):
    """Publish at QoS 1 and return the PUBACK's reason code (MQTT 5 tells a refused publish)."""
    done = threading.Event()
    result = {}

    def on_publish(c, userdata, mid, reason_code, properties):
        result["rc"] = OK if reason_code.value < 0x80 else reason_code.value
        done.set()

    client.on_publish = on_publish
    client.publish(topic, payload, qos=1, retain=retain)
    assert done.wait(30), "no PUBACK"
    return result["rc"]


def test_hash_matches_mosquitto_passwd(tmp_path):
    assert check_password("s3cret", hash_password("s3cret"))
    assert not check_password("other", hash_password("s3cret"))
    tool = mosquitto_path() and subprocess.run(["which", "mosquitto_passwd"], capture_output=True).returncode == 0
    if not tool:
        pytest.skip("mosquitto_passwd not installed")
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(tmp_path / "pw"), "u", "s3cret"], check=True)
    assert check_password("s3cret", (tmp_path / "pw").read_text().strip().split(":", 1)[1])


def test_parse_tables_expands_ranges():
    assert parse_tables("1-3,feature, 7") == ["1", "2", "3", "feature", "7"]


def test_plan_problems_are_all_named():
    plan = BrokerPlan("bad venue", ["ok", "no/slash"], network=Endpoint("0.0.0.0", 8883))
    problems = plan.problems()
    assert any("venue 'bad venue'" in p for p in problems)
    assert any("'no/slash'" in p for p in problems)
    assert any("needs TLS" in p for p in problems)


def test_rerun_keeps_passwords(tmp_path):
    first = write_broker_config(BrokerPlan("v", ["1"]), tmp_path)
    second = write_broker_config(BrokerPlan("v", ["1", "2"]), tmp_path)
    assert second["table-1"] == first["table-1"] and second["floor"] == first["floor"]
    assert "table-2" in second
    assert oct((tmp_path / "credentials" / "table-1.toml").stat().st_mode & 0o777) == "0o600"


def test_cli_refuses_plaintext_beyond_loopback(tmp_path, capsys):
    assert main(["broker-config", str(tmp_path), "--venue", "v", "--tables", "1", "--listen", "0.0.0.0:8883"]) == 2
    err = capsys.readouterr().err
    assert "needs TLS" in err and "Traceback" not in err


def test_cli_writes_a_config(tmp_path, capsys):
    assert main(["broker-config", str(tmp_path), "--venue", "v", "--tables", "1-2"]) == 0
    assert "allow_anonymous false" in (tmp_path / "mosquitto.conf").read_text()
    assert "user table-2" in (tmp_path / "acl").read_text()


def test_anonymous_is_refused(broker):
    c = broker.client(None)
    assert c.connack.value == NOT_AUTHORIZED or c.connack.is_failure


def test_wrong_password_is_refused(broker):
    c = broker.client("floor", password="wrong")
    assert c.connack.is_failure and c.connack.value in (BAD_LOGIN, NOT_AUTHORIZED)


def test_right_password_is_accepted(broker):
    assert not broker.client("table-1").connack.is_failure


def test_table_publishes_only_its_own_topics(broker):
    t1 = broker.client("table-1")
    assert publish_rc(t1, table_topic("test", "1", "state"), retain=True) == OK
    assert publish_rc(t1, table_topic("test", "1", "cmd/ack")) == OK
    assert publish_rc(t1, table_topic("test", "2", "state")) == NOT_AUTHORIZED
    assert publish_rc(t1, table_topic("test", "2", "event")) == NOT_AUTHORIZED
    assert publish_rc(t1, table_topic("test", "1", "cmd")) == NOT_AUTHORIZED  # it cannot command itself
    assert publish_rc(t1, feature_topic("test")) == NOT_AUTHORIZED


def test_table_reads_only_its_own_commands(broker):
    t1, t2, floor = broker.client("table-1"), broker.client("table-2"), broker.client("floor")
    spy = Inbox(t1, table_topic("test", "2", "cmd"), table_topic("test", "1", "cmd"))
    own = Inbox(t2, table_topic("test", "2", "cmd"))
    assert publish_rc(floor, table_topic("test", "2", "cmd"), b"for-2") == OK
    assert publish_rc(floor, table_topic("test", "1", "cmd"), b"for-1") == OK
    assert own.wait_for(lambda m: m.payload == b"for-2") is not None
    assert spy.wait_for(lambda m: m.payload == b"for-1") is not None  # delivered in order after for-2
    assert spy.topics() == [table_topic("test", "1", "cmd")]


def test_overlay_cannot_command_but_reads_state(broker):
    overlay = broker.client("overlay")
    inbox = Inbox(overlay, table_topic("test", "1", "state"), feature_topic("test"))
    assert publish_rc(overlay, table_topic("test", "1", "cmd"), json.dumps({"name": "pause"})) == NOT_AUTHORIZED
    assert publish_rc(overlay, feature_topic("test")) == NOT_AUTHORIZED
    t1 = broker.client("table-1")
    assert publish_rc(t1, table_topic("test", "1", "state"), b"s") == OK
    assert inbox.wait_for(lambda m: m.payload == b"s") is not None


def test_floor_commands_and_sets_the_feature_table(broker):
    floor = broker.client("floor")
    assert publish_rc(floor, table_topic("test", "2", "cmd"), b"c") == OK
    assert publish_rc(floor, feature_topic("test"), b'{"table":"2"}', retain=True) == OK
    assert publish_rc(floor, table_topic("test", "2", "state")) == NOT_AUTHORIZED  # cannot pose as a table


def test_only_the_floor_keeps_a_rooms_hand_for_hand_state_and_the_tables_read_it(tmp_path):
    from shotclock.core.topics import hand_for_hand_topic

    with MosquittoBroker(tmp_path / "b", venue="test", tables=["1"], floor=["anna"], websockets=False) as broker:
        t1, overlay = broker.client("table-1"), broker.client("overlay")
        inbox = Inbox(t1, hand_for_hand_topic("test", "+", "+"))
        room = hand_for_hand_topic("test", "Zaal 1/B")
        for user in ("floor", "floor-anna"):
            assert publish_rc(broker.client(user), room, f'"{user}"'.encode(), retain=True) == OK, user
        assert publish_rc(t1, room, b'"forged"', retain=True) == NOT_AUTHORIZED  # a table cannot set its room's
        assert publish_rc(overlay, room, b'"forged"', retain=True) == NOT_AUTHORIZED
        assert inbox.wait_for(lambda m: m.payload == b'"floor-anna"') is not None


def test_websockets_listener_serves_browsers(broker):
    c = broker.client("overlay", connect=False, transport="websockets")
    c.connect("127.0.0.1", broker.ws_port)
    c.loop_start()
    assert c.connected_event.wait(30) and not c.connack.is_failure


def test_only_the_collector_speaks_for_the_archive_and_each_floor_person_only_for_themselves(tmp_path):
    from mqtt_broker import MosquittoBroker
    from shotclock.core.topics import collector_topic, command_topic

    with MosquittoBroker(tmp_path / "broker", tables=["1", "2"], floor=["anna"]) as broker:
        collector, anna = broker.client("collector"), broker.client("floor-anna")
        for user in ("table-1", "floor", "floor-anna", "overlay"):
            client = broker.client(user)
            assert publish_rc(client, table_topic("test", "1", "stored"), b'{"boot":"0123456789ab","seq":1}') \
                == NOT_AUTHORIZED, user
            assert publish_rc(client, collector_topic("test"), b'{"online":true}', retain=True) == NOT_AUTHORIZED
        assert publish_rc(collector, table_topic("test", "1", "stored"), b"{}") == OK
        assert publish_rc(collector, collector_topic("test"), b'{"online":false,"instance":"x"}', retain=True) == OK
        assert publish_rc(anna, command_topic("test", "1", "floor-anna"), b"c") == OK
        assert publish_rc(anna, command_topic("test", None, "floor-anna"), b"c") == OK
        assert publish_rc(anna, command_topic("test", "1", "floor"), b"c") == NOT_AUTHORIZED  # not as another
        assert publish_rc(anna, table_topic("test", "1", "cmd"), b"c") == NOT_AUTHORIZED  # no self-declared sender
        t1 = broker.client("table-1")
        assert publish_rc(t1, command_topic("test", "2", "table-1"), b"c") == NOT_AUTHORIZED


def test_every_path_in_the_conf_is_absolute(tmp_path, monkeypatch):
    # Issue 29, 1: certfile and keyfile were written as given, so mosquitto under systemd (in /) failed.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.pem").write_text("x")
    plan = BrokerPlan("v", ["1"], network=Endpoint("0.0.0.0", 8883), certfile="server.pem", keyfile="server.key")
    text = conf_text(plan, tmp_path / "b")
    assert f"certfile {tmp_path / 'server.pem'}" in text and f"keyfile {tmp_path / 'server.key'}" in text


def test_the_unit_starts_mosquitto_on_this_folder_as_its_user(tmp_path):
    from shotclock.floor.broker_config import unit_text

    text = unit_text("casino", tmp_path, "mosquitto", "mosquitto")
    assert f"ExecStart=/usr/sbin/mosquitto -c {tmp_path}/mosquitto.conf" in text
    assert "User=mosquitto" in text and "ExecReload=/bin/kill -HUP $MAINPID" in text


def test_the_unit_passes_systemd_analyze_verify(tmp_path, capsys):
    import shutil

    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    assert main(["broker-config", str(tmp_path), "--venue", "v", "--tables", "1"]) == 0
    unit = tmp_path / "shotclock-broker.service"
    proc = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert "shotclock-broker.service" not in proc.stderr, proc.stderr
