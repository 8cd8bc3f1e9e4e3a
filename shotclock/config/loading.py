"""Reading a configuration: a TOML file checked against the schema (in the style of Mopidy).

:func:`load_config` reports every problem at once in :attr:`ConfigError.errors`, keyed by the
dotted key, and suggests the nearest valid key for a typo; the checks between keys (a countdown longer than its
clock, a pin used twice, a level's or a rule set's rules as played) are made here too. The result is the typed
:class:`~shotclock.config.typed.Config`.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path

from shotclock.config.levels import level_problems, rule_set_problems
from shotclock.config.pins import pin_problems
from shotclock.config.schema import (KEYS, LEVEL_KEYS, LEVELS, PRESETS, RULE_SET_KEYS, SCHEMA, level_key, parse_size,
                                     preset_mode_check, rule_set_key)
from shotclock.config.typed import Config
from shotclock.core.settings import STREETS
from shotclock.errors import ConfigError, PinConfigError
from shotclock.input_files import input_problem, read_input_file


def parse_config(text: str, source: str = "(text)") -> Config:
    """Validate TOML ``text``; raise :class:`ConfigError` with every problem, keyed by its key.

    A UTF-8 byte order mark at the start (as some Windows editors write) is accepted.
    """
    try:
        raw = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, {"": f"not valid TOML: {exc}"}) from None
    return config_from(_flatten(raw), source)


def config_from(flat: dict, source: str) -> Config:
    """A :class:`Config` from dotted keys and values (a TOML file's, or a replay header's).

    Raises :class:`ConfigError` whose ``errors`` maps each bad key to its problem.
    """
    values = {k.name: k.default for k in SCHEMA}
    errors: dict[str, str] = {}
    preset = flat.get("preset", values["preset"])
    if isinstance(preset, str) and preset in PRESETS:  # a bad preset is reported with the other keys below
        values.update(PRESETS[preset])
    for name, value in flat.items():
        key = KEYS.get(name)
        if key is None and (parsed := level_key(name) or rule_set_key(name)) is not None:
            keys = LEVEL_KEYS if name.startswith(LEVELS + ".") else RULE_SET_KEYS
            problem = parsed if isinstance(parsed, str) else keys[parsed[1]].problem(value)
            if problem:
                errors[name] = problem
            else:
                values[name] = value
            continue
        if key is None:
            match = difflib.get_close_matches(name, KEYS, n=1)
            errors[name] = "is not a known key" + (f" (did you mean '{match[0]}'?)" if match else "")
            continue
        problem = key.problem(value)
        if problem:
            errors[name] = problem
        else:
            values[name] = value
    _cross_checks(values, errors)
    level_problems(values, errors)
    preset_mode_check(flat, values, errors)
    rule_set_problems(values, errors)
    if errors:
        pins_only = all(k.startswith("pins.") for k in errors)
        raise (PinConfigError if pins_only else ConfigError)(source, errors)
    return Config(values, source)


def _cross_checks(values: dict, errors: dict) -> None:
    """Problems between keys, each under the key to change (only when its own value was valid)."""
    def add(name, problem):
        errors.setdefault(name, problem)

    for mode in ("clock", "shot"):
        streets = ["clock.seconds"] if mode == "clock" else [f"shot.{s}" for s in STREETS]
        if any(k in errors for k in streets) or f"{mode}.countdown" in errors:
            continue
        shortest = min(values[k] for k in streets)
        if values[f"{mode}.countdown"] > shortest:
            add(f"{mode}.countdown", f"({values[f'{mode}.countdown']}) is longer than the clock ({shortest} s)")
    for name, problem in pin_problems(values, errors).items():
        add(name, problem)
    if "screen.size" not in errors:
        try:
            parse_size(values["screen.size"])
        except ValueError as exc:
            add("screen.size", str(exc))
    if values["pins.strobe"] is not False and not values["screen.visual_cues"] and "pins.strobe" not in errors:
        add("pins.strobe", "needs screen.visual_cues = true (the strobe pulses with the visual cues)")
    if values["seats.bank"] and not values["seats.track"] and "seats.bank" not in errors:
        add("seats.bank", "needs seats.track = true (a time bank is a player's: the table must know the seats)")
    if values["network.enabled"]:
        _network_checks(values, add)
    if "device.stuck_after" not in errors and "device.hold" not in errors:
        if values["device.stuck_after"] <= values["device.hold"]:
            add("device.stuck_after", f"must be longer than 'device.hold' ({values['device.hold']} s)")


def config_warnings(config: "Config") -> list[str]:
    """Settings that are valid but will not do what they seem to (``config --check`` prints each on one line)."""
    out = []
    if config["mode"] == "shot" and config["shot.allowance"] and not config["seats.track"]:
        out.append(f"shot.allowance = {config['shot.allowance']} counts a chip only when an extension names its "
                   "seat (a floor tablet's extend); the dealer's extend button names none: set seats.track = true "
                   "to charge it to the seat on the clock")
    return out


def _network_checks(values: dict, add) -> None:
    import ipaddress

    if not values["network.credentials"]:
        add("network.credentials", "must name the table's credentials file when 'network.enabled' is true")
    host = values["network.host"]
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not values["network.tls"] and not loopback:
        add("network.tls", f"must be true for a broker beyond this machine ({host})")


def _flatten(table: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def load_config(path: str | Path | None) -> Config:
    """Load and validate the file at ``path``; None gives the defaults."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = read_input_file(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), {"": input_problem(exc, "configuration file")}) from None
    return parse_config(text, str(path))
