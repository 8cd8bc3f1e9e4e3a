"""A venue's broker as the guide sets it up: ``broker-config --make-certs``, then mosquitto started the way the
written unit (or the printed command) says, from another folder, as root, against the written files.

The floor's tablets reach the TLS listeners on every interface; the test only connects over loopback.
"""

import getpass
import os
import shlex
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from helpers import wait_until
from mqtt_broker import free_port, listening, missing, port_open, require_mosquitto
from shotclock.cli import main
from shotclock.floor.broker_config import UNIT_FILE, table_client_id
from shotclock.adapters.mqtt_login import read_credentials

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="starts mosquitto as root, as systemd does")


@pytest.fixture
def venue_folder():
    """A folder mosquitto's own user can reach (pytest's tmp_path lies under a 0700 folder of root's), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="shotclock-venue-"))
    os.chmod(folder, 0o755)
    yield folder / "broker"
    shutil.rmtree(folder)


def pages_in(folder: Path, monkeypatch) -> Path:
    """The pages copied into ``folder``, and broker-config pointed at them: the checkout may lie where mosquitto cannot
    enter (under root's home), and the broker serves them from where they are."""
    from shotclock.web import web_dir

    pages = folder / "pages"
    shutil.copytree(web_dir(), pages)
    monkeypatch.setattr("shotclock.floor.broker_config.web_dir", lambda: pages)
    return pages


def unit_command(unit: Path) -> tuple[str, list[str]]:
    """(User=, ExecStart= split) of a unit file."""
    keys = dict(line.split("=", 1) for line in unit.read_text().splitlines() if "=" in line and line[0] != "#")
    return keys["User"], shlex.split(keys["ExecStart"])


def tls_client(port: int, ca: Path, user: str, password: str, client_id: str):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    c.tls_set_context(ssl.create_default_context(cafile=str(ca)))  # checks the name: 127.0.0.1 is in the SAN
    c.username_pw_set(user, password)
    result = {}
    c.on_connect = lambda client, userdata, flags, rc, props: result.setdefault("rc", rc)
    c.connect("127.0.0.1", port, keepalive=10)
    c.loop_start()
    wait_until(lambda: "rc" in result, what="CONNACK")
    c.loop_stop()
    c.disconnect()
    return result["rc"]


@AS_ROOT
@pytest.mark.parametrize("how", ["unit", "printed command as root"])
def test_the_guides_broker_starts_from_any_folder_and_serves_tables_and_tablets(capsys, monkeypatch, venue_folder, how):
    binary = require_mosquitto()
    folder = venue_folder
    pages_in(folder.parent, monkeypatch)  # wherever this checkout lies
    mqtt_port, ws_port, local = free_port(), free_port(), free_port()
    cwd = os.getcwd()
    os.chdir(folder.parent)  # relative paths, as a person types them
    try:
        assert main(["broker-config", "broker", "--venue", "casino", "--tables", "1-3", "--local",
                     f"127.0.0.1:{local}", "--listen", f"0.0.0.0:{mqtt_port}", "--websockets", f"0.0.0.0:{ws_port}",
                     "--make-certs", "floor.local,127.0.0.1"]) == 0
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    assert "warning" not in err, err
    conf = (folder / "mosquitto.conf").read_text()
    for line in conf.splitlines():
        if line.split(" ")[0] in ("certfile", "keyfile", "password_file", "acl_file", "plugin", "plugin_opt_bindings",
                                  "plugin_opt_password_file"):
            assert Path(line.split(" ", 1)[1]).is_absolute(), line
    if how == "unit":
        user, command = unit_command(folder / UNIT_FILE)
        assert user == "mosquitto" and command[1:] == ["-c", str(folder / "mosquitto.conf")]
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", binary, *command[1:]]
    else:  # "or by hand, as mosquitto: sudo -u mosquitto mosquitto -c ..." -- and plain 'mosquitto -c' as root
        printed = next(line for line in out.splitlines() if line.startswith("or by hand"))
        assert f"mosquitto -c {folder / 'mosquitto.conf'}" in printed
        command = [binary, "-c", str(folder / "mosquitto.conf")]  # root: mosquitto drops to its user
    log = open(folder.parent / "mosquitto.log", "wb")
    process = subprocess.Popen(command, cwd="/", stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: listening(mqtt_port) and listening(ws_port), what="the broker's listeners",
                   alive=process)
        ca = folder / "tls" / "ca.pem"
        user, password = read_credentials(folder / "credentials" / "table-1.toml")
        assert tls_client(mqtt_port, ca, user, password, table_client_id("casino", "1", password)) == 0
        # The client-id plugin loaded, as the broker's own user: table 1's client id is no other login's.
        overlay = read_credentials(folder / "credentials" / "overlay.toml")
        assert tls_client(mqtt_port, ca, *overlay, table_client_id("casino", "1", password)) == 135
        # A tablet opens the dashboard over the TLS websockets listener (http_dir), trusting the floor's CA.
        page = urllib.request.urlopen(f"https://127.0.0.1:{ws_port}/dashboard/",
                                      context=ssl.create_default_context(cafile=str(ca)), timeout=30)
        assert page.status == 200 and b"<html" in page.read().lower()
        assert process.poll() is None
    finally:
        process.terminate()
        process.wait(30)
        log.close()
    assert "Error" not in (folder.parent / "mosquitto.log").read_text(errors="replace")


def test_make_certs_keeps_the_ca_the_tables_were_given(tmp_path, capsys):
    args = ["broker-config", str(tmp_path), "--venue", "v", "--tables", "1", "--listen", "0.0.0.0:8883",
            "--make-certs", "floor.local"]
    assert main(args) == 0
    ca = (tmp_path / "tls" / "ca.pem").read_bytes()
    assert main(args) == 0
    assert (tmp_path / "tls" / "ca.pem").read_bytes() == ca
    assert oct((tmp_path / "tls" / "ca.key").stat().st_mode & 0o777) == "0o600"
    text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", str(tmp_path / "tls" / "server.pem")],
                          capture_output=True, text=True, check=True).stdout
    assert "DNS:floor.local" in text and "TLS Web Server Authentication" in text


