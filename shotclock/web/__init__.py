"""The floor's browser pages: the dashboard and the broadcast overlay.

Static files shipped inside the package (HTML, CSS, JavaScript and the vendored MQTT.js), served by
Mosquitto itself from its websockets listener (``http_dir``), so a page and its MQTT connection share
one address, one TLS certificate and one set of credentials; see docs/network.md.

``python -m shotclock.web`` regenerates the two files the pages take from the core, so the floor and
the stream show exactly what the table's screen shows: ``lib/device-texts.js`` (the device's words,
:mod:`shotclock.core.texts`) and ``lib/device-rules.js`` (its tones and their colours,
:mod:`shotclock.core.tones`, how long a ruling stays up, :mod:`shotclock.core.view`, each field's bounds,
:mod:`shotclock.core.fields`, and the commands each phase takes, the ruling at 0 and where the countdown begins,
:mod:`shotclock.core.engine`).
"""

from __future__ import annotations

import json
from pathlib import Path

from shotclock.core import (engine, fields, handforhand, roomstate, texts, tones, topics, tournament_state,
                            tournament_wire, view)
from shotclock.core.events import EVENT_TYPES

DEVICE_TEXTS = "lib/device-texts.js"
DEVICE_RULES = "lib/device-rules.js"


def web_dir() -> Path:
    """The folder holding the pages (``dashboard/``, ``overlay/``, ``lib/``, ``vendor/``): Mosquitto's http_dir."""
    return Path(__file__).resolve().parent


def _script(source: str, name: str, value) -> str:
    body = json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)
    return (f"/* Generated from {source} by 'python -m shotclock.web': do not edit. */\n"
            f"(this.Shotclock = this.Shotclock || {{}}).{name} = " + body + ";\n")


def device_texts_js() -> str:
    """The device's screen texts (Dutch and English) as a script defining ``Shotclock.DEVICE_TEXTS``."""
    return _script("shotclock/core/texts.py", "DEVICE_TEXTS", texts.TEXTS)


def css_colour(rgb) -> str:
    """``(58, 66, 82)`` as ``#3a4252``."""
    return "#" + "".join(f"{c:02x}" for c in rgb)


def device_rules() -> dict:
    """The rule constants the pages show by, from the core:

    * ``ruling_ms``: how long a ruling fills the screen (core/view.py ``RULING_SECONDS``);
    * ``ruling_tones``: the tone of each outcome, ``warn_below``: where a running clock turns from
      calm to warn (core/tones.py);
    * ``tones``: each tone's colours (``background``, ``ring``, ``ink``, ``accent``) as CSS colours;
    * ``fields``: the bounds of the seat commands' fields (core/fields.py), for the dashboard's forms;
    * ``commands``: the dashboard's clock buttons each mode and phase takes (:func:`floor_commands`);
    * ``consequence``: the ruling if time runs out, facing a bet (``bet``) or not (``no_bet``), and
      ``countdown_includes_start``: whether the countdown begins at its first second exactly (``remaining <=
      countdown``, true) or just after it (core/engine.py ``consequence`` and ``in_countdown``).
    * ``tournament``: how a page tells a tournament clock that is gone (``quiet_beats`` heartbeats of
      ``heartbeat_s`` and ``quiet_slack_s`` without a state, core/tournament_state.py), the commands a clock takes
      and the bounds of their values (core/tournament_wire.py, core/fields.py);
    * ``hand_for_hand``: the minutes TDA RP-8 takes off the tournament clock for each hand-for-hand hand, and their
      bound (core/handforhand.py, core/fields.py); the bounds of the venue's retained hand-for-hand state, the
      commands that change it (core/roomstate.py) and how a room's name is one level of its topic (core/topics.py:
      ``lib/handforhand.js`` writes and reads the topic and the state as the core does).

    The countdown's length is each table's own (``countdown`` in its state message).
    """
    return {
        "ruling_ms": round(view.RULING_SECONDS * 1000),
        "ruling_tones": dict(tones.RULING_TONES),
        "warn_below": tones.WARN_BELOW,
        "fields": fields.page_bounds(),
        "commands": floor_commands(),
        "consequence": {"bet": engine.consequence(True), "no_bet": engine.consequence(False)},
        "countdown_includes_start": engine.in_countdown(5.0, 5),
        "hand_for_hand": {"minutes": handforhand.RP8_MINUTES, "max_minutes": fields.RP8_MINUTES_MAX,
                          "max_hands": fields.HAND_FOR_HAND_HANDS_MAX, "max_seq": fields.SEQ_MAX,
                          "place_max": fields.PLACE_MAX, "commands": list(roomstate.ROOM_COMMANDS),
                          "any_place": topics.ANY_PLACE, "no_place": topics.NO_PLACE,
                          "place_safe": bytes(sorted(topics.PLACE_SAFE)).decode("ascii")},
        "tournament": {"heartbeat_s": tournament_state.HEARTBEAT_S, "quiet_beats": tournament_state.QUIET_BEATS,
                       "quiet_slack_s": tournament_state.QUIET_SLACK_S, "commands": list(tournament_wire.COMMANDS),
                       "max_seconds": fields.BANK_MAX, "max_level": fields.LEVEL_MAX},
        "tones": {name: {"background": css_colour(t.background), "ring": css_colour(t.ring), "ink": css_colour(t.ink),
                         "accent": css_colour(t.accent)} for name, t in tones.TONES.items()},
    }


# The clock's buttons on a dashboard card, in the order shown: a called clock ends with the floor's cancel, a shot
# clock with a stop (no more action in the hand). Which of them a table takes now is the engine's transition table's.
FLOOR_BUTTONS = {"clock": ("call", "resume", "pause", "cancel"), "shot": ("start", "resume", "pause", "extend", "stop")}


def floor_commands() -> dict:
    """``{mode: {phase: [command, …]}}``: the :data:`FLOOR_BUTTONS` whose event the engine takes in that phase
    (core/engine.py ``TRANSITIONS``); an event it would ignore has no button."""
    return {mode: {str(phase): [c for c in buttons if EVENT_TYPES[c] in engine.TRANSITIONS[mode][phase]]
                   for phase in engine.Phase}
            for mode, buttons in FLOOR_BUTTONS.items()}


def device_rules_js() -> str:
    """:func:`device_rules` as a script defining ``Shotclock.DEVICE_RULES``."""
    return _script("shotclock/core/tones.py, core/view.py, core/fields.py, core/engine.py and core/topics.py",
                   "DEVICE_RULES", device_rules())


GENERATED = {DEVICE_TEXTS: device_texts_js, DEVICE_RULES: device_rules_js}  # file → what it must hold
