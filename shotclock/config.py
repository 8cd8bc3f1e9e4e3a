"""Configuration: a TOML file checked against a schema (in the style of Mopidy).

Every key has a type, a default and a description. :func:`load_config` reports every
problem at once, names the key, and suggests the nearest valid key for a typo.
``shotclock config`` prints the whole schema as a commented example file.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from shotclock.adapters.boards import BOARDS
from shotclock.core.settings import MODES, STREETS, ClockSettings, Settings, ShotSettings
from shotclock.errors import ConfigError, PinConfigError

BUTTONS = ("floor", "action", "bet", "extend", "street")
LIGHTS = ("led_running", "led_bet", "buzzer")
PIN_RANGE = range(2, 28)  # BCM 2-27: the 40-pin header's usable GPIOs


@dataclass(frozen=True)
class Key:
    """One configuration key: dotted name, accepted types, default, description, extra check."""

    name: str
    types: tuple
    default: Any
    description: str
    check: Callable[[Any], str | None] | None = None


def _positive(v):
    return None if v > 0 else "must be greater than 0"


def _not_negative(v):
    return None if v >= 0 else "must not be negative"


def _one_of(*choices):
    def check(v):
        return None if v in choices else f"must be one of {', '.join(repr(c) for c in choices)}"
    return check


def _pin(v):
    if v is None:
        return None
    return None if v in PIN_RANGE else "must be a BCM pin number from 2 to 27"


def _pin_or_false(v):
    if v is True:
        return "must be a BCM pin number or false, not true"
    return None if v is False else _pin(v)


def _fraction(v):
    return None if 0 <= v <= 1 else "must be between 0 and 1"


NUM = (int, float)
SCHEMA: list[Key] = [
    Key("mode", (str,), "clock", "\"clock\" (rule 29 clock call) or \"shot\" (tour shot clock)", _one_of(*MODES)),
    Key("table", (str,), "Tafel 1", "the table's name, shown on the screen when idle"),
    Key("language", (str,), "nl", "screen and voice language: \"nl\" (Dutch, the official table language) or \"en\"",
        _one_of("nl", "en")),
    Key("clock.seconds", NUM, 30, "the whole clock in seconds, countdown included", _positive),
    Key("clock.countdown", (int,), 5, "audible countdown over the last N seconds", _not_negative),
    Key("clock.tie_window", NUM, 0.5, "seconds after 0 in which an action still counts for the player", _not_negative),
    *[Key(f"shot.{s}", NUM, 30, f"seconds per decision on the {s}", _positive) for s in STREETS],
    Key("shot.countdown", (int,), 5, "audible countdown over the last N seconds", _not_negative),
    Key("shot.extension", NUM, 30, "seconds one time-extension chip adds", _positive),
    Key("shot.tie_window", NUM, 0.5, "seconds after 0 in which an action still counts for the player", _not_negative),
    Key("pins.floor", (int,), 17, "BCM pin of the floor's button (to ground)", _pin),
    Key("pins.action", (int,), 27, "BCM pin of the dealer's action button", _pin),
    Key("pins.bet", (int,), 22, "BCM pin of the dealer's facing-a-bet button", _pin),
    Key("pins.extend", (int,), 23, "BCM pin of the dealer's extension-chip button", _pin),
    Key("pins.street", (int,), 24, "BCM pin of the dealer's street / new hand button", _pin),
    Key("pins.led_running", (int,), 5, "BCM pin of the LED lit while a clock runs", _pin),
    Key("pins.led_bet", (int,), 6, "BCM pin of the LED lit while a bet is faced", _pin),
    Key("pins.buzzer", (int, bool), False, "BCM pin of an optional active buzzer, or false for none",
        _pin_or_false),
    Key("gpio.board", (str,), "raspberry-pi",
        "\"raspberry-pi\" (gpiozero finds the model and its GPIO chip) or \"generic\" (any other Linux board: "
        "pin numbers are line offsets of gpio.chip)", _one_of(*BOARDS)),
    Key("gpio.chip", (int,), 0, "the GPIO chip (/dev/gpiochipN) of a \"generic\" board", _not_negative),
    Key("device.debounce", NUM, 0.03, "seconds after a counted edge in which further edges are contact bounce",
        _not_negative),
    Key("device.edge_grace", NUM, 0.001,
        "seconds the ruling at the end of the tie window waits for a press still on its way from the GPIO driver",
        lambda v: None if 0 <= v <= 0.1 else "must be from 0 to 0.1"),
    Key("device.hold", NUM, 2.0, "seconds a button must be held for a hold gesture", _positive),
    Key("device.stuck_after", NUM, 10.0, "seconds after which a held button is reported stuck and ignored",
        _positive),
    Key("sound.enabled", (bool,), True, "play sounds through the speaker"),
    Key("sound.volume", NUM, 0.8, "volume from 0 to 1", _fraction),
    Key("sound.voice", (bool,), True, "speak the countdown (\"vijf … één\"); false for tones only"),
    Key("screen.fullscreen", (bool,), True, "fill the screen (on the Pi); the simulator opens a window"),
    Key("screen.size", (str,), "800x480", "window size WIDTHxHEIGHT when not fullscreen (portrait: 480x800)"),
    Key("screen.last_ruling_seconds", NUM, 60, "how long the idle screen shows the last ruling", _not_negative),
    Key("log.keep_days", (int,), 90, "days of records kept in the decision log before they are archived",
        _positive),
]
KEYS = {k.name: k for k in SCHEMA}


@dataclass(frozen=True)
class Config:
    """A validated configuration. ``values`` maps every dotted key to its value."""

    values: dict = field(default_factory=lambda: {k.name: k.default for k in SCHEMA})
    source: str = "(defaults)"

    def __getitem__(self, name: str):
        return self.values[name]

    def section(self, prefix: str) -> dict:
        """The keys below ``prefix`` (``"pins"`` → ``{"floor": 17, …}``)."""
        return {k.split(".", 1)[1]: v for k, v in self.values.items() if k.startswith(prefix + ".")}

    @property
    def settings(self) -> Settings:
        """The engine's rule settings."""
        return Settings(mode=self["mode"], clock=ClockSettings(**self.section("clock")),
                        shot=ShotSettings(**self.section("shot")))

    @property
    def screen_size(self) -> tuple[int, int]:
        """``screen.size`` as (width, height)."""
        return parse_size(self["screen.size"])

    @property
    def pins(self) -> dict[str, int]:
        """Every configured pin, by role (a buzzer set to false is left out)."""
        return {k: v for k, v in self.section("pins").items() if v is not False}