@pytest.mark.parametrize("args, message", [
    (["--make-certs", "floor.local", "--certfile", "x.pem"], "--make-certs makes"),
    (["--make-certs", "bad name!"], "neither a host name nor an address"),
    (["--client-id-plugin", "/nonexistent.so"], "no such file: /nonexistent.so"),
])
def test_wrong_broker_setup_options_get_one_line(tmp_path, capsys, args, message):
    assert main(["broker-config", str(tmp_path / "b"), "--venue", "v", "--tables", "1",
                 "--listen", "0.0.0.0:8883", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_without_a_compiler_the_config_still_names_the_plugin_so_the_broker_does_not_start_unbound(
        capsys, monkeypatch, venue_folder):
    # broker-config may run where nothing builds the plugin (the appliance test's guest does): it writes the
    # folder, says in one line what to install, and names the plugin all the same, so a broker started from that
    # folder stops at once instead of running without the client-id binding.
    from shotclock.floor.broker import build

    tmp_path = venue_folder  # one mosquitto can enter: else that is said too
    pages_in(tmp_path.parent, monkeypatch)
    binary = require_mosquitto()
    local = free_port()
    with monkeypatch.context() as m:  # no compiler on the PATH
        m.setattr("shotclock.floor.broker_config.build_plugin", build.build_plugin)
        m.setenv("PATH", str(tmp_path.parent / "nothing"))
        m.delenv("CC", raising=False)
        assert main(["broker-config", str(tmp_path), "--venue", "v", "--tables", "1", "--local",
                     f"127.0.0.1:{local}", "--websockets", "none"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no C compiler" in err and build.APT_COMMAND in err
    assert f"plugin {tmp_path.resolve() / 'client-ids.so'}" in (tmp_path / "mosquitto.conf").read_text()
    assert not (tmp_path / "client-ids.so").exists()
    done = subprocess.run([binary, "-c", str(tmp_path / "mosquitto.conf")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and "client-ids.so" in done.stdout + done.stderr
    assert not port_open(local)


def test_broker_config_builds_the_plugin_and_names_what_is_missing(tmp_path, capsys, monkeypatch, venue_folder):
    from shotclock.floor.broker import build

    pages_in(venue_folder.parent, monkeypatch)
    monkeypatch.setattr("shotclock.floor.broker_config.build_plugin", build.build_plugin)  # the compiler itself
    try:
        build.build_plugin(tmp_path / "probe.so")
    except build.PluginBuildError as exc:
        missing(str(exc))
    assert main(["broker-config", str(venue_folder), "--venue", "v", "--tables", "1"]) == 0
    out, err = capsys.readouterr()
    assert "built client-ids.so" in out and not err, err
    assert (venue_folder / "client-ids.so").read_bytes()[:4] == b"\x7fELF"
    # A compiler that cannot find Mosquitto's plugin header: the package that has it, in one line.
    fake = tmp_path / "cc"
    fake.write_text("#!/bin/sh\necho 'x.c:34:10: fatal error: mosquitto_broker.h: No such file or directory' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    with pytest.raises(build.PluginBuildError) as refused:
        build.build_plugin(tmp_path / "c" / "client-ids.so")
    assert "mosquitto_broker.h is missing (Debian's mosquitto-dev)" in str(refused.value)
    assert "\n" not in str(refused.value) and not list((tmp_path / "c").iterdir())  # nothing half-built left


def test_the_packages_that_build_the_plugin_are_debians_and_dev_installs_them():
    from shotclock.floor.broker.build import APT_COMMAND, BUILD_PACKAGES

    dev = (Path(__file__).parent.parent / "dev").read_text()
    assert all(f" {name}" in dev.split("need_mosquitto()")[1].split("\n}")[0] for name in BUILD_PACKAGES)
    assert APT_COMMAND in (Path(__file__).parent.parent / "docs" / "network.md").read_text()
    if not shutil.which("apt-cache"):
        pytest.skip("no apt-cache here: the names are checked on Debian")
    known = subprocess.run(["apt-cache", "show", "--no-all-versions", *BUILD_PACKAGES], capture_output=True,
                           text=True).stdout  # an unknown name gets no entry
    assert [name for name in BUILD_PACKAGES if f"Package: {name}\n" not in known] == []


def test_a_folder_the_brokers_user_cannot_enter_is_said_when_written(capsys, monkeypatch, venue_folder):
    # Before: written without a word under root's home (0700); the printed command then failed with mosquitto's
    # "Unable to open config file".
    home = venue_folder.parent / "root-home"
    home.mkdir(mode=0o700)
    pages_in(venue_folder.parent, monkeypatch)
    assert main(["broker-config", str(home / "broker"), "--venue", "v", "--tables", "1", "--run-as", "nobody"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("warning: ")
    assert f"user nobody cannot enter the folder {home} (owner {getpass.getuser()}, mode 0700)" in err
    assert f"cannot read {home / 'broker' / 'mosquitto.conf'}" in err and (home / "broker" / "mosquitto.conf").exists()


def test_pages_the_brokers_user_cannot_read_are_said(capsys, monkeypatch, venue_folder):
    closed = venue_folder.parent / "closed"
    closed.mkdir(mode=0o700)
    pages = pages_in(closed, monkeypatch)
    assert main(["broker-config", str(venue_folder), "--venue", "v", "--tables", "1", "--run-as", "nobody"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot enter the folder {closed}" in err and f"serve the pages in {pages}" in err
    assert main(["broker-config", str(venue_folder), "--venue", "v", "--tables", "1", "--run-as", "nobody",
                 "--no-pages"]) == 0
    assert "cannot" not in capsys.readouterr().err
