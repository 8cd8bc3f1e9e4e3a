"""Configuration: a TOML file checked against a schema (in the style of Mopidy). This is the schema.

Every key has a type, a default, a description and, for a number, the :class:`Range` it must
lie in (a new numeric key must give one: ``Key("x.seconds", NUM, 30, "…", range=Range(0, 60, above=True))``).
A ``[levels.N]`` or ``[rule_sets.NAME]`` section holds the keys of :data:`LEVEL_KEYS` or :data:`RULE_SET_KEYS`.
:mod:`shotclock.config.loading` reports every problem at once in :attr:`ConfigError.errors`, keyed by the
dotted key, and suggests the nearest valid key for a typo.
``shotclock config`` prints the whole schema as a commented example file.
The validated :class:`~shotclock.config.typed.Config` is typed, built once from the same schema.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable

from shotclock.config.pins import BOARDS
from shotclock.core.fields import BANK_MAX, CHIPS_MAX, FIELDS, LEVEL_MAX, MAX_SEATS, MIN_SEATS, text_problem
from shotclock.core.settings import ALLOWANCE_RESETS, MODES, STREETS
from shotclock.errors import shown


@dataclass(frozen=True)
class Range:
    """The values a number may take: ``low`` to ``high`` inclusive (``low`` excluded when ``above``).

    Every numeric key has one, so no value can be infinite, NaN or absurdly large (a clock of
    1e12 s would hang the engine's microsecond arithmetic). ``what`` names the kind of number
    in the message (``"a BCM pin number"``).
    """

    low: float
    high: float
    above: bool = False
    what: str = ""

    def __str__(self) -> str:
        low, high = _plain(self.low), _plain(self.high)
        return f"greater than {low} and at most {high}" if self.above else f"from {low} to {high}"

    def problem(self, value) -> str | None:
        """Why ``value`` is outside the range (None when it is inside)."""
        # Comparisons with NaN are all false, so NaN fails the test below as it should.
        inside = (self.low < value if self.above else self.low <= value) and value <= self.high
        if inside:
            return None
        return f"must be {self.what + ' ' if self.what else ''}{self}"


def _plain(x: float) -> str:
    """A bound as a person writes it: 10000000, not 1e+07; 0.1, not 0.10000."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class Key:
    """One configuration key: dotted name, accepted types, default, description, allowed range, extra check.

    A number's ``range`` is checked before ``check``; a key that takes numbers must have one
    (tests/test_config.py checks every key of the schema). ``by_level``: a ``[levels.N]`` section may change it
    from tournament level N on (docs/rules.md, "Levels"), and a named rule set (``[rule_sets.NAME]``) while the
    floor has the table on it (docs/rules.md, "The tournament").
    """

    name: str
    types: tuple
    default: Any
    description: str
    check: Callable[[Any], str | None] | None = None
    range: Range | None = None
    by_level: bool = False

    def problem(self, value) -> str | None:
        """What is wrong with ``value`` for this key, without the key's name (None when it is valid)."""
        # bool is an int in Python: only accept it where the schema says bool.
        if not isinstance(value, self.types) or (isinstance(value, bool) and bool not in self.types):
            return f"must be {_type_name(self.types)}, not {_shown(value)}"
        if self.range and isinstance(value, (int, float)) and not isinstance(value, bool):
            problem = self.range.problem(value)
            if problem:
                return f"{problem} (got {_shown(value)})"
        problem = self.check(value) if self.check else None
        return f"{problem} (got {_shown(value)})" if problem else None


def _shown(value) -> str:
    """A value as the user wrote it in TOML (``inf``, ``nan``, ``true``), shortened when huge."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return shown(value)


def _one_of(*choices):
    def check(v):
        return None if v in choices else f"must be one of {', '.join(repr(c) for c in choices)}"
    return check


def _name(v):
    from shotclock.core.topics import check_name

    problem = check_name("it", v)
    return problem and "must" + problem.split(" must", 1)[1]  # the topics' rule, in its words


TABLE_NAME_MAX = FIELDS["table"].high  # characters: the idle screen shows the name large


def _text(field: str):
    """The check of a text key by its field in the table of fields (core/fields.py): the one rule for text."""
    def check(v):
        f = FIELDS[field]
        problem = text_problem(v, f.high, "it", empty=f.low == 0)
        return problem and problem.removeprefix("it ")
    return check


def _not_true(v):
    return "must be a BCM pin number or false" if v is True else None


# Ranges a person would never need to leave; wide enough for any table, narrow enough to be safe.
SECONDS = Range(0, 3600, above=True)           # a decision's clock: up to an hour
COUNTDOWN = Range(0, 60)                        # audible countdown seconds
TIE_WINDOW = Range(0, 5)                        # seconds after 0 that still count for the player
PIN = Range(2, 27, what="a BCM pin number")     # the 40-pin header's usable GPIOs
NUM = (int, float)

# Presets: the rule sets a table commonly runs, each key overridable in the file. Where each comes from
# (the rule's own words) is cited in docs/rules.md, "Presets".
PRESETS: dict[str, dict] = {
    "house-29": {"mode": "clock", "clock.seconds": 30, "clock.countdown": 5, "label": ""},
    "tda-2024": {"mode": "clock", "clock.seconds": 30, "clock.countdown": 5, "label": "TDA 29"},
    "wsop": {"mode": "clock", "clock.seconds": 40, "clock.countdown": 10, "label": "WSOP"},
    "shot-30": {"mode": "shot", **{f"shot.{s}": 30 for s in STREETS}, "shot.extension": 30,
                "shot.extension_limit": 4, "shot.allowance": 4, "label": ""},
    "shot-15-20-30": {"mode": "shot", "shot.preflop": 15, "shot.flop": 20, "shot.turn": 30, "shot.river": 30,
                      "shot.extension": 30, "shot.extension_limit": 3, "shot.allowance": 3, "label": ""},
    "tempo": {"mode": "shot", **{f"shot.{s}": 30 for s in STREETS}, "shot.extension_limit": 0, "shot.allowance": 0,
              "seats.track": True, "seats.bank": 300, "label": "Tempo"},
}
PRESET_KEYS = frozenset(k for values in PRESETS.values() for k in values)

SCHEMA: list[Key] = [
    Key("preset", (str,), "house-29", "the rule set: " + ", ".join(f'"{p}"' for p in PRESETS)
        + " (docs/rules.md); any key below overrides it", _one_of(*PRESETS)),
    Key("mode", (str,), "clock", "\"clock\" (rule 29 clock call) or \"shot\" (tour shot clock)", _one_of(*MODES),
        by_level=True),
    Key("label", (str,), "", "the rule's name on screen after the mode (\"TDA 29\"); empty: the house rule 29"),
    Key("table", (str,), "Tafel 1", "the table's name, shown on the screen when idle (1 to 40 characters)",
        _text("table")),
    Key("language", (str,), "nl", "screen and voice language: \"nl\" (Dutch, the official table language) or \"en\"",
        _one_of("nl", "en")),
    Key("clock.seconds", NUM, 30, "the whole clock in seconds, countdown included", range=SECONDS, by_level=True),
    Key("clock.countdown", (int,), 5, "audible countdown over the last N seconds", range=COUNTDOWN, by_level=True),
    Key("clock.tie_window", NUM, 0.5, "seconds after 0 in which an action still counts for the player",
        range=TIE_WINDOW),
    *[Key(f"shot.{s}", NUM, 30, f"seconds per decision on the {s}", range=SECONDS, by_level=True) for s in STREETS],
    Key("shot.countdown", (int,), 5, "audible countdown over the last N seconds", range=COUNTDOWN, by_level=True),
    Key("shot.extension", NUM, 30, "seconds one time-extension chip adds", range=SECONDS, by_level=True),
    Key("shot.tie_window", NUM, 0.5, "seconds after 0 in which an action still counts for the player",
        range=TIE_WINDOW),
    Key("shot.extension_limit", (int,), 4, "extension chips one decision may take (0: no limit)",
        range=Range(0, 20), by_level=True),
    Key("shot.allowance", (int,), 0, "extension chips each player holds, counted by seat (0: not tracked)",
        range=Range(0, CHIPS_MAX), by_level=True),
    Key("shot.allowance_reset", (str,), "floor", "when players get their chips back: \"hand\" (every new hand) or "
        "\"floor\" (only when the floor resets them: a new day or stage)", _one_of(*ALLOWANCE_RESETS)),
    Key("shot.undo_seconds", NUM, 5, "seconds after an extension in which the dealer can take it back",
        range=Range(0, 30)),
    Key("seats.track", (bool,), False, "keep whose turn it is: seats, the button, folds and all-ins marked by the "
        "dealer (docs/rules.md, \"Seats\"); false: the clock knows no seats, as before"),
    Key("seats.count", (int,), 9, "seats at the table, all occupied at start (the floor empties, seats and "
        "names players)", range=Range(MIN_SEATS, MAX_SEATS, what="a number of seats")),
    Key("seats.bank", NUM, 0, "time bank mode: seconds of personal bank each player starts with, run after the "
        "street's time is up (0: no time bank; needs seats.track)", range=Range(0, BANK_MAX)),
    Key("pins.floor", (int,), 17, "BCM pin of the floor's button (to ground)", range=PIN),
    Key("pins.action", (int,), 27, "BCM pin of the dealer's action button", range=PIN),
    Key("pins.bet", (int,), 22, "BCM pin of the dealer's facing-a-bet button", range=PIN),
    Key("pins.extend", (int,), 23, "BCM pin of the dealer's extension-chip button", range=PIN),
    Key("pins.street", (int,), 24, "BCM pin of the dealer's street / new hand button", range=PIN),
    Key("pins.led_running", (int,), 5, "BCM pin of the LED lit while a clock runs", range=PIN),
    Key("pins.led_bet", (int,), 6, "BCM pin of the LED lit while a bet is faced", range=PIN),
    Key("pins.buzzer", (int, bool), False, "BCM pin of an optional active buzzer, or false for none",
        _not_true, range=PIN),
    Key("pins.strobe", (int, bool), False, "BCM pin of an optional strobe light or vibrating puck (through a "
        "transistor), pulsed with each countdown second, the bank's start and the ruling when "
        "screen.visual_cues is on; false for none", _not_true, range=PIN),
    Key("gpio.board", (str,), "raspberry-pi",
        "\"raspberry-pi\" (gpiozero finds the model and its GPIO chip) or \"generic\" (any other Linux board: "
        "pin numbers are line offsets of gpio.chip)", _one_of(*BOARDS)),
    Key("gpio.chip", (int,), 0, "the GPIO chip (/dev/gpiochipN) of a \"generic\" board",
        range=Range(0, 255, what="a GPIO chip number")),
    Key("device.debounce", NUM, 0.03, "seconds after a counted edge in which further edges are contact bounce",
        range=Range(0, 1)),
    Key("device.edge_grace", NUM, 0.001,
        "seconds the ruling at the end of the tie window waits for a press still on its way from the GPIO driver",
        range=Range(0, 0.1)),
    Key("device.floor_min_press", NUM, 0.04, "seconds the floor button's contact must stay closed before a press "
        "counts (plugging in its jack shorts it for a moment); the press is still dated at its edge",
        range=Range(0, 0.5)),
    Key("device.hold", NUM, 2.0, "seconds a button must be held for a hold gesture", range=Range(0, 60, above=True)),
    Key("device.stuck_after", NUM, 10.0, "seconds after which a held button is reported stuck and ignored",
        range=Range(0, 3600, above=True)),
    Key("sound.enabled", (bool,), True, "play sounds through the speaker"),
    Key("sound.volume", NUM, 0.8, "volume from 0 to 1", range=Range(0, 1)),
    Key("sound.voice", (bool,), True, "speak the countdown (\"vijf … één\"); false for tones only"),
    Key("sound.device", (str,), "", "the audio output by name (shotclock selftest --sound lists them); "
        "empty: the system's default"),
    Key("screen.fullscreen", (bool,), True, "fill the screen (on the Pi); the simulator opens a window"),
    Key("screen.size", (str,), "800x480", "window size WIDTHxHEIGHT when not fullscreen (portrait: 480x800)"),
    Key("screen.visual_cues", (bool,), False, "visual-first cues (TDA Rule 9, special needs): the screen flashes "
        "on each countdown second, the bank's start and the ruling, the running LED blinks with them and "
        "pins.strobe pulses"),
    Key("screen.last_ruling_seconds", NUM, 60, "how long the idle screen shows the last ruling",
        range=Range(0, 86400)),
    Key("screen.brightness", NUM, 1.0, "backlight, where the display has one (the official 7\" display does); "
        "ignored elsewhere", range=Range(0.1, 1)),
    Key("log.keep_days", (int,), 90, "days of records kept in the decision log before they are archived",
        range=Range(1, 36500)),
    # The floor network (docs/network.md): off unless enabled.
    Key("network.enabled", (bool,), False, "publish to the floor's MQTT broker and take its commands"),
    Key("network.host", (str,), "localhost", "the broker's host name or address"),
    Key("network.port", (int,), 8883, "the broker's port (8883: MQTT over TLS, 1883: plain, loopback only)",
        range=Range(1, 65535, what="a TCP port")),
    Key("network.tls", (bool,), True, "TLS to the broker (required for any broker beyond this machine)"),
    Key("network.ca_file", (str,), "", "the broker's certificate or its CA (PEM); empty: the system's CAs"),
    Key("network.venue", (str,), "venue", "the venue's name in the topics (letters, digits, - and _)", _name),
    Key("network.table_id", (str,), "1", "this table's id in the topics (letters, digits, - and _)", _name),
    Key("network.room", (str,), "", "the room this table stands in, for the floor dashboard's filters "
        f"(up to {FIELDS['room'].high} characters; empty: none)", _text("room")),
    Key("network.section", (str,), "", f"the section of the room (a row, a pit: up to {FIELDS['section'].high} "
        "characters; empty: none)",
        _text("section")),
    Key("network.credentials", (str,), "",
        "the TOML file with this table's username and password (from 'shotclock broker-config')"),
    Key("network.keepalive", (int,), 5,
        "seconds between keep-alive pings; the broker announces the table offline after 1.5 times this",
        range=Range(2, 300)),
    Key("network.command_max_age", NUM, 5.0, "seconds a floor command lives (the broker drops it after its MQTT "
        "expiry); command ids are remembered twice this and a minute", range=Range(0.5, 120)),
    Key("network.state_interval", NUM, 1.0, "seconds between state messages while a clock runs",
        range=Range(0.2, 60)),
    Key("network.outbox_max", (int,), 100_000, "records kept for delivery while the broker is away",
        range=Range(100, 10_000_000)),
    # Floor commands and rulings carry wall-clock times: the tables keep their clocks to the floor's.
    Key("time.server", (str,), "", "the NTP server install.sh points systemd-timesyncd at (the broker host serves "
        "time: 'shotclock broker-config --time'); empty: the floor's broker host when [network] names one, else "
        "the system's default servers; 'none': leave the time set-up alone"),
]
KEYS = {k.name: k for k in SCHEMA}

# Tournament levels (docs/rules.md, "Levels"): a ``[levels.N]`` section changes the keys marked ``by_level`` from
# level N on (``[levels.11] mode = "shot"``: a shot clock from level 11), and may top every seated player up once,
# at the first hand of level N. Its keys are the schema's own (same types, ranges and checks), plus these two.
LEVELS = "levels"
# A stage's exact number of extension chips (WPT: 10 from the start, exactly 6 at 24 players, 8 at the final table):
# at the first hand of the level, or of the rule set, every seated player's chips become the allowance in force.
CHIPS_RESET = Key("chips.reset", (bool,), False, "at the first hand of this level (or rule set) every seated "
                  "player's extension chips become exactly its shot.allowance (a stage's chips, as WPT resets them)")
LEVEL_TOP_UPS: dict[str, Key] = {k.name: k for k in (
    Key("top_up.seconds", NUM, 0, "seconds of time bank every seated player gets at the first hand of this level "
        "(needs seats.track and seats.bank)", range=Range(0, BANK_MAX)),
    Key("top_up.chips", (int,), 0, "extension chips every seated player gets at the first hand of this level",
        range=Range(0, CHIPS_MAX)),
    CHIPS_RESET,
)}
LEVEL_KEYS: dict[str, Key] = {**{k.name: k for k in SCHEMA if k.by_level}, **LEVEL_TOP_UPS}


def level_key(name: str) -> tuple[int, str] | str | None:
    """``"levels.11.mode"`` → ``(11, "mode")``; a ``levels.`` key that is not one: the problem (a string); any other
    key: None."""
    head, dot, rest = name.partition(".")
    if head != LEVELS or not dot:
        return None
    number, dot, key = rest.partition(".")
    if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= LEVEL_MAX:
        return f"names no level: '{number}' must be a level from 1 to {LEVEL_MAX} ([levels.N])"
    if key not in LEVEL_KEYS:
        match = difflib.get_close_matches(key, LEVEL_KEYS, n=1)
        return (f"is not a key a level can change{f' (did you mean {match[0]!r}?)' if match else ''}; "
                f"a level can change {', '.join(LEVEL_KEYS)}")
    return int(number), key


# The house's named rule sets (docs/rules.md, "The tournament"): a ``[rule_sets.NAME]`` section changes the same
# keys a level may (those marked ``by_level``) while the floor has the table on rule set NAME, from its next hand
# (``[rule_sets.bubble]`` with ``shot.preflop = 30``…: a 30 s shot clock on every decision), in the table's own
# mode (a clock's mode is its session's in the log, its export and its replay). NAME is
# what the floor's ``rule_set`` command sends: the text rule of the ``rule_set`` field (core/fields.py).
RULE_SETS = "rule_sets"
RULE_SET_KEYS: dict[str, Key] = {**{k.name: k for k in SCHEMA if k.by_level}, CHIPS_RESET.name: CHIPS_RESET}


def rule_set_key(name: str) -> tuple[str, str] | str | None:
    """``"rule_sets.bubble.shot.flop"`` → ``("bubble", "shot.flop")``; a ``rule_sets.`` key that is not one: the
    problem (a string); any other key: None."""
    head, dot, rest = name.partition(".")
    if head != RULE_SETS or not dot:
        return None
    for key in sorted(RULE_SET_KEYS, key=len, reverse=True):  # a name may hold a dot: the key is its end
        if rest.endswith("." + key):
            set_name = rest[:-len(key) - 1]
            problem = FIELDS["rule_set"].value_problem(set_name) or (None if set_name else "must not be empty")
            return (set_name, key) if problem is None else \
                f"names no rule set: {problem.replace(FIELDS['rule_set'].what, 'the name', 1)}"
    key = rest.partition(".")[2] or rest
    match = difflib.get_close_matches(key, RULE_SET_KEYS, n=1)
    return (f"is not a key a rule set can change{f' (did you mean {match[0]!r}?)' if match else ''}; a rule set can "
            f"change {', '.join(RULE_SET_KEYS)} ([rule_sets.NAME])")


def preset_mode_check(flat: dict, values: dict, errors: dict) -> None:
    """A ``mode`` that is not the preset's, while the preset's seat keys would still rule in it (``tempo`` with
    ``mode = "clock"``: every called clock would carry the 300 s bank): refused under ``mode``."""
    preset = flat.get("preset")
    if preset not in PRESETS or "mode" not in flat or "mode" in errors:
        return
    own = PRESETS[preset]
    kept = [k for k in own if k.startswith("seats.") and k not in flat]
    if flat["mode"] != own["mode"] and kept:
        errors["mode"] = (f'("{flat["mode"]}") is not the mode of preset "{preset}" ({own["mode"]} mode), whose '
                          f'{", ".join(f"{k} = {_shown(own[k])}" for k in kept)} would still apply; '
                          f'leave mode out or choose a {flat["mode"]}-mode preset')


def is_key(name: str) -> bool:
    """Whether ``name`` is a valid configuration key: one of the schema's, a level's (``levels.11.mode``) or a
    rule set's (``rule_sets.bubble.mode``)."""
    return name in KEYS or isinstance(level_key(name), tuple) or isinstance(rule_set_key(name), tuple)


def parse_size(text: str) -> tuple[int, int]:
    """``"800x480"`` → ``(800, 480)``; raises ValueError with the reason."""
    try:
        w, h = (int(p) for p in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"{text!r} is not WIDTHxHEIGHT (for example 800x480)") from None
    if not (100 <= w <= 8000 and 100 <= h <= 8000):
        raise ValueError(f"{text!r}: each side must be 100 to 8000 pixels")
    return w, h


def _type_name(types: tuple) -> str:
    names = {int: "a whole number", float: "a number", str: "a string", bool: "true or false"}
    if types == NUM:
        return "a number"
    return " or ".join(names[t] for t in types)


def example_toml() -> str:
    """The whole schema as a commented TOML file with every default."""
    lines = ["# shotclock configuration: every key with its default.",
             "# The keys commented out are set by the preset; uncomment one to override it.", ""]
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
        if key.name in PRESET_KEYS:  # commented out, or it would override the preset chosen above
            assignment = "# " + assignment
        allowed = f" ({key.range})" if key.range and not key.name.startswith("pins.") else ""
        lines.append(f"{assignment:<24} # {key.description}{allowed}")
    import textwrap

    lines += ["", "# Rules that change by tournament level (docs/rules.md, \"Levels\"): a [levels.N] section changes,",
              f"# from level N on (1 to {LEVEL_MAX}), any of these keys:"]
    lines += textwrap.wrap(", ".join(LEVEL_KEYS), 100, initial_indent="#   ", subsequent_indent="#   ")
    lines += ["# For example:", "# [levels.11]", '# mode = "shot"', "# [levels.10]", "# top_up.seconds = 30"]
    lines += ["", "# Named rule sets the floor puts a room or the venue on from each table's next hand (docs/rules.md,",
              "# \"The tournament\"): a [rule_sets.NAME] section changes the keys a level can, in the table's own",
              "# mode (not the top-ups). For example, the bubble at a shot-clock table: 30 s on every decision,",
              "# one extension chip a decision:",
              "# [rule_sets.bubble]", *[f"# shot.{s} = 30" for s in STREETS], "# shot.extension_limit = 1"]
    return "\n".join(lines) + "\n"
