"""Every command, given what a new user might type wrong, answers in one line with the documented exit code.

Exit codes (README, "Exit codes"): 0 ok, 1 a check failed, 2 a usage or input error. A mistake never
prints a traceback, never leaves half an output behind, and never writes over one of shotclock's files.
"""

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from shotclock.adapters.log import DecisionLog
from shotclock.cli import main

ROOT = Path(__file__).parent.parent
UTC = "2026-11-30T01:{:02d}:{:02d}.000000Z"
SHOT_CONFIG = {"mode": "shot", "table": "Feature", "shot.preflop": 20, "shot.flop": 25, "shot.turn": 30,
               "shot.river": 30, "shot.countdown": 5, "shot.extension": 30, "shot.tie_window": 0.5}


def sample_log(state: Path) -> Path:
    """A log as the recorder writes it: clock 1 (clock mode, acted), then a reboot and clock 2 (shot mode,
    flop, ran out: check). Monotonic t starts again after the reboot; UTC goes on."""
    log = DecisionLog(state)
    s1 = log.new_session(100.0, UTC.format(0, 0), {"table": "Tafel 1", "mode": "clock", "config": {"mode": "clock"}})

    def add(session, clock, kind, t, second, **data):
        return log.append([{"session": session, "clock": clock, "type": kind, "t": t,
                            "utc": UTC.format(second // 60, second % 60), "data": data}])[0]

    add(s1, None, "input", 100.0, 0, event="bet", set_bet=True, facing_bet=True, button="bet", gesture="press")
    c1 = log.next_id() + 1
    add(s1, c1, "input", 101.0, 1, event="call", facing_bet=True, button="floor", gesture="press")
    add(s1, c1, "start", 101.0, 1, seconds=30, facing_bet=True)
    add(s1, c1, "input", 104.0, 4, event="action", facing_bet=True, button="action", gesture="press")
    add(s1, c1, "decision", 104.0, 4, outcome="acted", remaining=27, at_zero=False)
    s2 = log.new_session(5.0, UTC.format(30, 0), {"table": "Feature", "mode": "shot", "config": SHOT_CONFIG})
    c2 = log.next_id() + 1
    add(s2, c2, "input", 6.0, 1801, event="start", facing_bet=False, street="flop", button="action", gesture="press")
    add(s2, c2, "start", 6.0, 1801, seconds=25, street="flop", facing_bet=False)
    add(s2, c2, "decision", 31.5, 1826, outcome="check")
    log.close()
    return state / "shotclock.db"


@pytest.fixture
def state(tmp_path):
    sample_log(tmp_path / "state")
    return str(tmp_path / "state")


def cli(capsys, *args, stdin=b""):
    """Run ``shotclock ARGS`` in-process: (exit code, stdout, stderr)."""
    real_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code
    finally:
        sys.stdin = real_stdin
    out, err = capsys.readouterr()
    return code, out, err


def digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def bad_arguments(tmp: Path, state: str):
    """(arguments, exit code) a new user might try; each must answer with one line on stderr."""
    missing = tmp / "missing-folder"
    events = tmp / "events.jsonl"
    events.write_text('{"t":0,"event":"call"}\n')
    bad_events = tmp / "bad.jsonl"
    bad_events.write_text('{"t":0,"event":"call"}\n{"t":1,"event":"cal"}\n')
    inf_config = tmp / "inf.toml"
    inf_config.write_text("[clock]\nseconds = inf\n")
    binary = tmp / "binary.toml"
    binary.write_bytes(b"mode = \"\xff\"\n")
    script = tmp / "script.jsonl"
    script.write_text('{"t":0.1,"button":"floor"}\n')
    huge_t = tmp / "huge-t.jsonl"
    huge_t.write_text('{"t":1e300,"button":"floor"}\n')
    huge_hold = tmp / "huge-hold.jsonl"
    huge_hold.write_text('{"t":0,"button":"floor","hold":1e300}\n')
    db = Path(state) / "shotclock.db"
    log = ["log", "--state-dir", state]
    return [
        ([], 2), (["frobnicate"], 2), (["--bogus", "replay"], 2),
        # replay
        (["replay", tmp / "nope.jsonl"], 2), (["replay", tmp], 2), (["replay", bad_events], 2),
        (["replay", events, "extra"], 2), (["replay", events, "--config", tmp / "nope.toml"], 2),
        (["replay", events, "--config", inf_config], 2), (["replay", "/dev/zero"], 2),
        # seating (issue 19): a bad line, a missing file, a folder, binary bytes
        (["seating", bad_events], 2), (["seating", tmp / "nope.csv"], 2), (["seating", tmp], 2),
        (["seating", binary], 2), (["seating"], 2),
        # structure (issue 35): no file, a missing one, a folder, one it does not read, a bad encoding, binary bytes
        (["structure"], 2), (["structure", tmp / "nope.tdt"], 2), (["structure", tmp], 2),
        (["structure", events], 2), (["structure", binary], 2), (["structure", bad_events, "--encoding", "x"], 2),
        (["structure", "/dev/zero"], 2),
        # tournament (issue 35): no action, an unknown one, no id, a bad id, a value that is no number, a missing
        # structure, a journal that is a folder, a range of tables that is none
        (["tournament"], 2), (["tournament", "go"], 2), (["tournament", "start", "--venue", "v"], 2),
        (["tournament", "start", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "a b"], 2),
        (["tournament", "add", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "m", "1e309"], 2),
        (["tournament", "level", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "m", "\u0661"], 2),
        (["tournament", "load", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "m", tmp / "no.tdt"], 2),
        (["tournament", "run", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "m", "--journal", tmp], 2),
        (["tournament", "run", "--venue", "v", "--credentials", tmp / "c.toml", "--id", "m", "--journal",
          tmp / "j.db", "--tables", "9-1"], 2),
        # config
        (["config", "--check"], 2), (["config", "--check", tmp / "nope.toml"], 2), (["config", "--check", tmp], 2),
        (["config", "--check", inf_config], 2), (["config", "--check", binary], 2), (["config", "--frob"], 2),
        # simulate / run / selftest (all refused before anything opens)
        (["simulate", "--config", inf_config], 2), (["simulate", "--frob"], 2),
        (["run", "--pins", "nope"], 2), (["run", "--script", script], 2), (["run", "--report", tmp / "r.jsonl"], 2),
        (["run", "--pins", "mock", "--headless", "--script", huge_t], 2),
        (["run", "--pins", "mock", "--headless", "--script", huge_hold], 2),
        (["run", "--pins", "mock", "--headless", "--script", tmp / "nope.jsonl"], 2),
        (["run", "--pins", "mock", "--headless", "--script", binary, "--no-log"], 2),
        (["run", "--pins", "mock", "--headless", "--script", "/dev/zero", "--no-log"], 2),
        (["run", "--pins", "mock", "--headless", "--script", script, "--state-dir", state, "--report", db], 2),
        (["run", "--pins", "mock", "--headless", "--script", script, "--report", script, "--no-log"], 2),
        (["run", "--pins", "mock", "--headless", "--script", script, "--report", missing / "r.jsonl", "--no-log"], 2),
        (["selftest", "--pins", "foo"], 2), (["selftest", "--frob"], 2),
        # screenshot
        (["screenshot", tmp / "x.png"], 2), (["screenshot", tmp / "x.png", "--scenario", events, "--at", "inf"], 2),
        (["screenshot", tmp / "x.png", "--scenario", events, "--at", "-1"], 2),
        (["screenshot", tmp / "x.png", "--scenario", events, "--at", "nan"], 2),
        (["screenshot", tmp / "x.png", "--scenario", events, "--at", "soon"], 2),
        (["screenshot", tmp / "x.png", "--scenario", tmp / "nope.jsonl", "--at", "1"], 2),
        (["screenshot", tmp / "x.png", "--scenario", bad_events, "--at", "0.5"], 2),
        (["screenshot", tmp / "x.png", "--scenario", events, "--at", "1", "--size", "big"], 2),
        (["screenshot", missing / "x.png", "--scenario", events, "--at", "1"], 2),
        (["screenshot", tmp / "x.xyz", "--scenario", events, "--at", "1"], 2),
        # firstboot / provision
        (["firstboot", "--frob"], 2),
        (["provision", tmp / "cards", "--broker-dir", tmp, "--venue", "v", "--tables", "1",
          "--broker", "floor.local"], 2),
        (["provision", tmp / "cards", "--broker-dir", tmp, "--venue", "v", "--tables", "1",
          "--broker", "floor.local:8883", "--ca-file", tmp / "nope.pem"], 2),
        # log
        (["log", "--state-dir", tmp / "nowhere"], 2), (["log", "--state-dir", tmp / "nowhere", "verify"], 2),
        ([*log, "--limit", "0"], 2), ([*log, "--limit", "-1"], 2), ([*log, "--limit", "many"], 2),
        ([*log, "show"], 2), ([*log, "show", "0"], 2), ([*log, "show", "x"], 2), ([*log, "show", "99"], 2),
        ([*log, "export"], 2), ([*log, "export", "--csv", "--jsonl"], 2), ([*log, "export", "--replay", "99"], 2),
        ([*log, "export", "--csv", "--config-out", tmp / "c.toml"], 2),
        ([*log, "export", "--csv", "--out", missing / "x.csv"], 2),
        ([*log, "export", "--csv", "--out", tmp], 2),
        ([*log, "export", "--jsonl", "--out", db], 2),
        ([*log, "export", "--replay", "2", "--config-out", missing / "c.toml"], 2),
        ([*log, "export", "--replay", "2", "--config-out", db], 2),
        ([*log, "verify", "--archive", tmp / "nope.jsonl.gz"], 2),
        (["log", "verify", "--frob"], 2), ([*log, "--collected", tmp / "nowhere", "--table", "1"], 2),
        # the floor network's tools
        (["broker-config"], 2), (["broker-config", tmp / "bc", "--venue", "bad venue", "--tables", "1"], 2),
        (["broker-config", tmp / "bc", "--venue", "v", "--tables", "1", "--listen", "nohost"], 2),
        (["floor"], 2), (["floor", "collect"], 2),
        (["floor", "collect", "--venue", "v", "--credentials", tmp / "nope.toml", "--archive", tmp / "arch"], 2),
        (["fleet", "--tables", "0", "--venue", "v", "--credentials", tmp], 2), (["fleet", "--tables", "x"], 2),
        (["fleet", "--tables", "1", "--venue", "v", "--credentials", tmp, "--broker", "nohost"], 2),
        # send (issue 19): missing options, a bad venue, credentials that are a folder, a bad command
        (["send"], 2), (["send", "--venue", "bad venue", "--credentials", tmp, "--table", "1", "pause"], 2),
        (["send", "--venue", "v", "--credentials", tmp, "--table", "1", "pause"], 2),
        (["send", "--venue", "v", "--credentials", tmp, "--table", "1", "frob"], 2),
        (["send", "--venue", "v", "--credentials", tmp, "--table", "1", "--all", "pause"], 2),
        (["send", "--venue", "v", "--credentials", tmp, "--all", "level", "--level", "x"], 2),
        (["floor-demo", "--tables", "0"], 2), (["floor-demo", "--tables", "x"], 2),
        (["floor-demo", "--dir", missing / "x" / "\0"], 2), (["floor-demo", "--venue", "bad venue"], 2),
        (["floor-demo", "--seconds", "nan"], 2), (["floor-demo", "--seconds", "-1"], 2),
        (["floor-demo", "--seconds", "0"], 2),
    ]


def test_the_mistakes_cover_every_command(tmp_path):
    from shotclock.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    tried = {str(args[0]) for args, _ in bad_arguments(tmp_path, str(tmp_path)) if args}
    assert set(commands) <= tried, f"add mistakes for {set(commands) - tried} to bad_arguments()"


def test_every_command_answers_a_mistake_in_one_line(tmp_path, state, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = Path(state) / "shotclock.db"
    before = digest(db)
    failures = []
    for args, expected in bad_arguments(tmp_path, state):
        code, out, err = cli(capsys, *args)
        lines = err.splitlines()
        if code != expected or len(lines) != 1 or out or "Traceback" in err or not lines[0].startswith("shotclock"):
            failures.append(f"shotclock {' '.join(map(str, args))}: exit {code}, stdout {out[:80]!r}, stderr {err!r}")
    assert not failures, "\n".join(failures)
    assert digest(db) == before, "a mistake changed the decision log"
    assert not (tmp_path / "missing-folder").exists() and not (tmp_path / "c.toml").exists()
    assert (tmp_path / "script.jsonl").read_text() == '{"t":0.1,"button":"floor"}\n'


@pytest.mark.parametrize("args", [
    ["log", "verify", "--state-dir", "{state}"], ["log", "--state-dir", "{state}", "verify"],
    ["log", "-v", "verify", "--state-dir", "{state}"], ["-v", "log", "--state-dir", "{state}", "verify", "-v"],
    ["log", "stats", "--config", "{config}", "--state-dir", "{state}"], ["--state-dir", "{state}", "log", "stats"],
])
def test_options_go_before_or_after_the_subcommand(args, state, tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text('mode = "clock"\n')
    code, out, err = cli(capsys, *[a.format(state=state, config=config) for a in args])
    assert code == 0, err
    assert out


def test_log_lists_clocks_numbered_with_the_bet_at_their_start(state, capsys):
    code, out, err = cli(capsys, "log", "--state-dir", state)
    assert code == 0 and err == ""
    header, *rows = out.splitlines()
    bet = header.index("BET")
    assert [r.split()[0] for r in rows] == ["1", "2"]
    assert [r[bet:].split()[0] for r in rows] == ["yes", "no"]  # the bet state when the clock started


def test_clocks_per_hour_count_utc_across_a_reboot(state, capsys):
    code, out, _ = cli(capsys, "log", "--state-dir", state, "stats", "--json")
    assert code == 0
    # Two clocks 30 minutes apart by UTC; by monotonic time the second came before the first.
    assert json.loads(out)["clocks_per_hour"] == 4.0


def test_log_and_stats_warn_when_the_chain_does_not_verify(state, capsys):
    import sqlite3

    db = sqlite3.connect(Path(state) / "shotclock.db")
    db.execute("UPDATE records SET t = t + 1 WHERE id = 3")
    db.commit()
    db.close()
    # QA finding 2: 'log show' and 'log export' printed a changed record with no word.
    for args in (["log"], ["log", "stats"], ["log", "show", "1"], ["log", "export", "--csv"],
                 ["log", "export", "--jsonl"], ["log", "export", "--replay", "1"]):
        code, out, err = cli(capsys, *args, "--state-dir", state)
        assert code == 0 and out
        assert err.splitlines() == [f"shotclock: warning: {Path(state) / 'shotclock.db'} does not verify: "
                                    "record 3 was changed (its content does not match its hash) "
                                    "(see 'shotclock log verify')"]


def test_a_damaged_record_is_named_in_one_line(state, capsys):
    import sqlite3

    db = sqlite3.connect(Path(state) / "shotclock.db")
    db.execute("UPDATE records SET data = '{\"seconds\": ' WHERE id = 4")
    db.commit()
    db.close()
    for args in (["log"], ["log", "show", "1"], ["log", "stats"], ["log", "export", "--csv"]):
        code, out, err = cli(capsys, *args, "--state-dir", state)
        assert code == 2 and out == ""
        assert len(err.splitlines()) == 1 and "record 4 is damaged" in err, err
    code, out, err = cli(capsys, "log", "verify", "--state-dir", state)
    assert code == 1 and out.startswith("FAIL:") and "record 4 was changed" in out


def test_verify_of_a_file_that_is_no_database_fails_the_check(tmp_path, capsys):
    (tmp_path / "shotclock.db").write_bytes(b"this is not a database" * 100)
    code, out, err = cli(capsys, "log", "verify", "--state-dir", tmp_path)
    assert code == 1 and out.startswith("FAIL:") and err == ""
    code, out, err = cli(capsys, "log", "--state-dir", tmp_path)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err


def test_exported_clock_replays_alone_with_its_logged_ruling(state, capsys):
    code, exported, err = cli(capsys, "log", "--state-dir", state, "export", "--replay", "2")
    assert code == 0 and err == ""
    header = json.loads(exported.splitlines()[0])
    assert header["config"]["mode"] == "shot" and header["config"]["shot.flop"] == 25
    code, out, err = cli(capsys, "replay", stdin=exported.encode())
    assert code == 0 and err == ""
    records = [json.loads(x) for x in out.splitlines()]
    assert records[0] == {"t": 0, "type": "start", "seconds": 25, "street": "flop"}
    assert records[-1] == {"t": 25.5, "type": "decision", "outcome": "check"}


def test_an_explicit_config_replaces_the_header_and_says_so(state, tmp_path, capsys):
    code, exported, _ = cli(capsys, "log", "--state-dir", state, "export", "--replay", "2")
    config = tmp_path / "c.toml"
    config.write_text('mode = "shot"\n[shot]\nflop = 10\n')
    code, out, err = cli(capsys, "replay", "--config", config, stdin=exported.encode())
    assert code == 0 and json.loads(out.splitlines()[0])["seconds"] == 10
    assert err.splitlines() == [f"shotclock: note: <stdin>: --config {config} replaces the settings in the file's "
                                "header (line 1)"]


def test_a_shot_file_replayed_in_clock_mode_says_so(capsys):
    events = b'{"t":0,"event":"hand"}\n{"t":1,"event":"start"}\n{"t":2,"event":"action"}\n'
    code, out, err = cli(capsys, "replay", stdin=events)
    assert code == 0 and out
    # 'hand' counts in clock mode too (it resets the bet state); 'start' is the first shot-only event
    assert err.splitlines() == ["shotclock: warning: <stdin>: line 2: 'start' is a shot-mode event but the replay ran "
                                "in clock mode, so such events were ignored (give --config FILE with mode = \"shot\", "
                                "or a first line {\"config\":{\"mode\":\"shot\"}})"]


def test_export_to_a_file_is_whole_and_config_out_needs_a_real_folder(state, tmp_path, capsys):
    out_file, config_file = tmp_path / "clock.jsonl", tmp_path / "clock.toml"
    code, out, err = cli(capsys, "log", "export", "--replay", "2", "--out", out_file, "--config-out", config_file,
                         "--state-dir", state)
    assert (code, out, err) == (0, "", "")
    assert out_file.read_text().count("\n") >= 3 and 'mode = "shot"' in config_file.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.jsonl", "clock.toml", "state"]  # no temporary left


def test_a_full_standard_output_is_one_line_not_a_traceback():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "shotclock", "config"], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["shotclock: cannot write to standard output: No space left on device"]


def test_a_closed_pipe_ends_quietly():
    proc = subprocess.run(f"{sys.executable} -m shotclock config | head -1", shell=True, capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.startswith("#") and proc.stderr == ""


def test_help_texts_have_no_markup(capsys):
    from shotclock.cli import build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        texts.append(sub.format_help())
    assert all("``" not in t and ":class:" not in t and ":func:" not in t for t in texts)
    assert "Exit codes: 0 ok, 1 a check failed" in texts[0]


def test_readme_documents_the_exit_codes():
    readme = (ROOT / "README.md").read_text()
    assert "## Exit codes" in readme and "| 2 |" in readme and "| 1 |" in readme


def test_log_finds_the_service_log_with_no_options(tmp_path, capsys, monkeypatch):
    """On the Pi the service writes /var/lib/shotclock: 'shotclock log' reads it without --state-dir."""
    import shotclock.shell.logsource as logsource

    sample_log(tmp_path / "service")
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setattr(logsource, "SERVICE_STATE_DIR", tmp_path / "service")
    code, out, err = cli(capsys, "log")
    assert code == 0 and err == "" and len(out.splitlines()) == 3
    monkeypatch.setattr(logsource, "SERVICE_STATE_DIR", tmp_path / "no-service")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "user"))
    code, out, err = cli(capsys, "log")
    assert code == 2 and "no decision log at" in err and str(tmp_path / "user") in err


def test_the_listing_checks_the_chain_from_the_clocks_it_shows(state, capsys):
    """A long log lists fast: 'shotclock log' walks the chain from its first listed clock; 'log verify' all of it."""
    import sqlite3

    db = sqlite3.connect(Path(state) / "shotclock.db")
    db.execute("UPDATE records SET t = t + 1 WHERE id = 3")  # clock 1's call
    db.commit()
    db.close()
    code, out, err = cli(capsys, "log", "--limit", "1", "--state-dir", state)
    assert code == 0 and err == "" and len(out.splitlines()) == 2
    code, out, err = cli(capsys, "log", "--limit", "2", "--state-dir", state)
    assert code == 0 and "record 3 was changed" in err
    code, out, err = cli(capsys, "log", "verify", "--state-dir", state)
    assert code == 1 and "record 3 was changed" in out


def test_a_record_with_a_value_of_the_wrong_kind_prints_nothing_half_done(state, capsys):
    import sqlite3

    db = sqlite3.connect(Path(state) / "shotclock.db")
    db.execute("""UPDATE records SET data = '{"outcome":"acted","remaining":"lots","at_zero":false}' WHERE id = 6""")
    db.commit()
    db.close()
    for args in (["log"], ["log", "show", "1"]):
        code, out, err = cli(capsys, *args, "--state-dir", state)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (args, out, err)
        assert "cannot read" in err and "log verify" in err


def test_table_without_collected_is_refused_in_one_line(state, capsys):
    # QA finding 12: 'log --table 7' listed the local log as if the option were not there.
    for args in (["log", "--table", "7"], ["log", "show", "1", "--table", "7"]):
        code, out, err = cli(capsys, *args, "--state-dir", state)
        assert (code, out) == (2, "")
        assert err.splitlines() == ["shotclock: --table needs --collected DIR (the floor's archive); "
                                    "this device's log is one table's"]


def test_export_replay_of_an_interrupted_clock_says_what_became_of_it_and_the_pipe_fails(tmp_path, capsys):
    # QA finding 11: "resumed by the floor" for a clock the floor cancelled, and '| shotclock replay' exited 0.
    # (A clock the next start restored replays, paused where the device stopped: tests/test_evidence.py.)
    state = tmp_path / "state"
    log = DecisionLog(state)
    s1 = log.new_session(100.0, UTC.format(0, 0), {"table": "Tafel 1", "mode": "clock", "config": {"mode": "clock"}})
    s2 = log.new_session(5.0, UTC.format(2, 0), {"table": "Tafel 1", "mode": "clock", "config": {"mode": "clock"}})
    c = log.next_id()  # a clock's id is its start record's
    rows = [(s1, "start", 101.0, {"seconds": 30, "facing_bet": True}),
            (s2, "interrupted", 5.0, {"remaining": 20, "restored": False, "table": "Tafel 2"})]
    for session, kind, t, data in rows:
        log.append([{"session": session, "clock": c, "type": kind, "t": t, "utc": UTC.format(2, int(t) % 60),
                     "data": data}])
    code, out, err = cli(capsys, "log", "export", "--replay", "1", "--state-dir", str(state))
    assert (code, out) == (2, "")
    assert err == ("shotclock: clock 1 was interrupted by a power cut and has no decision yet; "
                   "it cannot be replayed from 0 (see 'shotclock log show')\n")
    code, out, err = cli(capsys, "replay")  # what the pipe hands on: nothing
    assert (code, out) == (2, "")
    assert err == "shotclock: <stdin>: no events (an empty input; did the command before the pipe fail?)\n"


def test_the_list_shows_a_long_table_name_whole_when_it_goes_to_a_pipe(tmp_path, capsys):
    # QA finding 18: the list cut "Feature table" to "Feature tabl".
    state = tmp_path / "state"
    log = DecisionLog(state)
    s1 = log.new_session(1.0, UTC.format(0, 0), {"table": "Feature table 2", "mode": "clock", "config": {}})
    c = log.next_id()
    log.append([{"session": s1, "clock": c, "type": "start", "t": 2.0, "utc": UTC.format(0, 2),
                 "data": {"seconds": 30, "facing_bet": False}}])
    code, out, err = cli(capsys, "log", "--state-dir", str(state))
    assert code == 0 and err == ""
    header, row = out.splitlines()
    assert "  Feature table 2 clock " in row
    assert header.index("MODE") == row.index("clock")


def test_a_stuck_fault_names_the_buttons(capsys):
    code, out, err = cli(capsys, "screenshot", "x.png", "--scenario", "docs/examples/clock-dead-hand.events.jsonl",
                         "--at", "1", "--fault", "stuck=nope")
    assert (code, out) == (2, "")
    assert err == "shotclock: --fault 'stuck=nope': the stuck button must be one of floor, action, bet, extend, street\n"


def test_a_new_log_is_set_up_without_a_word_at_info_level(tmp_path, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="shotclock.log"):
        DecisionLog(tmp_path / "state")
    assert caplog.records == []  # "schema migrated" on a first run is noise for a newcomer


@pytest.mark.parametrize("args, named", [(["--bogus"], "unrecognized arguments: --bogus"),
                                         (["-x", "--frob"], "unrecognized arguments: -x --frob"),
                                         ([], "required: COMMAND"), (["-v"], "required: COMMAND")])
def test_an_unknown_option_alone_is_named_not_a_missing_command(capsys, args, named):
    # Before: 'shotclock --bogus' said "the following arguments are required: COMMAND".
    code, out, err = cli(capsys, *args)
    assert code == 2 and not out and err.count("\n") == 1 and named in err, err
