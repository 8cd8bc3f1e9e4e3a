"""First-boot provisioning: 'shotclock provision' writes the files, 'shotclock firstboot' takes one.

The device's side runs against a temporary folder standing for the root file system, with the
boot partition at boot/firmware, as Raspberry Pi OS mounts it.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from shotclock.cli import main
from shotclock.config.loading import load_config
from shotclock.errors import ShotclockError
from shotclock.floor.broker_config import chrony_text
from shotclock.shell import firstboot
from shotclock.shell.firstboot import FILENAME, FirstBoot, apply, parse, render

def make_broker(tmp_path: Path, tables: str = "1-3", venue: str = "casino") -> Path:
    """broker-config as the guide runs it: a TLS listener for the tables, the floor's CA made."""
    broker = tmp_path / "broker"
    assert main(["broker-config", str(broker), "--venue", venue, "--tables", tables, "--listen", "0.0.0.0:8883",
                 "--make-certs", "floor.local,192.168.10.2"]) == 0
    return broker


def provisioned(tmp_path: Path, *extra: str) -> Path:
    """broker-config for tables 1-3, then provision them; the folder of first-boot files."""
    broker = make_broker(tmp_path)
    out = tmp_path / "cards"
    assert main(["provision", str(out), "--broker-dir", str(broker), "--venue", "casino", "--tables", "1-3",
                 "--broker", "floor.local:8883", "--ca-file", str(broker / "tls" / "ca.pem"), "--names", "Tafel {id}",
                 *extra]) == 0
    return out


def ca_text(tmp_path: Path) -> str:
    return (tmp_path / "broker" / "tls" / "ca.pem").read_text()


def card(tmp_path: Path, firstboot_file: Path) -> Path:
    """A root folder whose boot partition holds ``firstboot_file``."""
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / FILENAME).write_bytes(firstboot_file.read_bytes())
    return root


def test_provision_writes_one_secret_file_per_table_with_the_brokers_password(tmp_path, capsys):
    out = provisioned(tmp_path)
    files = sorted(out.glob(f"*/{FILENAME}"))
    assert [p.parent.name for p in files] == ["1", "2", "3"]
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fb = parse(files[1].read_text(), "t")
    broker_secret = tomllib.loads((tmp_path / "broker/credentials/table-2.toml").read_text())
    assert (fb.table_id, fb.name, fb.venue, fb.host, fb.port) == ("2", "Tafel 2", "casino", "floor.local", 8883)
    assert (fb.username, fb.password) == (broker_secret["username"], broker_secret["password"])
    assert fb.ca == ca_text(tmp_path) and fb.time_server == "floor.local"  # the broker's host serves time unless told


def test_provision_needs_the_brokers_credentials_first(tmp_path, capsys):
    broker = make_broker(tmp_path, tables="1")
    (broker / "credentials" / "table-1.toml").unlink()
    capsys.readouterr()  # broker-config's own words (tmp_path lies where mosquitto cannot enter: it says so)
    code = main(["provision", str(tmp_path / "out"), "--broker-dir", str(broker), "--venue", "casino",
                 "--tables", "1", "--broker", "floor.local:8883"])
    err = capsys.readouterr().err
    assert code == 2 and "no credential for table 1" in err and "broker-config" in err and err.count("\n") == 1


def test_provision_refuses_a_template_that_would_break_the_table(tmp_path, capsys):
    (tmp_path / "tpl.toml").write_text('[clock]\nseconds = -4\n')
    broker = make_broker(tmp_path, tables="1")
    code = main(["provision", str(tmp_path / "out"), "--broker-dir", str(broker), "--venue", "casino",
                 "--tables", "1", "--broker", "floor.local:8883", "--template", str(tmp_path / "tpl.toml")])
    err = capsys.readouterr().err
    assert code == 2 and "clock.seconds" in err and not (tmp_path / "out").exists()


def test_first_boot_moves_everything_to_etc_and_removes_the_secret_from_the_boot_partition(tmp_path):
    out = provisioned(tmp_path, "--time-server", "10.0.0.1")
    root = card(tmp_path, out / "2" / FILENAME)
    me = (os.getuid(), os.getgid())
    fb, path = apply(root, owner=me)
    assert fb.table_id == "2" and not path.exists()
    assert list((root / "boot" / "firmware").iterdir()) == []
    etc = root / "etc" / "shotclock"
    secret = etc / "credentials.toml"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and (secret.stat().st_uid, secret.stat().st_gid) == me
    assert tomllib.loads(secret.read_text())["username"] == "table-2"
    assert (etc / "ca.pem").read_text() == ca_text(tmp_path)
    config = load_config(etc / "config.toml")  # a valid configuration: the device starts as table 2
    assert config["table"] == "Tafel 2" and config["network.enabled"] is True
    assert (config["network.table_id"], config["network.venue"], config["network.host"]) == ("2", "casino",
                                                                                            "floor.local")
    assert config["network.credentials"] == "/etc/shotclock/credentials.toml"
    assert config["network.ca_file"] == "/etc/shotclock/ca.pem" and config["time.server"] == "10.0.0.1"
    assert "NTP=10.0.0.1" in (root / firstboot.TIMESYNC_CONF).read_text()
    # Cards cloned from one master start with one host name: each table gets its own.
    assert (root / "etc" / "hostname").read_text() == "shotclock-2\n"
    assert "127.0.1.1\tshotclock-2" in (root / "etc" / "hosts").read_text()