def parse_size(text: str) -> tuple[int, int]:
    """``"800x480"`` → ``(800, 480)``; raises ValueError with the reason."""
    try:
        w, h = (int(p) for p in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"{text!r} is not WIDTHxHEIGHT (for example 800x480)") from None
    if not (100 <= w <= 8000 and 100 <= h <= 8000):
        raise ValueError(f"{text!r}: each side must be 100 to 8000 pixels")
    return w, h


def _flatten(table: dict, prefix: str = "") -> dict:
    flat = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _type_name(types: tuple) -> str:
    names = {int: "a whole number", float: "a number", str: "a string", bool: "true or false"}
    if types == NUM:
        return "a number"
    return " or ".join(names[t] for t in types)


def parse_config(text: str, source: str = "(text)") -> Config:
    """Validate TOML ``text``; raise :class:`ConfigError` listing every problem."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"not valid TOML: {exc}"]) from None
    values = {k.name: k.default for k in SCHEMA}
    problems = []
    for name, value in _flatten(raw).items():
        key = KEYS.get(name)
        if key is None:
            match = difflib.get_close_matches(name, KEYS, n=1)
            hint = f" (did you mean '{match[0]}'?)" if match else ""
            problems.append(f"unknown key '{name}'{hint}")
            continue
        # bool is an int in Python: only accept it where the schema says bool.
        ok = isinstance(value, key.types) and (bool in key.types or not isinstance(value, bool))
        if not ok:
            problems.append(f"'{name}' must be {_type_name(key.types)}, not {value!r}")
            continue
        problem = key.check(value) if key.check else None
        if problem:
            problems.append(f"'{name}' {problem} (got {value!r})")
            continue
        values[name] = value
    problems += _cross_checks(values, {p.split("'")[1] for p in problems if "'" in p})
    if problems:
        pin_only = all("pin" in p for p in problems)
        raise (PinConfigError if pin_only else ConfigError)(source, problems)
    return Config(values, source)


def _cross_checks(values: dict, already_bad: set) -> list[str]:
    problems = []
    for mode in ("clock", "shot"):
        shortest = values["clock.seconds"] if mode == "clock" else min(values[f"shot.{s}"] for s in STREETS)
        if values[f"{mode}.countdown"] > shortest and f"{mode}.countdown" not in already_bad:
            problems.append(f"'{mode}.countdown' ({values[f'{mode}.countdown']}) is longer than the clock "
                            f"({shortest} s)")
    seen: dict[int, str] = {}
    for role in BUTTONS + LIGHTS:
        pin = values[f"pins.{role}"]
        if pin is False or isinstance(pin, bool):
            continue
        if pin in seen:
            problems.append(f"pin {pin} is used twice: 'pins.{seen[pin]}' and 'pins.{role}'")
        seen[pin] = role
    try:
        parse_size(values["screen.size"])
    except ValueError as exc:
        problems.append(f"'screen.size' {exc}")
    if values["device.stuck_after"] <= values["device.hold"]:
        problems.append("'device.stuck_after' must be longer than 'device.hold'")
    return problems


def load_config(path: str | Path | None) -> Config:
    """Load and validate the file at ``path``; None gives the defaults."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), ["file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), [f"cannot read: {exc}"]) from None
    return parse_config(text, str(path))


def example_toml() -> str:
    """The whole schema as a commented TOML file with every default."""
    lines = ["# shotclock configuration: every key with its default.", ""]
    section = None
    for key in SCHEMA:
        head, _, leaf = key.name.rpartition(".")
        if head != section:
            if head:
                lines += ["", f"[{head}]"]
            section = head
        value = key.default
        shown = "false" if value is False else "true" if value is True else (
            f'"{value}"' if isinstance(value, str) else str(value))
        assignment = f"{leaf or key.name} = {shown}"
        lines.append(f"{assignment:<24} # {key.description}")
    return "\n".join(lines) + "\n"
