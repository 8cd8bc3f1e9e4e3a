"""TLS to the broker, and the configuration's checks of the [network] section."""

import json

import pytest

from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.config.loading import parse_config
from shotclock.core.topics import table_topic
from shotclock.errors import ConfigError


def test_device_connects_over_tls(tmp_path, certificate):
    with MosquittoBroker(tmp_path / "broker", tls=certificate) as broker:
        config = network_config(broker).replace(f"port = {broker.port}", f"port = {broker.tls_port}")
        config = config.replace("tls = false", f'tls = true\nca_file = "{certificate[0]}"')
        inbox = Inbox(broker.client("overlay"), table_topic("test", "1", "status"))
        dev = RunningDevice(config, tmp_path / "state")
        try:
            online = inbox.wait_for(lambda m: json.loads(m.payload)["online"])
            assert online is not None and json.loads(online.payload)["boot"] == dev.device.boot
        finally:
            dev.stop()


def test_device_refuses_a_broker_it_cannot_trust(tmp_path, certificate):
    with MosquittoBroker(tmp_path / "broker", tls=certificate) as broker:
        config = network_config(broker).replace(f"port = {broker.port}", f"port = {broker.tls_port}")
        config = config.replace("tls = false", "tls = true")  # the system's CAs do not know this certificate
        inbox = Inbox(broker.client("overlay"), table_topic("test", "1", "status"))
        dev = RunningDevice(config, tmp_path / "state")
        try:
            assert inbox.wait_for(lambda m: json.loads(m.payload)["online"], timeout=2) is None
            assert not dev.link.status.connected
        finally:
            dev.stop()


def test_plain_mqtt_beyond_loopback_is_a_config_error():
    with pytest.raises(ConfigError) as err:
        parse_config('[network]\nenabled = true\nhost = "floor.local"\ntls = false\ncredentials = "/x.toml"\n')
    assert "network.tls" in err.value.errors


def test_enabled_network_needs_credentials_and_valid_names():
    with pytest.raises(ConfigError) as err:
        parse_config('[network]\nenabled = true\ntable_id = "7/#"\nport = 70000\n')
    assert {"network.credentials", "network.table_id", "network.port"} <= set(err.value.errors)