def test_first_boot_keeps_the_other_keys_of_an_existing_config(tmp_path):
    out = provisioned(tmp_path)
    root = card(tmp_path, out / "1" / FILENAME)
    (root / "etc" / "shotclock").mkdir(parents=True)
    (root / "etc" / "shotclock" / "config.toml").write_text('preset = "wsop"\ntable = "old"\n[clock]\ncountdown = 7\n')
    apply(root, owner=(os.getuid(), os.getgid()))
    config = load_config(root / "etc" / "shotclock" / "config.toml")
    assert (config["preset"], config["clock.countdown"], config["table"]) == ("wsop", 7, "Tafel 1")


def test_first_boot_template_keys_reach_the_device(tmp_path):
    (tmp_path / "tpl.toml").write_text('language = "en"\n[sound]\nvolume = 0.5\n')
    out = provisioned(tmp_path, "--template", str(tmp_path / "tpl.toml"))
    root = card(tmp_path, out / "3" / FILENAME)
    apply(root, owner=(os.getuid(), os.getgid()))
    config = load_config(root / "etc" / "shotclock" / "config.toml")
    assert (config["language"], config["sound.volume"]) == ("en", 0.5)


def test_a_bad_first_boot_file_is_named_and_left_in_place(tmp_path, capsys):
    root = tmp_path / "root"
    (root / "boot").mkdir(parents=True)  # an older image: the partition at /boot
    bad = root / "boot" / FILENAME
    bad.write_text('[table]\nid = "7"\n')
    code = main(["firstboot", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 2 and FILENAME in err and "[table] name" in err and "[broker] password" in err
    assert err.count("\n") == 1 and bad.exists()
    assert [p.name for p in (root / "etc" / "shotclock").iterdir()] == ["firstboot-failed.txt"]  # no config


def test_without_a_file_first_boot_does_nothing(tmp_path, capsys):
    assert main(["firstboot", "--root", str(tmp_path)]) == 0
    assert "nothing to do" in capsys.readouterr().out and list(tmp_path.iterdir()) == []


def test_render_and_parse_round_trip_with_quotes_and_config():
    fb = FirstBoot(table_id="feature", name='Tafel "A" ë', venue="v", host="h", port=1883, username="table-feature",
                   password='p"\\q', ca="", tls=False, time_server="", config={"clock.seconds": 40, "preset": "wsop"},
                   check=firstboot.credential_check("v", "feature", 'p"\\q'), replace=True)
    assert parse(render(fb), "t") == fb


def test_a_template_with_top_level_keys_and_sections_makes_a_file_first_boot_can_read():
    # Before: keys sorted by name put 'preset' after [config.pins], so [config] came twice: not TOML, and every
    # table of a template with a preset and its pins (or a room) refused its first-boot file.
    config = {"language": "en", "pins.floor": 4, "preset": "tda-2024", "network.room": "Main", "sound.volume": 0.6}
    fb = FirstBoot(table_id="7", name="Tafel 7", venue="v", host="h", port=8883, username="table-7", password="p",
                   config=config, check=firstboot.credential_check("v", "7", "p"))
    text = render(fb)
    assert text.count("[config]") == 1 and parse(text, "t") == fb


def test_hostnames_are_valid_for_any_table_id():
    assert firstboot.hostname_for("Feature_1") == "shotclock-feature-1"
    with pytest.raises(ShotclockError, match="hostname"):
        parse(render(FirstBoot("1", "T", "v", "h", 1, "u", "p", hostname="bad_name")), "t")


def test_parse_refuses_unknown_config_keys():
    text = render(FirstBoot("1", "T", "v", "h", 1, "u", "p")) + '\n[config]\nclok = 1\n'
    with pytest.raises(ShotclockError, match="unknown keys: clok"):
        parse(text, "t")


def test_broker_config_writes_chrony_beside_mosquitto(tmp_path, capsys):
    assert main(["broker-config", str(tmp_path), "--venue", "v", "--tables", "1", "--time", "192.168.10.7/24"]) == 0
    text = (tmp_path / "chrony.conf").read_text()
    assert "allow 192.168.10.0/24" in text and "local stratum" in text
    with pytest.raises(ShotclockError, match="--time"):
        chrony_text("not-a-network")


def swap_identity(path: Path, from_file: Path) -> None:
    """Put the [broker] credential (username, password, check) of ``from_file`` into ``path``."""
    import dataclasses

    own, other = parse(path.read_text(), "a"), parse(from_file.read_text(), "b")
    path.write_text(render(dataclasses.replace(own, username=other.username, password=other.password,
                                               check=other.check)))


def test_a_card_that_is_a_table_takes_no_other_identity_unless_told(tmp_path, capsys):
    # Issue 30, 3: a second first-boot file turned table 1 into table 2 (exit 0, no warning).
    out = provisioned(tmp_path)
    root = card(tmp_path, out / "1" / FILENAME)
    assert main(["firstboot", "--root", str(root)]) == 0
    second = root / "boot" / "firmware" / FILENAME
    second.write_bytes((out / "2" / FILENAME).read_bytes())
    capsys.readouterr()
    assert main(["firstboot", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "already is table 1 of venue casino" in err and "replace = true" in err and err.count("\n") == 1
    assert load_config(root / "etc/shotclock/config.toml")["network.table_id"] == "1" and second.exists()
    assert "replace = true" in firstboot.failure(root)  # shown on screen and by selftest
    # The installer says so: the card becomes table 2, and the failure is gone.
    second.write_text(second.read_text().replace('[table]\n', '[table]\nreplace = true\n', 1))
    assert main(["firstboot", "--root", str(root)]) == 0
    assert load_config(root / "etc/shotclock/config.toml")["network.table_id"] == "2"
    assert firstboot.failure(root) is None


def test_the_same_table_again_needs_no_word(tmp_path):
    out = provisioned(tmp_path)
    root = card(tmp_path, out / "1" / FILENAME)
    assert main(["firstboot", "--root", str(root)]) == 0
    (root / "boot" / "firmware" / FILENAME).write_bytes((out / "1" / FILENAME).read_bytes())
    assert main(["firstboot", "--root", str(root)]) == 0


@pytest.mark.parametrize("what", ["username", "password"])
def test_a_credential_of_another_table_is_refused_at_first_boot(tmp_path, capsys, what):
    # Issue 30, 3: id "1" with table 2's credential was taken; the broker then refused everything.
    out = provisioned(tmp_path)
    capsys.readouterr()
    path = out / "1" / FILENAME
    swap_identity(path, out / "2" / FILENAME)
    if what == "password":  # a hand-edited username: the check value still tells
        path.write_text(path.read_text().replace('username = "table-2"', 'username = "table-1"'))
    root = card(tmp_path, path)
    assert main(["firstboot", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert ("not table 1's login" if what == "username" else "check value differs") in err
    assert err.count("\n") == 1 and not (root / "etc/shotclock/credentials.toml").exists()


@pytest.mark.parametrize("text, message", [
    (b"[table]\nid = \"1\"\nname = \"Caf\xe9\"\n", "not UTF-8 text"),
    (b"[table]\nid = 1\n[broker]\nca = \"-----BEGIN CERTIFICATE-----garbage\"\n", "not a certificate TLS can read"),
    (b"table = 3\n", "[table] id is missing"),
])
def test_a_broken_first_boot_file_gets_one_line(tmp_path, capsys, text, message):
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / FILENAME).write_bytes(text)
    assert main(["firstboot", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert message in firstboot.failure(root)


def test_a_refused_first_boot_file_shows_on_the_tables_screen_and_fails_selftest(tmp_path, monkeypatch, mock_factory,
                                                                                vclock):
    # Issue 30, 3: a failed provisioning was said only in the unit's journal.
    from shotclock.config.typed import Config
    from shotclock.core.faults import FirstBootFailed
    from shotclock.core.view import view_at
    from shotclock.shell.device import build_device
    from shotclock.shell.selftest import check_firstboot

    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / FILENAME).write_bytes(b"\xff\xfe")
    assert main(["firstboot", "--root", str(root)]) == 2
    monkeypatch.setattr(firstboot, "SYSTEM_ROOT", root)
    check = check_firstboot()
    assert check.status == "FAIL" and "not UTF-8" in check.line()
    device = build_device(Config(), mock_factory, clock=vclock)
    try:
        r = device.loop.step()
        [fault] = [f for f in r.faults if isinstance(f, FirstBootFailed)]
        assert "not UTF-8" in fault.detail and fault.to_dict()["kind"] == "firstboot"
        assert "Inrichting mislukt · zie shotclock selftest" in view_at(r.state, r.now, faults=r.faults).faults
    finally:
        device.close()
    assert check_firstboot(tmp_path / "clean").status == "OK"
