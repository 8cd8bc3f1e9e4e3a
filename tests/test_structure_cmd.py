"""``shotclock structure FILE`` and ``load_structure`` (shell/structurecmd.py): the reader chosen by the file, its
encoding found or named, the file bounded; every bad file is one line naming the file, the line or level and the
field, exit 2, nothing on standard output, never a traceback."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from shotclock.cli import main
from shotclock.core.structure import Structure
from shotclock.errors import ShotclockError, StructureError
from shotclock.shell import structurecmd
from shotclock.shell.structurecmd import load_structure

FIXTURES = Path(__file__).parent / "fixtures" / "structures"


def run(capsys, *args):
    code = main(["structure", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_each_format_prints_its_levels_numbered_and_its_json_is_the_structure(capsys, name):
    code, out, err = run(capsys, FIXTURES / name)
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert "level 1 " in lines[1] and any(line.lstrip().startswith("break ") for line in lines)
    code, out, err = run(capsys, FIXTURES / name, "--json")
    assert code == 0 and out.count("\n") == 1
    assert msgspec.json.decode(out, type=Structure) == load_structure(FIXTURES / name)


def test_a_csvs_title_is_its_files_name(tmp_path):
    assert load_structure(FIXTURES / "plain.csv").title == "plain"
    assert load_structure(FIXTURES / "sunday.tdt").title == "Sunday Deepstack €250"


def test_an_old_tdt_in_windows_1252_is_read_as_such_and_an_encoding_may_be_named(tmp_path):
    old = load_structure(FIXTURES / "club-2019.tdt")
    assert old.title == "Café Zürich Freezeout" and old.stages[2].name == "Pause café"
    assert load_structure(FIXTURES / "club-2019.tdt", encoding="cp1252") == old
    latin = tmp_path / "latin.csv"
    latin.write_bytes("small_blind,big_blind,minutes,name\n25,50,20,Hold'em \u00e0 la carte\n".encode("latin-1"))
    assert load_structure(latin, encoding="latin-1").stages[0].name == "Hold'em à la carte"
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfsmall_blind,big_blind,minutes\n25,50,20\n")
    assert load_structure(bom).stages[0].blinds == "25/50"


def bad(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@pytest.mark.parametrize("name, data, message", [
    ("s.csv", "sb,bb,minutes\n25,50,20\n0,100,20\n",
     "{}: line 3 (level 2), column 'sb': 'small_blind' must be a whole number of chips from 1 to 1000000000, not 0"),
    ("s.csv", "sb,bb,minutes\n-25,50,20\n",
     "{}: line 2 (level 1), column 'sb': 'small_blind' must be a whole number of chips from 1 to 1000000000, "
     "not \"-25\""),
    ("s.csv", "small_blind,big_blind,minutes\n25,50,241\n",
     "{}: line 2 (level 1), column 'minutes': 'level_minutes' must be a number of minutes from 1 to 240, not 241"),
    ("s.csv", "small_blind,big_blind,minutes,break\n25,50,20,\n25,50,15,dinner\n",
     "{}: line 3 (the break after level 1), column 'small_blind': a break has no blinds, ante or hands: "
     "'small_blind' is 25"),
    ("s.csv", 'small_blind,big_blind,minutes\n25,50,20\n"25"x,50,20\n',
     "{}: line 3: not CSV (',' expected after '\"')"),
    ("s.tdt", '{V: "3", T: new Tournament({Levels: [new GameRound({Minutes: 20, SmallBlind: 25, BigBlind: '
              'eval("50")})]})}',
     "{}: line 1, column 92: the name 'eval' where a value must be: only true, false, null, undefined, "
     "new Name(…) and Map.from(…) are read (nothing is evaluated)"),
    ("s.tdt", '{V: "3", T: new Tournament({Levels: [new GameRound({Minutes: 0, SmallBlind: 25, BigBlind: 50})]})}',
     "{}: level 1 (line 1, column 38), Minutes: 'level_minutes' must be a number of minutes from 1 to 240, not 0"),
    ("s.toml", '[[stage]]\nsmall_blind = 25\nbig_blind = 20\nminutes = 20\n',
     "{}: line 2 (level 1): 'small_blind' (25) must not be more than 'big_blind' (20)"),
    ("s.toml", b'title = "Caf\xe9"\n', "{}: line 1, column 13: not UTF-8 (as TOML is) text (byte 0xe9)"),
    ("s.tdt", b'{V: "\x81"}', "{}: line 1, column 6: not UTF-8 or Windows-1252 text (byte 0x81); name its "
                              "encoding with --encoding"),
    ("s.xlsx", "", "{}: not a structure file shotclock reads: .tdt (The Tournament Director's saved tournament), "
                   ".csv (its rounds export, or small_blind,big_blind,ante,minutes,break) or .toml "
                   "(docs/structure.md)"),
])
def test_a_bad_file_is_one_line_naming_file_line_or_level_and_field_exit_2(capsys, tmp_path, name, data, message):
    path = bad(tmp_path, name, data)
    code, out, err = run(capsys, path)
    assert (code, out) == (2, "") and err == f"shotclock: {message.format(path)}\n"


def test_a_missing_file_a_folder_a_fifo_a_device_and_a_big_file_are_refused_unread(capsys, tmp_path, monkeypatch):
    assert run(capsys, tmp_path / "none.csv")[2] == f"shotclock: {tmp_path / 'none.csv'}: file not found (the structure file)\n"
    (tmp_path / "dir.tdt").mkdir()
    assert "a folder, not a structure file" in run(capsys, tmp_path / "dir.tdt")[2]
    fifo = tmp_path / "pipe.tdt"
    os.mkfifo(fifo)  # opened for reading, it would wait for a writer: refused before it is opened
    proc = subprocess.run([sys.executable, "-m", "shotclock", "structure", str(fifo)], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2, "", f"shotclock: {fifo}: a FIFO, not a regular file (a structure file is a file of text)\n")
    device = tmp_path / "zero.tdt"
    device.symlink_to("/dev/zero")  # endless: refused, never read
    assert run(capsys, device) == (
        2, "", f"shotclock: {device}: a character device, not a regular file (a structure file is a file of text)\n")
    monkeypatch.setattr(structurecmd, "FILE_MAX", 100)
    big = bad(tmp_path, "big.csv", "small_blind,big_blind,minutes\n" + "25,50,20\n" * 20)
    code, out, err = run(capsys, big)
    assert code == 2 and err.startswith(f"shotclock: {big}: more than 100 bytes")


def test_an_unknown_encoding_is_a_usage_error(capsys):
    code, out, err = run(capsys, FIXTURES / "plain.csv", "--encoding", "klingon")
    assert (code, out) == (2, "") and err == "shotclock: unknown encoding 'klingon' (for example utf-8, cp1252, " \
                                             "latin-1)\n"


def test_what_a_reader_skipped_is_said_as_a_warning_and_the_structure_still_read(capsys, caplog, tmp_path):
    path = bad(tmp_path, "t.tdt", '{V: "3", T: new Tournament({Levels: [new GameRound({Minutes: 20, SmallBlind: 25, '
                                  'BigBlind: 50}), new GameBlinker({On: true})]})}')
    code, out, err = run(capsys, path)
    assert code == 0 and "level 1" in out
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("shotclock.structure", "WARNING",
         f"{path}: entry 2 of Levels is a GameBlinker, not a GameRound or GameBreak: skipped")]


def test_load_structure_raises_the_structure_error_with_the_file_named(tmp_path):
    path = bad(tmp_path, "s.csv", "sb,bb,minutes\n25,50,0\n")
    with pytest.raises(StructureError) as caught:
        load_structure(path)
    assert caught.value.where == f"{path}: line 2 (level 1), column 'minutes'"
    assert caught.value.problem.startswith("'level_minutes' must be")
    with pytest.raises(ShotclockError):
        load_structure(tmp_path / "none.tdt")


def test_a_name_with_a_newline_is_shown_on_one_line(capsys, tmp_path):
    path = bad(tmp_path, "a\nb.csv", "sb,bb,minutes\n0,50,20\n")
    code, out, err = run(capsys, path)
    assert code == 2 and err.count("\n") == 1 and "a\\nb.csv" in err


def test_the_command_never_prints_a_traceback(tmp_path):
    """As a user runs it: a separate process, a file of random bytes with each suffix."""
    exe = shutil.which("shotclock", path=str(Path(sys.executable).parent))
    data = bytes(range(256)) * 4
    for suffix in (".tdt", ".csv", ".toml"):
        path = bad(tmp_path, f"junk{suffix}", data)
        proc = subprocess.run([exe, "structure", str(path)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_the_examples_in_docs_structure_read_as_it_says():
    """docs/structure.md's CSV and TOML examples are read by the readers, and its JSON is what --json prints."""
    from shotclock.core.structure_formats import read_csv, read_toml

    doc = (Path(__file__).parent.parent / "docs" / "structure.md").read_text(encoding="utf-8")
    blocks = doc.split("```")[1::2]
    plain = next(b for b in blocks if b.startswith("\nsmall_blind,"))
    export = next(b for b in blocks if b.startswith("\nLevel,"))
    toml = next(b for b in blocks if b.startswith("toml\n"))
    assert [s.blinds or s.name for s in read_csv(plain).stages] == ["25/50", "50/100", "color-up",
                                                                    "100/200, BB ante 200"]
    assert [s.blinds or s.name for s in read_csv(export).stages] == ["25/50", "color-up", "100/200, ante 200"]
    assert read_toml(toml.removeprefix("toml\n")) == load_structure(FIXTURES / "final-table.toml")
    shown = next(b for b in blocks if b.startswith("json\n")).removeprefix("json\n")
    structure = msgspec.json.decode(shown, type=Structure)
    assert load_structure(FIXTURES / "sunday.tdt").stages[:1] == structure.stages[:1]
