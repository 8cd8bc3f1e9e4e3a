"""Configuration: schema, every error at once, typo suggestions, exit code 2 from the CLI."""

import dataclasses

import pytest

from shotclock.config.loading import load_config, parse_config
from shotclock.config.schema import SCHEMA, example_toml
from shotclock.config.typed import CORE_SECTIONS, SECTIONS, TOP_KEYS, Config
from shotclock.errors import ConfigError, PinConfigError
from shotclock.cli import main


def test_defaults_match_the_house_rule():
    s = Config().settings
    assert (s.mode, s.clock.seconds, s.clock.countdown, s.clock.tie_window) == ("clock", 30, 5, 0.5)
    assert Config()["language"] == "nl"


def test_issue_example_file_is_valid():
    text = """
mode = "shot"
[clock]
seconds = 30
countdown = 5
tie_window = 0.5
[shot]
preflop = 20
flop = 30
turn = 30
river = 30
countdown = 5
extension = 30
tie_window = 0.5
"""
    s = parse_config(text).settings
    assert (s.mode, s.shot.preflop, s.shot.seconds_for("river")) == ("shot", 20, 30)


def test_every_problem_is_reported_at_once_with_key_names():
    with pytest.raises(ConfigError) as info:
        parse_config('mode = "shto"\n[clock]\nsecnds = 3\ncountdown = "five"\ntie_window = -1\n')
    problems = info.value.problems
    assert len(problems) == 4
    assert "'mode' must be one of 'clock', 'shot' (got 'shto')" in problems
    assert "'clock.secnds' is not a known key (did you mean 'clock.seconds'?)" in problems
    assert "'clock.countdown' must be a whole number, not 'five'" in problems
    assert "'clock.tie_window' must be from 0 to 5 (got -1)" in problems
    # Keyed by the key, Mopidy style: no message is parsed back into a key.
    assert set(info.value.errors) == {"mode", "clock.secnds", "clock.countdown", "clock.tie_window"}


def test_booleans_are_not_numbers():
    with pytest.raises(ConfigError, match="'clock.seconds' must be a number, not true"):
        parse_config("[clock]\nseconds = true\n")


def test_countdown_longer_than_clock():
    with pytest.raises(ConfigError, match="'clock.countdown' \\(10\\) is longer than the clock"):
        parse_config("[clock]\nseconds = 8\ncountdown = 10\n")


@pytest.mark.parametrize("text, message", [
    ("[pins]\nfloor = 1\n", "'pins.floor' must be a BCM pin number from 2 to 27 (got 1)"),
    ("[pins]\naction = 28\n", "'pins.action' must be a BCM pin number from 2 to 27 (got 28)"),
    ("[pins]\nbet = 17\n", "'pins.bet' uses pin 17, which 'pins.floor' uses already"),
    ("[pins]\nbuzzer = 5\n", "'pins.buzzer' uses pin 5, which 'pins.led_running' uses already"),
    ("[pins]\nbuzzer = true\n", "'pins.buzzer' must be a BCM pin number or false"),
])
def test_pin_errors(text, message):
    with pytest.raises(PinConfigError) as info:
        parse_config(text)
    assert any(message in p for p in info.value.problems), info.value.problems


