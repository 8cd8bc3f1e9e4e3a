"""A mistake in the [network] files never stops the table's clock (issue 18, item 1), against a real mosquitto:
the device runs, shows the fault in its screen's corner, logs one line and tries again when the file changes;
``config --check`` names each problem, judged for the user the service runs as."""

import logging
import os
import shutil
import subprocess

import pytest

from helpers import start_device, wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.cli import main
from shotclock.core.topics import table_topic


def broken(kind: str, folder):
    """A credentials (or CA) file with one mistake; returns (config text extra, the fault the screen shows)."""
    path = folder / "mqtt.toml"
    if kind == "missing":
        pass
    elif kind == "a folder":
        path.mkdir()
    elif kind == "not TOML":
        path.write_text("username: table-1\n")
    elif kind == "not UTF-8":
        path.write_bytes(b'username = "\xff"\n')
    elif kind == "no password":
        path.write_text('username = "table-1"\n')
    return path


KINDS = ["missing", "a folder", "not TOML", "not UTF-8", "no password"]


def config_with(broker, credentials, tls_extra=""):
    text = network_config(broker).replace(str(broker.credentials_file("table-1")), str(credentials))
    return text.replace("tls = false", "tls = false" + tls_extra)


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_credentials_file_leaves_the_clock_running_shows_it_and_is_read_again(broker, tmp_path, kind, caplog):
    caplog.set_level(logging.INFO, logger="shotclock.network")
    path = broken(kind, tmp_path)
    inbox = Inbox(broker.client("overlay"), table_topic("test", "1", "status"))
    dev = RunningDevice(config_with(broker, path), tmp_path / "state")
    try:
        dev.tap("bet")
        dev.tap("floor")
        wait_until(lambda: dev.device.table.state.phase == "running", what="the clock to run")
        wait_until(lambda: dev.link.status.fault == "credentials", what="the fault on the link's status")
        presenter = next(x for x in dev.device.loop.listeners if type(x).__name__ == "NetworkPresenter")
        assert presenter.mark().startswith("netwerk: inlogbestand")  # the screen's corner (the table speaks Dutch)
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and str(path) in errors[0].getMessage()
        # Mended: the device reads it again (it changed) and joins the floor, with no restart.
        if path.is_dir():
            path.rmdir()
        shutil.copy(broker.credentials_file("table-1"), path)
        assert inbox.wait_for(lambda m: b'"online":true' in m.payload) is not None
        wait_until(lambda: dev.link.status.connected and not dev.link.status.fault, what="the fault to clear")
        assert dev.device.table.state.phase == "running"  # the clock never stopped
    finally:
        dev.stop()


@pytest.mark.parametrize("ca", ["missing", "not PEM"])
def test_a_bad_ca_file_leaves_the_clock_running_and_shows_it(broker, tmp_path, ca):
    ca_file = tmp_path / "ca.pem"
    if ca == "not PEM":
        ca_file.write_text("this is no certificate\n")
    config = network_config(broker).replace("tls = false", f'tls = true\nca_file = "{ca_file}"')
    config = config.replace('host = "127.0.0.1"', 'host = "localhost"')
    dev = RunningDevice(config, tmp_path / "state")
    try:
        dev.tap("floor")
        wait_until(lambda: dev.device.table.state.phase == "running", what="the clock to run")
        wait_until(lambda: dev.link.status.fault == "tls", what="the CA file's fault")
        assert str(ca_file) in dev.link.status.detail
    finally:
        dev.stop()


def test_shotclock_run_keeps_running_with_a_missing_credentials_file(broker, tmp_path):
    config = config_with(broker, tmp_path / "missing.toml")
    log = tmp_path / "device.log"
    proc = start_device(tmp_path / "dev", config=config, log=log)
    try:
        wait_until(lambda: "ready:" in log.read_text(), what="the device to be ready", alive=proc)
        wait_until(lambda: "missing.toml" in log.read_text(), what="the one line naming the file", alive=proc)
    finally:
        proc.terminate()
        assert proc.wait(60) == 0
    text = log.read_text()
    assert "Traceback" not in text and text.count("missing.toml") == 1


def test_config_check_names_each_network_file_problem(tmp_path, capsys):
    creds, ca = tmp_path / "mqtt.toml", tmp_path / "ca.pem"
    creds.write_text("username: x\n")
    ca.write_text("not a certificate\n")
    (tmp_path / "c.toml").write_text('[network]\nenabled = true\nhost = "floor.local"\ntls = true\n'
                                     f'credentials = "{creds}"\nca_file = "{ca}"\n')
    assert main(["config", "--check", str(tmp_path / "c.toml"), "--user", "root"]) == 2
    err = capsys.readouterr().err
    assert "network.credentials" in err and "not valid TOML" in err
    assert "network.ca_file" in err and "no PEM certificate" in err
    creds.unlink()
    assert main(["config", "--check", str(tmp_path / "c.toml"), "--user", "root"]) == 2
    assert "mqtt.toml: it does not exist" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file another user cannot read")
def test_config_check_judges_the_credentials_for_the_services_user(capsys):
    import pwd
    import tempfile
    from pathlib import Path

    try:
        pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' here")
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        check_for_nobody(Path(folder), capsys, pwd)


def check_for_nobody(tmp_path, capsys, pwd):
    tmp_path.chmod(0o755)
    for parent in tmp_path.parents:
        if not parent.stat().st_mode & 0o001:
            pytest.skip(f"{parent} is closed to other users")
    creds = tmp_path / "mqtt.toml"
    creds.write_text('username = "table-1"\npassword = "x"\n')
    creds.chmod(0o600)  # root's, as the old guide left it: the service's user cannot read it
    (tmp_path / "c.toml").write_text(f'[network]\nenabled = true\nhost = "127.0.0.1"\ntls = false\n'
                                     f'credentials = "{creds}"\n')
    assert main(["config", "--check", str(tmp_path / "c.toml"), "--user", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "user nobody cannot read it (owner root, mode 0600)" in err and "the service runs as nobody" in err
    os.chown(creds, pwd.getpwnam("nobody").pw_uid, -1)  # as install.sh leaves it: the service's own, 0600
    assert main(["config", "--check", str(tmp_path / "c.toml"), "--user", "nobody"]) == 0


def test_install_gives_the_credentials_file_to_the_services_user():
    script = open("hardware/install.sh").read()
    assert "chown" in script and "0600" in script and "network.credentials" in script
    assert "timesyncd" in script and "network_file host" in script  # the Pi's clock from the floor's broker host
    guide = open("hardware/README.md").read()
    assert "reads it as root" not in guide and "chown shotclock:shotclock" in guide


def test_the_connected_line_names_the_login_from_the_credentials_file(broker, tmp_path, caplog):
    """The table's login comes from its credentials file: the journal's line said "… as " with nothing after."""
    caplog.set_level(logging.INFO, logger="shotclock.network")
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    try:
        wait_until(lambda: dev.link.status.connected, what="the link to connect")
        wait_until(lambda: any("connected to the broker" in r.getMessage() for r in caplog.records),
                   what="the connected line")
        [line] = [r.getMessage() for r in caplog.records if "connected to the broker" in r.getMessage()]
        assert line == f"connected to the broker 127.0.0.1:{broker.port} as table-1"
    finally:
        dev.stop()
