"""Fuzzing the inputs a user controls: replay files, configuration files, command-line arguments, scripts.

Each property runs the real command line in-process and asserts what the README promises: exit 0 or 2
(1 only for a failed check), one line on stderr naming the problem, nothing on stdout after an error,
never a traceback, and an answer within a bounded time. The replay property also checks the fast path
against a slow, obviously-correct reading of the same file.

The suite runs a few hundred cases of each (a few seconds); ``./dev fuzz`` runs many more:
SHOTCLOCK_FUZZ_EXAMPLES sets how many per property.
"""

import contextlib
import hashlib
import io
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shotclock.config.loading import config_from, parse_config
from shotclock.config.schema import KEYS
from shotclock.core.events import EVENT_TYPES
from shotclock.core.replay import MAX_LINE, decode_line, parse_event, replay
from shotclock.errors import ConfigError, ReplayFormatError
from shotclock.cli import main
from shotclock.shell.script import parse_script

EXAMPLES = int(os.environ.get("SHOTCLOCK_FUZZ_EXAMPLES", "100"))
CASE_SECONDS = 30  # far above any case's real cost: only a hang trips it
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="SHOTCLOCK_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])


@contextlib.contextmanager
def time_limit(seconds=CASE_SECONDS):
    """Fail (instead of hanging the suite) when a case runs longer than ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"a case took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def cli(capsys, args, stdin=b""):
    """``shotclock ARGS`` in-process, within the time limit: (exit code, stdout, stderr)."""
    real_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with time_limit():
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.stdin = real_stdin
    out, err = capsys.readouterr()
    return code, out, err


# -- values and lines -------------------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**20, max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([1e303, -0.0, 5e-324, 1e9, 999999999.9999999]),
    st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                  st.dictionaries(st.text(max_size=6), inner,
                                                                                  max_size=3)), max_leaves=8)
names = st.one_of(st.sampled_from(list(EVENT_TYPES)), st.sampled_from(["cal", "Call", "", "t"]), st.text(max_size=6))
t_values = st.one_of(st.floats(min_value=0, max_value=1e4, allow_nan=False), st.integers(0, 10**4))


@st.composite
def event_lines(draw):
    """Mostly well-formed event lines in time order, with some odd fields and values."""
    lines, t = [], 0.0
    for _ in range(draw(st.integers(0, 25))):
        t = t + draw(st.sampled_from([0, 0, 0.5, 1, 7.25, 29.999999, 30.5])) if draw(st.booleans()) else draw(t_values)
        obj = {"t": t, "event": draw(names)}
        if draw(st.integers(0, 3)) == 0:
            obj["facing_bet"] = draw(st.one_of(st.booleans(), json_scalars))
        if draw(st.integers(0, 3)) == 0:  # a seat event's field, plainly valid or not (the fast path takes one)
            obj[draw(st.sampled_from(["seat", "chips", "seconds", "bank"]))] = draw(st.sampled_from(
                [0, 1, 3, 10, 11, 2.0, 5.5, 0.25, 36000, 36000.5, 36001, 99999, 100000, -1, True, "3", None]))
        if draw(st.integers(0, 9)) == 0:
            obj[draw(st.text(max_size=5))] = draw(json_values)
        if draw(st.integers(0, 9)) == 0:
            obj = {k: obj[k] for k in reversed(list(obj))}
        spaced = draw(st.booleans())
        lines.append(json.dumps(obj, separators=(", ", ": ") if spaced else (",", ":"), allow_nan=True))
    return lines


MUTATIONS = [
    lambda line, d: line[:len(line) // 2],                                  # cut short
    lambda line, d: line[:len(line) // 2] + "\n" + line[len(line) // 2:],   # split over two lines
    lambda line, d: line + "," + line,                                      # two values on one line
    lambda line, d: line + "\r",                                            # a Windows line end
    lambda line, d: "  " + line + "\t",
    lambda line, d: line.replace('"t":', '"t": NaN, "x":', 1),
    lambda line, d: line.replace('"t":', '"t": Infinity, "x":', 1),
    lambda line, d: line.replace('"t":', '"t": 1' + "0" * d.draw(st.sampled_from([20, 400, 5000])) + ', "x":', 1),
    lambda line, d: "[" * d.draw(st.sampled_from([1, 3000, 70_000])),
    lambda line, d: json.dumps(d.draw(json_values)),
    lambda line, d: d.draw(st.text(max_size=30)),
    lambda line, d: json.dumps({"config": d.draw(st.dictionaries(st.sampled_from([*KEYS, "clock", "x.y"]),
                                                                 json_scalars, max_size=4))}),
    lambda line, d: '{"t":1e12,"event":"call"}',
    lambda line, d: '{"t":0,"event":["call"]}',
    lambda line, d: line[:-1] + ',"facing_bet":' + d.draw(st.sampled_from(["true", "false", "1"])) + "}",
]


@st.composite
def replay_files(draw):
    """The bytes of a replay file: event lines, some mutated, maybe a header, a BOM, bad UTF-8."""
    lines = draw(event_lines())
    if draw(st.integers(0, 3)) == 0:
        config = draw(st.dictionaries(st.sampled_from(["mode", "clock.seconds", "shot.flop", "clock.countdown"]),
                                      st.one_of(st.sampled_from(["clock", "shot"]), st.integers(0, 40)), max_size=3))
        lines.insert(0, json.dumps({"config": config}))
    for _ in range(draw(st.integers(0, 3))):
        if lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] = draw(st.sampled_from(MUTATIONS))(lines[i], draw(st.data()))
    data = ("\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    if data and draw(st.integers(0, 14)) == 0:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"])) + data[at:]
    return data


def oracle(data: bytes, config):
    """The slow, plain reading of a replay file: each line through the json module on its own.

    Returns ("ok", output lines) or ("error", line number).
    """
    try:
        text_lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        events, previous, first = [], None, True
        for number, raw in enumerate(text_lines, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                return "error", number
            if len(line) > MAX_LINE:
                return "error", number
            if not line.strip():
                continue
            obj = decode_line(number, line)
            if first and isinstance(obj, dict) and "t" not in obj and "config" in obj:
                first = False
                if set(obj) - {"config", "source"} or not isinstance(obj["config"], dict) or any(
                        isinstance(v, (dict, list)) for v in obj["config"].values()):
                    return "error", number
                try:
                    config = config_from(obj["config"], "header")
                except ConfigError:
                    return "error", number
                continue
            first = False
            event = parse_event(obj, number, previous)
            previous = event.t
            events.append(event)
    except ReplayFormatError as exc:
        return "error", exc.line
    if first:  # not one line that was not blank
        return "empty", None
    return "ok", [o.to_json() for o in replay(events, config.settings)]


@FUZZ
@given(data=replay_files())
def test_fuzz_replay(data, tmp_path_factory, capsys):
    from shotclock.config.typed import Config

    path = tmp_path_factory.mktemp("replay") / "events.jsonl"
    path.write_bytes(data)
    code, out, err = cli(capsys, ["replay", path])
    assert "Traceback" not in err
    verdict, expected = oracle(data, Config())
    if code == 2 and verdict == "empty":
        assert out == "" and err == f"shotclock: {path}: no events (an empty input; did the command before the " \
            "pipe fail?)\n", err
    elif code == 2:
        assert out == "", "output after an error"
        assert len(err.splitlines()) == 1 and err.startswith(f"shotclock: {path}: line "), err
        assert verdict == "error" and f": line {expected}: " in err, (verdict, expected, err)
    else:
        assert code == 0, err
        assert verdict == "ok", (expected, out)
        assert out.splitlines() == expected
        assert all(line.startswith("shotclock: warning: ") for line in err.splitlines()), err


# -- configuration files ---------------------------------------------------------------------------

toml_scalars = st.one_of(
    st.booleans(), st.integers(-10**20, 10**20), st.floats(), st.text(max_size=10),
    st.sampled_from([0, 1, 2, 5, 17, 27, 28, 0.5, 30, 3600, 3601, 1e10, 1e12, "800x480", "1x1", "clock", "shot",
                     "nl", "en"]))


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else "inf" if v == float("inf") else "-inf" if v == float("-inf") else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


keys = st.one_of(st.sampled_from(list(KEYS)), st.sampled_from(["clock.secnds", "pins.flor", "shot", "x.y.z"]),
                 st.text(min_size=1, max_size=8))


@st.composite
def config_files(draw):
    pairs = draw(st.dictionaries(keys, st.one_of(toml_scalars, st.lists(toml_scalars, max_size=2)), max_size=8))
    lines = [".".join(json.dumps(part) for part in key.split(".")) + " = " + toml_value(value)
             for key, value in pairs.items()]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 9)) == 0:
        data = draw(st.binary(max_size=40))
    return data


SCENARIO = "\n".join(json.dumps(e) for e in [
    {"t": 0, "event": "call", "facing_bet": True}, {"t": 1, "event": "pause"}, {"t": 2, "event": "resume"},
    {"t": 2.5, "event": "extend"}, {"t": 3, "event": "hand"}, {"t": 3, "event": "street"},
    {"t": 3, "event": "start"}, {"t": 3.5, "event": "extend"}, {"t": 4, "event": "bet", "facing_bet": True}]) + "\n"


@FUZZ
@given(data=config_files())
def test_fuzz_config(data, tmp_path_factory, capsys):
    folder = tmp_path_factory.mktemp("config")
    path = folder / "config.toml"
    path.write_bytes(data)
    code, out, err = cli(capsys, ["config", "--check", path])
    assert "Traceback" not in err
    if code == 2:
        assert out == "" and err.startswith(f"shotclock: invalid configuration in {path}"), err
        return
    assert code == 0 and out.startswith(f"{path}: OK") and err == ""
    # Whatever the check accepts, the engine runs with: a clock in each mode, to its end.
    (folder / "events.jsonl").write_text(SCENARIO)
    code, out, err = cli(capsys, ["replay", folder / "events.jsonl", "--config", path])
    assert code == 0 and out and "Traceback" not in err, err


# -- command-line arguments ------------------------------------------------------------------------

COMMANDS = [["replay"], ["config"], ["screenshot"], ["log"], ["log", "show"], ["log", "export"], ["log", "stats"],
            ["log", "verify"]]
OPTIONS = ["--config", "--state-dir", "--out", "--limit", "--at", "--scenario", "--size", "--fault", "--replay",
           "--csv", "--jsonl", "--json", "--archive", "--config-out", "--check", "-v", "--interrupted", "-h", "--x"]
VALUES = ["", "0", "-1", "1", "2", "99", "inf", "nan", "1e400", "x", "800x480", "big", "-", "stuck=floor", "log=x",
          "{events}", "{bad_events}", "{config}", "{bad_config}", "{dir}", "{missing}", "{state}", "{db}", "out.png",
          "out.csv", "{missing}/x.csv"]


def _named(token: str, paths: dict) -> str:
    """A token with ``{name}`` standing for one of the files, as a path."""
    for name, path in paths.items():
        token = token.replace("{" + name + "}", str(path))
    return token


@pytest.fixture
def cli_files(tmp_path, monkeypatch):
    """The files the arguments may name (made once for all the examples), the working directory in tmp_path."""
    from test_cli_errors import sample_log

    monkeypatch.chdir(tmp_path)
    paths = {"events": tmp_path / "e.jsonl", "bad_events": tmp_path / "b.jsonl", "config": tmp_path / "c.toml",
             "bad_config": tmp_path / "bad.toml", "dir": tmp_path, "missing": tmp_path / "missing",
             "state": tmp_path / "state", "db": sample_log(tmp_path / "state")}
    paths["events"].write_text('{"t":0,"event":"call"}\n')
    paths["bad_events"].write_text('{"t":0,"event":"call"}\n{"t":"x"}\n')
    paths["config"].write_text('mode = "shot"\n')
    paths["bad_config"].write_text("[clock]\nseconds = 1e12\n")
    return paths


@FUZZ
@given(command=st.sampled_from(COMMANDS),
       tokens=st.lists(st.one_of(st.sampled_from(OPTIONS), st.sampled_from(VALUES), st.text(max_size=6)), max_size=6))
def test_fuzz_command_line(command, tokens, cli_files, capsys):
    paths = cli_files
    before = hashlib.sha256(paths["db"].read_bytes()).hexdigest()
    args = [*command, *(_named(t, paths) for t in tokens)]
    if "--state-dir" not in args:
        args += ["--state-dir", paths["state"]]
    code, out, err = cli(capsys, args)
    assert "Traceback" not in err, err
    assert code in ((0, 1, 2) if "verify" in args else (0, 2)), (args, code, err)
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("shotclock"), (args, err)
    assert hashlib.sha256(paths["db"].read_bytes()).hexdigest() == before, f"{args} changed the log"
    assert not paths["missing"].exists()


# -- script mode ------------------------------------------------------------------------------------

script_values = st.one_of(json_scalars, st.sampled_from([1e300, -1, 0, 0.1, 86400, 86401, 3600, 3601, 100, 101]))


@FUZZ
@given(lines=st.lists(st.dictionaries(st.sampled_from(["t", "button", "hold", "bounce", "x"]),
                                      st.one_of(script_values, st.sampled_from(["floor", "action", "bet"]))),
                      max_size=6))
def test_fuzz_script(lines):
    text = "\n".join(json.dumps(line) for line in lines)
    try:
        presses = parse_script(text)
    except ReplayFormatError as exc:
        assert 1 <= exc.line <= len(lines)
        return
    for p in presses:  # whatever is accepted can be played: finite times a thread can sleep to
        assert 0 <= p["t"] <= 86400 and 0 < p["hold"] <= 3600


def test_fuzz_oracle_can_fail():
    """The oracle is not a copy of the code under test: it rejects what the fast path must reject too."""
    from shotclock.config.typed import Config

    assert oracle(b'{"t":0,\n"event":"call"}\n', Config()) == ("error", 1)
    assert oracle(b'{"t":0,"event":"call"}\n', Config())[0] == "ok"
    with pytest.raises(ConfigError):
        parse_config("[clock]\nseconds = nan\n")


# -- a tournament's structure (docs/structure.md) ---------------------------------------------------------

STRUCTURES = Path(__file__).parent / "fixtures" / "structures"
SUNDAY = (STRUCTURES / "sunday.tdt").read_text(encoding="utf-8")
# What a mutation puts in: JavaScript's punctuation, operators, quotes and escapes, and TD's own words.
JS_BITS = st.sampled_from(list("{}[]():,.;'\"`\\/*+-=!?0159eExu\n\t ") + [
    "new ", "Map.from(", "new Map(", "GameRound({", "GameBreak({", "Minutes: ", "SmallBlind: ", "BigBlind: ",
    "-25", "1e999", "0x1F", "NaN", "eval(", "//", "/*", "*/", "\\u00", "\\x4", "\\u{110000}", "${x}", "undefined",
    "true", "null", "Levels: [", "T: new Tournament({", "\ud800", "é", "]})"])


@st.composite
def mutated_tdt(draw):
    """TD's saved tournament with a few bytes cut, doubled, swapped or put in."""
    text = SUNDAY
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["cut", "insert", "replace", "repeat"]))
        if how == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 60)):]
        elif how == "insert":
            text = text[:at] + draw(JS_BITS) + text[at:]
        elif how == "replace":
            text = text[:at] + draw(JS_BITS) + text[at + 1:]
        else:
            text = text[:at] + text[at:at + draw(st.integers(1, 200))] * draw(st.integers(2, 40)) + text[at:]
    return text


