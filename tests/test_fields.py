"""The one table of fields (core/fields.py): every input's field checked by the same rule and bound, and one clear
line for each bad one -- the replay format, the floor network's command, the seating CSV and the command line."""

import json

import pytest

from shotclock.cli import main
from shotclock.core import events as ev
from shotclock.core.fields import BANK_MAX, CHIPS_MAX, FIELDS, name_problem, text_problem
from shotclock.core.replay import parse_events
from shotclock.core.seated import SeatedEngine
from shotclock.core.settings import SeatSettings, Settings, ShotSettings
from shotclock.core.wire import RecentIds, check_command, command_problem
from shotclock.errors import ReplayFormatError

SURROGATE = "M\udcf6ller"  # "Möller" typed on a Latin-1 terminal, as Python's argv decodes it (surrogateescape)


@pytest.mark.parametrize("text", [SURROGATE, "\ud800", "a\tb", "a\u200fb", "a\u2028b", " ", "", "x" * 41, 7, None])
def test_the_text_rule_refuses_what_no_screen_log_or_wire_can_take(text):
    assert name_problem(text) is not None
    try:
        ok = json.dumps(text, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        ok = None
    assert ok is None or text_problem(text, 40) is not None


def test_a_lone_surrogate_is_named_as_what_it_is():
    assert name_problem(SURROGATE) == ("a name must be valid Unicode (a lone surrogate: was it typed on a terminal "
                                       "that is not UTF-8?)")
    assert name_problem("Möller") is None and name_problem("Ōkubo 大") is None


def command(**fields) -> bytes:
    return json.dumps({"id": "a", "sender": "floor", "sent_ms": 1, **fields}).encode()


@pytest.mark.parametrize("fields", [{"name": "seat", "seat": 2, "player": SURROGATE},
                                    {"name": "rename", "seat": 2, "player": SURROGATE},
                                    {"name": "seating", "players": [[1, "Ana"], [2, SURROGATE]]},
                                    {"name": "pause", "sender": SURROGATE}, {"name": "pause", "id": "a\nb"}])
def test_the_network_refuses_a_command_with_bad_text(fields):
    refused = check_command(command(**fields), 0, RecentIds(10))
    assert refused.reason == "malformed", refused


def test_a_replay_line_with_a_lone_surrogate_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t":0,"event":"seat","seat":1,"name":"M\\udcf6ller"}\n{"t":1,"event":"hand"}\n')
    (tmp_path / "c.toml").write_text("[seats]\ntrack = true\n")
    assert main(["replay", "--config", str(tmp_path / "c.toml"), str(path)]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == (f"shotclock: {path}: line 1: 'name': a name must be valid Unicode (a lone surrogate: "
                           "was it typed on a terminal that is not UTF-8?)") and out == ""


@pytest.mark.parametrize("key, value", [("chips", 51), ("chips", 2.5), ("bank", 36001), ("seconds", -1),
                                        ("seat", 11), ("seat", 4.0), ("seat", True)])
def test_the_replay_format_and_the_wire_bound_a_field_alike(key, value):
    name = "seat" if key in ("bank", "chips", "seat") else "top_up"
    seat = {"seat": 1} if name == "seat" and key != "seat" else {}
    with pytest.raises(ReplayFormatError) as caught:
        parse_events([json.dumps({"t": 0, "event": name, **seat, key: value})])
    wire = command_problem(json.loads(command(name=name, **seat, **{key: value})))
    assert str(caught.value) == f"line 1: {wire}" == f"line 1: {FIELDS[key].problem(value)}"


def test_a_field_an_input_does_not_take_is_named_alike_in_a_replay_line_and_a_command():
    with pytest.raises(ReplayFormatError) as caught:
        parse_events(['{"t":0,"event":"top_up","seat":3}'])
    assert str(caught.value) == "line 1: the 'top_up' event takes no field 'seat' (it takes 'chips', 'seconds')"
    assert command_problem(json.loads(command(name="top_up", seat=3))) == \
        "the 'top_up' command takes no field 'seat' (it takes 'chips', 'seconds')"


def test_a_float_seat_is_named_as_written_not_as_the_number_it_rounds_to():
    assert FIELDS["seat"].problem(4.0) == "'seat' must be a whole seat number from 1 to 10, not 4.0"
    with pytest.raises(ReplayFormatError, match=r"not 4\.0$"):
        parse_events(['{"t":0,"event":"empty","seat":4.0}'])


def test_a_missing_field_names_the_input_and_what_the_field_is():
    with pytest.raises(ReplayFormatError) as caught:
        parse_events(['{"t":0,"event":"seat"}'])
    assert str(caught.value) == "line 1: the 'seat' event needs 'seat' (a seat number from 1 to 10)"
    assert command_problem(json.loads(command(name="seat"))) == \
        "the 'seat' command needs 'seat' (a seat number from 1 to 10)"


def test_two_top_ups_stop_at_the_bound_of_a_bank_and_of_chips():
    settings = Settings(mode="shot", shot=ShotSettings(allowance=3), seats=SeatSettings(track=True, count=2, bank=60))
    engine = SeatedEngine(settings)
    for event in (ev.TopUp(0, chips=CHIPS_MAX, seconds=BANK_MAX), ev.TopUp(1, chips=CHIPS_MAX, seconds=BANK_MAX)):
        engine.handle(event)
    out = engine.handle(ev.EmptySeat(2, 1))
    left = next(o for o in out if o.TYPE == "seat")
    assert (left.bank, left.chips) == (BANK_MAX, CHIPS_MAX)


def test_a_latin1_seating_csv_names_its_line_and_reads_with_an_encoding(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_bytes(b"seat,name\n1,Ana\n2,M\xf6ller\n")
    assert main(["seating", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"shotclock: {path}: line 3: not utf-8 text (byte 0xf6 at column 4); if the export is Latin-1 or "
        "Windows-1252, pass --encoding cp1252")
    assert main(["seating", "--encoding", "cp1252", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == [[1, "Ana"], [2, "Möller"]]
    assert main(["seating", "--encoding", "klingon", str(path)]) == 2
    assert "unknown encoding 'klingon'" in capsys.readouterr().err


def test_an_empty_seating_csv_says_so_in_a_sentence(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("")
    assert main(["seating", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {path}: no players (expected 'seat,name' lines)"


def test_send_names_the_option_of_a_name_from_a_terminal_that_is_not_utf8(tmp_path, capsys):
    creds = tmp_path / "c.toml"
    creds.write_text('username = "floor"\npassword = "x"\n')
    base = ["send", "--venue", "test", "--credentials", str(creds), "--table", "1", "--broker", "127.0.0.1:1"]
    assert main(base + ["seat", "--seat", "2", "--player", SURROGATE]) == 2
    assert capsys.readouterr().err.strip() == ("shotclock: --player: a name must be valid Unicode (a lone "
                                               "surrogate: was it typed on a terminal that is not UTF-8?)")
    assert main(base + ["top_up", "--chips", "51"]) == 2
    assert capsys.readouterr().err.strip() == "shotclock: --chips: must be a whole number of chips from 0 to 50, not 51"


def test_a_replay_headers_table_name_follows_the_text_rule(tmp_path, capsys):
    path = tmp_path / "h.jsonl"
    path.write_text('{"config":{"table":"M\\udcf6ller"}}\n{"t":0,"event":"call"}\n')
    assert main(["replay", str(path)]) == 2
    assert "'table': a table's name must be valid Unicode (a lone surrogate" in capsys.readouterr().err


# -- issue 36.5: numbers from outside are plain ASCII digits by one rule; a seating file is one clear line ----------

SEATING_PROBLEMS = [
    ("seat,name\n1²,Ana\n", "line 2: the seat must be a number in plain digits (0-9), not '1²'"),  # a traceback
    ("\u0661,Ana\n", "line 1: the seat must be a number in plain digits (0-9), not '١'"),  # was seat 1
    ("\uff15,Ana\n", "line 1: the seat must be a number in plain digits (0-9), not '５'"),
    ("+1,Ana\n", "line 1: the seat must be a number in plain digits (0-9), not '+1'"),
    ("1,Ana Costa\n2,ana costa\n", "line 2: 'ana costa' is seated twice (seat 2, and seat 1 on line 1)"),  # silent
]


@pytest.mark.parametrize("text, problem", SEATING_PROBLEMS)
def test_a_seating_export_with_an_odd_seat_or_a_name_twice_is_one_line(tmp_path, capsys, text, problem):
    path = tmp_path / "s.csv"
    path.write_text(text, encoding="utf-8")
    assert main(["seating", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err.strip()) == ("", f"shotclock: {path}: {problem}")


@pytest.mark.parametrize("path, problem", [("/dev/zero", "more than 100,000 bytes: is it a seating export?"),
                                           ("/tmp", "a folder, not a seating export")])
def test_a_seating_file_that_is_no_file_is_refused_not_read_forever(capsys, path, problem):
    assert main(["seating", path]) == 2  # /dev/zero hung both commands
    assert capsys.readouterr().err.strip() == f"shotclock: {path}: {problem}"


def test_a_seating_file_too_big_to_be_one_is_refused(tmp_path, capsys):
    path = tmp_path / "big.csv"
    path.write_bytes(b"1,Ana\n" * 20_000)
    assert main(["seating", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {path}: more than 100,000 bytes: is it a seating export?"


@pytest.fixture
def send_base(tmp_path):
    creds = tmp_path / "c.toml"
    creds.write_text('username = "floor"\npassword = "x"\n')
    return ["send", "--venue", "test", "--credentials", str(creds), "--table", "1", "--broker", "127.0.0.1:1"]


@pytest.mark.parametrize("args", [["level", "--level", "\u0661"], ["level", "--level", "1_0"],
                                  ["level", "--level", "\uff15"], ["level", "--level", " 7"],
                                  ["mark", "--seat", "\u0661", "--mark", "warning"],
                                  ["top_up", "--seconds", "1e309"], ["top_up", "--seconds", "nan"],
                                  ["top_up", "--seconds", "-0"], ["hand_for_hand", "--minutes", "\u0662"],
                                  ["pause", "--wait", "inf"]])
def test_send_takes_numbers_in_plain_digits_only(send_base, capsys, args):
    # they were sent as 1, 10, 5 and 1 (the level files refuse these spellings)
    with pytest.raises(SystemExit) as caught:
        main(send_base + args)
    assert caught.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"argument {args[-2] if args[0] != 'mark' else '--seat'}: " in err
    assert "in plain digits" in err, err


def test_send_seating_reads_the_file_by_the_same_rules(send_base, tmp_path, capsys):
    for text, problem in SEATING_PROBLEMS:
        path = tmp_path / "s.csv"
        path.write_text(text, encoding="utf-8")
        assert main(send_base + ["seating", "--seating", str(path)]) == 2
        assert capsys.readouterr().err.strip() == f"shotclock: {path}: {problem}"
    assert main(send_base + ["seating", "--seating", "/dev/zero"]) == 2
    assert "more than 100,000 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["log", "show", "\u0661"], ["screenshot", "--at", "\u0661"],
                                  ["floor", "report", "--archive", "/nonexistent", "--level", "\u0661"]])
def test_every_number_the_command_line_takes_is_plain_digits(capsys, args):
    with pytest.raises(SystemExit) as caught:
        main(args)
    assert caught.value.code == 2 and "plain digits" in capsys.readouterr().err