def test_invalid_toml_names_the_file_and_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("mode = \n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.source == str(path)
    assert "not valid TOML" in info.value.problems[0] and "line 1" in info.value.problems[0]


def test_cli_bad_config_exit_2_no_traceback(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text("[clock]\nsecnds = 30\n")
    assert main(["replay", "--config", str(path), "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert f"invalid configuration in {path}" in err and "did you mean 'clock.seconds'" in err
    assert "Traceback" not in err


def test_missing_config_file(capsys):
    assert main(["config", "--check", "/nonexistent.toml"]) == 2
    assert "/nonexistent.toml" in capsys.readouterr().err


def test_example_toml_round_trips_to_the_defaults():
    assert parse_config(example_toml()).values == Config().values


def test_shipped_example_config_is_current():
    from pathlib import Path

    shipped = Path(__file__).parent.parent / "hardware" / "config.example.toml"
    assert shipped.read_text() == example_toml(), "run: shotclock config > hardware/config.example.toml"


@pytest.mark.parametrize("preset, mode, seconds, countdown, label", [
    ("house-29", "clock", 30, 5, ""),
    ("tda-2024", "clock", 30, 5, "TDA 29"),
    ("wsop", "clock", 40, 10, "WSOP"),
])
def test_clock_presets(preset, mode, seconds, countdown, label):
    config = parse_config(f'preset = "{preset}"\n')
    settings = config.settings
    assert (settings.mode, settings.clock.seconds, settings.clock.countdown, config["label"]) == (
        mode, seconds, countdown, label)


def test_shot_presets_per_street_and_extensions():
    shot = parse_config('preset = "shot-15-20-30"\n').settings
    assert shot.mode == "shot"
    assert [shot.shot.seconds_for(s) for s in ("preflop", "flop", "turn", "river")] == [15, 20, 30, 30]
    assert (shot.shot.extension, shot.shot.allowance) == (30, 3)
    wpt = parse_config('preset = "shot-30"\n').settings
    assert [wpt.shot.seconds_for(s) for s in ("preflop", "river")] == [30, 30] and wpt.shot.extension == 30


def test_a_preset_is_overridden_key_by_key():
    config = parse_config('preset = "wsop"\nlabel = "Main Event"\n[clock]\ncountdown = 5\n')
    assert (config["clock.seconds"], config["clock.countdown"], config["label"]) == (40, 5, "Main Event")


def test_unknown_preset_is_reported_with_the_choices():
    with pytest.raises(ConfigError) as err:
        parse_config('preset = "wpt"\n')
    assert "must be one of 'house-29', 'tda-2024', 'wsop'" in err.value.errors["preset"]


def test_the_example_file_with_another_preset_takes_that_preset():
    text = example_toml().replace('preset = "house-29"', 'preset = "wsop"')
    assert parse_config(text)["clock.seconds"] == 40


@pytest.mark.parametrize("key, value", [("shot.extension_limit", 21), ("shot.allowance", -1),
                                        ("shot.undo_seconds", 31), ("shot.allowance_reset", "day"),
                                        ("screen.brightness", 0), ("screen.brightness", 1.5)])
def test_new_keys_have_ranges(key, value):
    section, leaf = key.split(".")
    text = f'[{section}]\n{leaf} = {value!r}\n'.replace("'", '"')
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert key in err.value.errors


NUMBER_KEYS = [k for k in SCHEMA if set(k.types) & {int, float}]


def test_every_number_in_the_schema_has_a_range():
    """New keys must say what they allow: an unbounded number can crash the device mid-clock."""
    assert NUMBER_KEYS and all(k.range is not None for k in NUMBER_KEYS), [k.name for k in NUMBER_KEYS if not k.range]


@pytest.mark.parametrize("key", NUMBER_KEYS, ids=lambda k: k.name)
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e10", "1e12", "-1e300", "99999999999999999"])
def test_absurd_numbers_are_rejected_with_key_and_range(key, value):
    section, _, leaf = key.name.rpartition(".")
    text = (f"[{section}]\n" if section else "") + f"{leaf} = {value}\n"
    if float not in key.types and value in ("inf", "-inf", "nan", "1e10", "1e12", "-1e300"):
        expected = "must be a whole number"
    else:
        expected = f"must be {key.range.what + ' ' if key.range.what else ''}{key.range}"
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert key.name in info.value.errors and expected in info.value.errors[key.name], info.value.errors


def test_range_check_sees_the_edges():
    assert parse_config("[clock]\nseconds = 3600\ncountdown = 60\ntie_window = 5\n")["clock.seconds"] == 3600
    with pytest.raises(ConfigError, match="'clock.seconds' must be greater than 0 and at most 3600 \\(got 0\\)"):
        parse_config("[clock]\nseconds = 0\n")


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeffmode = \"shot\"\n".encode())
    assert load_config(path)["mode"] == "shot"


def test_config_check_of_infinity_exits_2_with_one_line(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text("[clock]\nseconds = inf\n")
    assert main(["config", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"shotclock: invalid configuration in {path}: "
                                "'clock.seconds' must be greater than 0 and at most 3600 (got inf)"]


def test_errors_between_keys_are_keyed_by_the_key_to_change():
    with pytest.raises(ConfigError) as info:
        parse_config("[device]\nhold = 5\nstuck_after = 4\n[shot]\nflop = 3\n")
    assert set(info.value.errors) == {"device.stuck_after", "shot.countdown"}


@pytest.mark.parametrize("toml, problem", [
    ('table = ""', "'table' must not be empty"),
    ('table = "   "', "'table' must not be empty"),
    ('table = "\\u202eevil\\n\\tx"', "'table' must not hold control characters"),
    ('table = "' + "x" * 41 + '"', "'table' must be at most 40 characters (41 given)"),
])
def test_the_table_name_is_checked_with_the_key_named(tmp_path, capsys, toml, problem):
    # QA finding 5: an empty name, control characters and a 300-character name were all accepted.
    path = tmp_path / "c.toml"
    path.write_text(toml + "\n")
    assert main(["config", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and problem in err, err


# --- typed settings: built once from the schema -------------------------------------------------------------------

def _typed_keys(config: Config) -> set[str]:
    """Every dotted key the typed settings answer for, read from the objects themselves."""
    keys = {name for name in TOP_KEYS}
    for section in SECTIONS:
        keys |= {f"{section}.{f.name}" for f in dataclasses.fields(getattr(config, section))}
    return keys


def test_every_schema_key_has_a_typed_attribute_and_every_attribute_a_key():
    assert _typed_keys(Config()) == {k.name for k in SCHEMA}


def test_the_typed_values_are_the_validated_ones():
    c = parse_config('preset = "tempo"\ntable = "Feature"\n[network]\nhost = "floor.lan"\nport = 1883\n'
                     '[device]\nhold = 1.5\n[pins]\nbuzzer = 12\n')
    for key in SCHEMA:
        head, dot, leaf = key.name.partition(".")
        typed = getattr(getattr(c, head), leaf) if dot else getattr(c, head)
        assert typed == c[key.name], key.name
    assert (c.network.host, c.network.port, c.device.hold, c.table, c.seats.track) == (
        "floor.lan", 1883, 1.5, "Feature", True)
    assert dict(c.pins)["buzzer"] == 12 and "buzzer" not in Config().pins and Config().pins.buzzer is False


def test_the_typed_sections_are_immutable():
    c = Config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.network.host = "elsewhere"
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.table = "other"


def test_the_cores_section_classes_have_the_schemas_defaults():
    # clock, shot and seats are the core's own classes: they must not drift from the schema's keys and defaults.
    for section, cls in CORE_SECTIONS.items():
        defaults = {f"{section}.{f.name}": f.default for f in dataclasses.fields(cls)}
        assert defaults == {k.name: k.default for k in SCHEMA if k.name.startswith(section + ".")}, section


def test_a_forty_character_table_name_is_accepted():
    assert parse_config('table = "' + "Feature table " * 2 + "at the back" + '"')["table"].startswith("Feature")


@pytest.mark.parametrize("toml, problem", [
    ('[network]\nroom = "  "', "'network.room' must be empty or hold a visible character"),
    ('[network]\nsection = "a\\nb"', "'network.section' must not hold control characters"),
    ('[network]\nroom = "' + "x" * 33 + '"', "'network.room' must be at most 32 characters (33 given)"),
])
def test_a_tables_room_and_section_are_checked(tmp_path, capsys, toml, problem):
    path = tmp_path / "c.toml"
    path.write_text(toml + "\n")
    assert main(["config", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and problem in err, err


def test_a_room_and_section_are_optional_and_kept():
    assert parse_config("")["network.room"] == "" and parse_config("")["network.section"] == ""
    c = parse_config('[network]\nroom = "Salon Privé"\nsection = "' + "R" * 32 + '"')
    assert (c["network.room"], c["network.section"]) == ("Salon Privé", "R" * 32)


def test_a_mode_that_leaves_a_presets_time_bank_ruling_the_other_mode_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text('preset = "tempo"\nmode = "clock"\n')
    assert main(["config", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [f"shotclock: invalid configuration in {path}: 'mode' (\"clock\") is not the mode of "
                                "preset \"tempo\" (shot mode), whose seats.track = true, seats.bank = 300 would still "
                                "apply; leave mode out or choose a clock-mode preset"]
    # the house preset's example file with its mode uncommented stays valid, as does tempo with its seats set
    assert parse_config('preset = "house-29"\nmode = "shot"\n')["mode"] == "shot"
    assert parse_config('preset = "tempo"\nmode = "clock"\n[seats]\ntrack = true\nbank = 60\n')["seats.bank"] == 60


@pytest.mark.parametrize("preset", ["shot-30", "shot-15-20-30"])
def test_a_preset_with_an_allowance_and_no_seat_tracking_is_checked_with_one_warning(tmp_path, capsys, preset):
    path = tmp_path / "c.toml"
    path.write_text(f'preset = "{preset}"\n')
    assert main(["config", "--check", str(path)]) == 0
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith(f"shotclock: warning: {path}: shot.allowance = ")
    assert "set seats.track = true" in warnings[0]
    path.write_text(f'preset = "{preset}"\n[seats]\ntrack = true\n')
    assert main(["config", "--check", str(path)]) == 0
    assert capsys.readouterr().err == ""


def test_rule_sets_are_checked_key_by_key():
    text = """
preset = "shot-15-20-30"
[rule_sets.bubble]
shot.preflop = 30
shot.extension_limit = 1
[rule_sets.fast]
shot.preflop = 10
[rule_sets.wrong]
seats.bank = 30
shot.flopp = 10
[rule_sets.clocked]
mode = "clok"
[rule_sets.loud]
shot.countdown = 20
[rule_sets.neg]
shot.turn = -1
"""
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    errors = info.value.errors
    assert set(errors) == {"rule_sets.wrong.seats.bank", "rule_sets.wrong.shot.flopp", "rule_sets.clocked.mode",
                           "rule_sets.loud.shot.countdown", "rule_sets.neg.shot.turn"}
    assert "did you mean 'shot.flop'" in errors["rule_sets.wrong.shot.flopp"]
    assert "clok" in errors["rule_sets.clocked.mode"]  # another mode may be chosen; one that does not exist not
    assert "longer than its clock (15 s)" in errors["rule_sets.loud.shot.countdown"]
    good = parse_config(text.split("[rule_sets.wrong]")[0])
    assert parse_config('mode = "clock"\n[rule_sets.bubble]\nmode = "shot"\nshot.preflop = 30\n').rule_sets == {
        "bubble": (("mode", "shot"), ("shot.preflop", 30))}  # the bubble's shot clock on a clock-mode table
    assert good.rule_sets == {"bubble": (("shot.preflop", 30), ("shot.extension_limit", 1)),
                              "fast": (("shot.preflop", 10),)}
    assert good.settings.shot.preflop == 15  # the table's own rules until the floor chooses a rule set


def test_a_rule_set_name_follows_the_text_rule():
    with pytest.raises(ConfigError) as info:
        parse_config('[rule_sets."a\\tb"]\nshot.flop = 20\n[rule_sets.""]\nmode = "clock"\n')
    assert info.value.errors == {
        "rule_sets.a\tb.shot.flop": "names no rule set: the name must not hold control characters (tab, newline, "
                                     "direction marks)",
        "rule_sets..mode": "names no rule set: must not be empty"}
