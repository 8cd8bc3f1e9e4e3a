"""``shotclock replay``: the public JSON Lines contract, through the real command line."""

import json
import subprocess
import sys

import pytest

from shotclock.cli import main
from test_golden import meaning


def replay(capsys, text, *args, monkeypatch=None):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_replay_issue_example_exactly(capsys, monkeypatch):
    code, out, err = replay(capsys, '{"t":0,"event":"call","facing_bet":true}\n', monkeypatch=monkeypatch)
    assert code == 0 and err == ""
    assert out[0] == {"t": 0, "type": "start", "seconds": 30}
    assert [(r["t"], r["remaining"]) for r in out[1:-1]] == [(25, 5), (26, 4), (27, 3), (28, 2), (29, 1), (30, 0)]
    assert out[-1] == {"t": 30.5, "type": "decision", "outcome": "hand_dead"}


def test_replay_output_is_compact_json_lines(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO('{"t":0,"event":"call"}\n{"t":1.5,"event":"action"}\n'))
    assert main(["replay"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ['{"type":"start","t":0.0,"seconds":30}',
                     '{"type":"decision","t":1.5,"outcome":"acted","remaining":28.5,"at_zero":false}']


@pytest.mark.parametrize("text, message", [
    ('{"t":true,"event":"call"}\n', "line 1: 't' must be a number of seconds, not true\n"),
    ('{"t":5,"event":"call"}\n{"t":1,"event":"action"}\n', "line 2: 't' goes backwards (1 after 5); times must not decrease\n"),
    ('{"t":1e10,"event":"call"}\n', "line 1: 't' must be from 0 up to 10^9 seconds, not 10000000000\n"),
    ('{"t":' + "9" * 5000 + ',"event":"call"}\n', "line 1: a number with more digits than any time or seat needs\n"),
    ('{"t":0,"t":5,"event":"call"}\n', "line 1: the key 't' is given twice\n"),
    ('{"t":0,"event":"call","facing_bet":null}\n', "'facing_bet' must be true or false, not null\n"),
])
def test_errors_speak_json_not_python(capsys, monkeypatch, text, message):
    # QA finding 14: 'not True', '5.0', Python's int-digits limit, and a duplicate key silently taking the last value.
    code, out, err = replay(capsys, text, monkeypatch=monkeypatch)
    assert (code, out) == (2, [])
    assert err.endswith(message) and len(err.splitlines()) == 1, err


def test_events_after_end_are_checked_and_a_warning_says_they_were_not_replayed(capsys, monkeypatch):
    text = '{"t":0,"event":"call"}\n{"t":1,"event":"end"}\n{"t":2,"event":"action"}\n{"t":3,"event":"cancel"}\n'
    code, out, err = replay(capsys, text, monkeypatch=monkeypatch)
    assert code == 0 and out == [{"t": 0, "type": "start", "seconds": 30}]
    assert err == "shotclock: warning: <stdin>: 2 events after 'end' were checked but not replayed\n"


@pytest.mark.parametrize("text, message", [
    ('{"t":0,"event":"call"}\nnot json\n', "line 2: not valid JSON"),
    ('{"t":0,"event":"cal"}\n', "line 1: unknown event 'cal' (did you mean 'call'?)"),
    ('{"t":5,"event":"call"}\n{"t":4,"event":"action"}\n', "line 2: 't' goes backwards"),
    ('{"event":"call"}\n', "line 1: missing 't'"),
    ('{"t":"0","event":"call"}\n', "line 1: 't' must be a number"),
    ('{"t":0,"event":"bet"}\n', "line 1: the 'bet' event needs 'facing_bet' (true or false)"),
    ('{"t":0,"event":"call","facing_bte":true}\n', "did you mean 'facing_bet'?"),
    ('{"t":0,"event":"call","facing_bet":"yes"}\n', "'facing_bet' must be true or false"),
    ('[1,2]\n', "line 1: expected a JSON object"),
    ('{"t":0,"event":"extend","facing_bet":false}\n', "line 1: the 'extend' event takes no field 'facing_bet' (it takes 'seat')"),
    ('{"t":0,"event":"call"}\n{"t":0,\n"event":"action"}\n', "line 2: not valid JSON"),
    ('\ufeff{"t":0,"event":"call"}\n{"t":1e12,"event":"action"}\n', "line 2: 't' must be from 0 up to 10^9"),
    ('{"t":0,"event":["call"]}\n', "line 1: 'event' must be a name, not a list"),
    ('{"t":NaN,"event":"call"}\n', "line 1: not valid JSON (NaN is not a JSON number)"),
    ('{"t":0,"event":"extend","seat":11}\n', "line 1: 'seat' must be a seat number from 1 to 10"),
    ('{"t":0,"event":"extend","seat":true}\n', "'seat' must be a seat number"),
    ('{"t":0,"event":"extend","set":2}\n', "the 'extend' event takes no field 'set' (did you mean 'seat'?) (it takes 'seat')"),
])
def test_malformed_input_names_line_and_problem_exit_2(capsys, monkeypatch, text, message):
    code, out, err = replay(capsys, text, monkeypatch=monkeypatch)
    assert code == 2
    assert message in err
    assert out == []  # nothing half-done on stdout
    assert "Traceback" not in err


def test_replay_reads_a_file_and_uses_the_config(tmp_path, capsys):
    events = tmp_path / "events.jsonl"
    events.write_text('{"t":0,"event":"start"}\n')
    config = tmp_path / "c.toml"
    config.write_text('mode = "shot"\n[shot]\npreflop = 15\n')
    assert main(["replay", str(events), "--config", str(config)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0] == {"t": 0, "type": "start", "seconds": 15, "street": "preflop"}
    assert out[-1] == {"t": 15.5, "type": "decision", "outcome": "hand_dead"}


def test_missing_file_is_a_clear_error(capsys):
    assert main(["replay", "/nonexistent/events.jsonl"]) == 2
    assert "cannot read /nonexistent/events.jsonl" in capsys.readouterr().err


def test_console_script_runs_as_a_process():
    proc = subprocess.run([sys.executable, "-m", "shotclock", "replay"], input='{"t":0,"event":"call"}\n',
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == '{"type":"decision","t":30.5,"outcome":"check"}'


def test_bundled_example_replays_to_its_expected_output():
    from pathlib import Path

    root = Path(__file__).parent.parent / "docs" / "examples"
    assert len(list(root.glob("*.events.jsonl"))) >= 4
    for events in sorted(root.glob("*.events.jsonl")):
        expected = events.with_name(events.name.replace(".events.", ".expected."))
        config = events.with_name(events.name.replace(".events.jsonl", ".toml"))
        extra = ["--config", str(config)] if config.exists() else []
        proc = subprocess.run([sys.executable, "-m", "shotclock", "replay", str(events), *extra],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert meaning(proc.stdout) == meaning(expected.read_text()), events.name


def test_outputs_are_written_by_one_codec_with_only_the_fields_that_are_set():
    """Every output is written by the same encoder (no class has a writer of its own): its type, its time and the
    fields that are set, which read back as the same output."""
    from shotclock.core import events as ev

    outputs = [ev.Started(0, 30), ev.Started(1.25, 20.5, "flop"), ev.Beep(25, 5), ev.Decision(30.5, "hand_dead"),
               ev.Decision(12.000001, "acted", remaining=17.999999, at_zero=False), ev.Decision(30, "acted", 0.0, True),
               ev.Paused(3, 27.5), ev.Extended(4, 30, 56.25), ev.Undone(4.5, 30, 26.25), ev.ChipsReset(5, 2),
               ev.Ignored(5, "call", "a 'clock' is \"already\" running\\ é")]
    lines = ev.json_lines(outputs).decode().splitlines()
    assert [json.loads(line) for line in lines] == [out.record() for out in outputs]
    assert lines[0] == '{"type":"start","t":0,"seconds":30}'
    assert json.loads(lines[3]) == {"type": "decision", "t": 30.5, "outcome": "hand_dead"}  # no null fields
    assert [out.to_json() for out in outputs] == lines
    assert _read_back(lines) == outputs
    kinds = {cls for out in outputs for cls in type(out).__mro__ if issubclass(cls, ev.Output)}
    assert not [cls for cls in kinds if "to_json" in vars(cls) and cls is not ev.Output]


def _read_back(lines):
    """JSON Lines read back as outputs, by msgspec's decoder for the union of every output (tagged by its type)."""
    from typing import Union

    import msgspec

    from shotclock.core import events as ev

    kinds = tuple(cls for cls in vars(ev).values() if isinstance(cls, type) and issubclass(cls, ev.Output)
                  and cls is not ev.Output)
    decode = msgspec.json.Decoder(Union[kinds]).decode
    return [decode(line) for line in lines]


def test_events_and_outputs_are_immutable():
    from shotclock.core import events as ev

    for record in (ev.Call(0, True), ev.Started(0, 30), ev.Decision(1, "acted", 2.0, False)):
        with pytest.raises(AttributeError):
            record.t = 5
        assert hash(record) == hash(type(record)(**{k: getattr(record, k) for k in record.__struct_fields__}))


def test_a_line_with_two_problems_names_the_same_one_on_every_run():
    """The first wrong field in the line's order, the required fields in their documented order (not in the
    order of a set, which changes with the string hash seed from run to run)."""
    from shotclock.core.replay import decode_line, parse_event
    from shotclock.errors import ReplayFormatError

    def problem(line):
        with pytest.raises(ReplayFormatError) as caught:
            parse_event(decode_line(1, line), 1)
        return str(caught.value)

    assert "no field 'zz'" in problem('{"t":0,"event":"call","zz":1,"aa":2}')
    assert "no field 'aa'" in problem('{"t":0,"event":"call","aa":1,"zz":2}')
    assert problem('{"t":0,"event":"rename"}').endswith("the 'rename' event needs 'seat' (a seat number from 1 to 10)")