def read_or_refuse(reader, text):
    """``reader`` on ``text``: a checked structure, or a StructureError of one line; nothing else, within the limit."""
    from shotclock.core.structure import structure_problem
    from shotclock.errors import StructureError

    with time_limit():
        try:
            structure = reader(text, [])
        except StructureError as exc:
            assert "\n" not in exc.where and exc.problem.strip(), str(exc)
            return None
    assert structure_problem(structure) is None and structure.stages
    return structure


@FUZZ
@given(text=mutated_tdt())
def test_fuzz_tdt_mutations(text):
    from shotclock.core.structure_formats import read_tdt

    read_or_refuse(read_tdt, text)


@FUZZ
@given(data=st.binary(max_size=2000), suffix=st.sampled_from([".tdt", ".csv", ".toml"]))
def test_fuzz_structure_files_of_random_bytes(data, suffix, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("structure") / f"s{suffix}"
    path.write_bytes(data)
    code, out, err = cli(capsys, ["structure", path])
    assert "Traceback" not in err
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and err.startswith("shotclock: "), (code, err)


CSV_BITS = st.sampled_from(list("sb,;\t\n\"0123456789:/ -.") + ["small_blind", "big_blind", "minutes", "break",
                                                                 "Level", "Small Blind", "dinner", "Break", "yes"])


@FUZZ
@given(text=st.lists(CSV_BITS, max_size=120).map("".join))
def test_fuzz_csv_text(text):
    from shotclock.core.structure_formats import read_csv

    read_or_refuse(read_csv, text)


def test_fuzz_tdt_mutations_keep_the_file_readable_at_first():
    """The mutations start from a file the reader takes whole (a refused start would test nothing)."""
    from shotclock.core.structure_formats import read_tdt

    assert len(read_or_refuse(read_tdt, SUNDAY).stages) == 9
