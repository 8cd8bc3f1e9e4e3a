"""TLS to the broker, and the configuration's checks of the [network] section."""

import json
import shutil
import subprocess

import pytest

from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.config import parse_config
from shotclock.core.topics import table_topic
from shotclock.errors import ConfigError


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for localhost and 127.0.0.1, as a floor laptop would make one."""
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed (./dev installs it as root)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


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
