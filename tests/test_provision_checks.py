"""``shotclock provision`` checks everything the broker folder knows before it writes a first-boot file."""

from pathlib import Path

import pytest

from shotclock.cli import main
from shotclock.shell.firstboot import FILENAME


@pytest.fixture(scope="module")
def broker(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("venue") / "broker"
    assert main(["broker-config", str(folder), "--venue", "casino", "--tables", "1-40", "--listen", "0.0.0.0:8883",
                 "--make-certs", "floor.local,192.168.10.2"]) == 0
    return folder


def provision(broker: Path, out: Path, *args: str, venue: str = "casino", tables: str = "1-40",
              address: str = "floor.local:8883") -> int:
    return main(["provision", str(out), "--broker-dir", str(broker), "--venue", venue, "--tables", tables,
                 "--broker", address, *args])


def test_the_guides_provisioning_takes_the_folders_ca(broker, tmp_path, capsys):
    assert provision(broker, tmp_path / "cards") == 0
    assert "tls/ca.pem" in capsys.readouterr().out
    text = (tmp_path / "cards" / "7" / FILENAME).read_text()
    assert (broker / "tls" / "ca.pem").read_text().strip().splitlines()[1] in text and 'check = "' in text


@pytest.mark.parametrize("args, message", [
    ({"venue": "casnio"}, "is for venue 'casino'"),
    ({"tables": "1-42"}, "tables 41, 42 are not in the broker folder"),
    ({"address": "floor.local:1883"}, "takes tables on port 8883, not 1883"),
    ({"address": "flor.local:8883"}, "certificate"),
    ({"address": "192.168.10.3:8883"}, "is not for 192.168.10.3"),
])
def test_what_the_broker_folder_knows_is_checked(broker, tmp_path, capsys, args, message):
    # Issue 29, 2: --venue casnio against a folder for casino wrote 40 files whose tables never appeared.
    assert provision(broker, tmp_path / "cards", **args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "cards").exists()


def test_a_credential_that_no_longer_matches_passwd_is_refused(broker, tmp_path, capsys):
    copy = tmp_path / "broker"
    import shutil
    shutil.copytree(broker, copy)
    cred = copy / "credentials" / "table-3.toml"
    cred.write_text(cred.read_text().replace('password = "', 'password = "x'))
    assert provision(copy, tmp_path / "cards", tables="3") == 2
    assert "table 3's credential" in capsys.readouterr().err


@pytest.mark.parametrize("pem, message", [
    ("-----BEGIN CERTIFICATE-----garbage", "not a certificate TLS can read"),
    ("hello", "not a PEM certificate"),
    (None, "did not sign the broker's certificate"),  # another, valid CA
])
def test_a_ca_is_parsed_and_must_have_signed_the_broker(broker, tmp_path, capsys, pem, message):
    ca = tmp_path / "ca.pem"
    if pem is None:
        assert main(["broker-config", str(tmp_path / "other"), "--venue", "x", "--tables", "1",
                     "--listen", "0.0.0.0:8883", "--make-certs", "floor.local"]) == 0
        ca = tmp_path / "other" / "tls" / "ca.pem"
    else:
        ca.write_text(pem)
    capsys.readouterr()
    assert provision(broker, tmp_path / "cards", "--ca-file", str(ca)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_template_key_the_first_boot_file_sets_is_refused_not_dropped(broker, tmp_path, capsys):
    # Issue 29, 2: a --template with a [network] key dropped it silently.
    template = tmp_path / "table.toml"
    template.write_text('language = "en"\n[network]\nhost = "10.0.0.9"\nroom = "east"\n')
    assert provision(broker, tmp_path / "cards", "--template", str(template)) == 2
    err = capsys.readouterr().err
    assert "sets network.host" in err and "room" not in err
    # A master card's own config as the template: its defaults and its table name say nothing.
    template.write_text('table = "Tafel 1"\nlanguage = "en"\n[network]\nenabled = false\nhost = "localhost"\n')
    assert provision(broker, tmp_path / "cards", "--template", str(template), tables="2") == 0
    assert "gives way to --names" in capsys.readouterr().out


def test_an_old_broker_folder_is_named(tmp_path, capsys):
    (tmp_path / "credentials").mkdir()
    assert provision(tmp_path, tmp_path / "cards") == 2
    assert "no broker.toml" in capsys.readouterr().err


def test_the_guides_template_example_is_a_template_provision_takes(broker, tmp_path, capsys):
    # Before: the guide named 'table.toml' and said nothing of what goes in it.
    import re
    import tomllib

    from shotclock.shell.firstboot import _flatten, parse

    guide = (Path(__file__).parent.parent / "hardware" / "README.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", guide, re.S)
    example = next((b for b in blocks if "--template table.toml" in b.splitlines()[0]), None)
    assert example is not None, "hardware/README.md shows no table.toml for provision --template"
    template = tmp_path / "table.toml"
    template.write_text("\n".join(line.removeprefix("   ") for line in example.splitlines()) + "\n")
    assert provision(broker, tmp_path / "cards", "--template", str(template), tables="7") == 0, capsys.readouterr()
    path = tmp_path / "cards" / "7" / FILENAME
    assert parse(path.read_text(), str(path)).config == _flatten(tomllib.loads(template.read_text()))
