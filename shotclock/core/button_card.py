"""The dealer's card: what each button does, read from the gesture map (:mod:`shotclock.core.gestures`).

The README's key table, the hardware guide's button table and the printable dealer cards
(``docs/dealer-card-*.md``) are generated here, per mode and with or without seat tracking, so a
change to the gesture map changes every document (``tests/test_docs.py`` fails when one drifts;
``python tools/docs.py`` rewrites them).

Example::

    >>> print(button_rows("shot", seats=True)["action"].hold)
    running, paused: fold: the seat the press ruled for is out of the hand
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shotclock.core import events as ev
from shotclock.core.buttons import HOLD, PRESS, TAP
from shotclock.core.engine import IDLE, PAUSED, RUNNING
from shotclock.core.gestures import (CHORDS, CLOCK, GESTURES, MODE_BUTTONS, SEAT_GESTURES, SHOT, accepts,
                                     lookup)

# The simulator's keys for each button (a key tap presses and releases it; held, it is held).
KEYS = {"f": "floor", "a": "action", "space": "action", "b": "bet", "e": "extend", "s": "street"}

# Who presses each button at the table.
WHO = {"floor": "floor", "action": "dealer", "bet": "dealer", "extend": "dealer", "street": "dealer"}

# What each event means to the person pressing the button, in the words of the card; a phase's own wording
# first (``(event, mode, phase)``), then a mode's (``(event, mode)``), else the event's.
MEANINGS = {
    "call": "call the clock",
    "pause": "pause the clock",
    "resume": "resume the clock",
    "cancel": "cancel the clock (GEANNULEERD)",
    "reset_chips": "every player's extension chips back",
    "start": "start the clock",
    ("action", CLOCK): "the player acted (ruled at this press)",
    ("action", CLOCK, IDLE): "the player acted: the turn moves on (seat tracking; no clock runs)",
    ("action", SHOT): "the player acted (ruled at this press): the next player's clock starts",
    "stop": "nobody left to act (an all-in called): the clock ends quietly",
    "toggle bet": "toggle facing a bet: HAND DOOD or CHECK at 0",
    "extend": "one time-extension chip",
    "undo": "take the last chip back (within `shot.undo_seconds`)",
    ("street", CLOCK): "next street: no bet faced",
    ("street", SHOT): "next street: no bet faced; a running clock ends quietly",
    "hand": "new hand: facing the blinds",
    "fold": "fold: the seat the press ruled for is out of the hand",
    "all_in": "all-in: the player on turn bet everything",
    "turn_back": "the turn one seat back (no decision)",
    "turn_forward": "the turn one seat forward (no decision)",
}

PHASES = (IDLE, RUNNING, PAUSED)
# Each mode's card, by the file name's part: docs/dealer-card-<name>.md.
CARDS = {"clock": (CLOCK, False), "shot": (SHOT, False), "clock-seats": (CLOCK, True), "shot-seats": (SHOT, True)}
TITLES = {(CLOCK, False): "clock call (rule 29)", (SHOT, False): "shot clock",
          (CLOCK, True): "clock call with seat tracking", (SHOT, True): "shot clock with seat tracking (Tempo)"}


@dataclass(frozen=True)
class ButtonRow:
    """One button's line on the card: what a press (with its release), a 2 s hold and a press while the
    bet button is held do; empty text where it does nothing."""

    button: str
    press: str
    hold: str
    chord: str


def meaning(name: str, mode: str, phase=None) -> str:
    """The card's words for the event ``name`` in ``mode`` (and ``phase``, where that changes them)."""
    return MEANINGS.get((name, mode, phase)) or MEANINGS.get((name, mode)) or MEANINGS[name]


def _takes(mode: str, phase, make, seats: bool) -> bool:
    """Whether the table does something with the event ``make`` gives in ``phase``: the engine's state machine
    says; with seat tracking the seat events, and the dealer's action too (with no clock called it moves
    the turn)."""
    if accepts(mode, phase, make.event):
        return True
    return seats and (make.event in ev.SEAT_EVENTS or (make.event is ev.Action and phase == IDLE))


def _row(button: str, kind: str, seats: bool) -> dict:
    key = (button, kind)
    return SEAT_GESTURES[key] if seats and key in SEAT_GESTURES else GESTURES.get(key, {})


def _cell(button: str, kinds: tuple[str, ...], mode: str, seats: bool) -> str:
    """What ``button``'s gestures of ``kinds`` do in each phase of ``mode``, phases with the same effect
    joined ("running, paused: cancel the clock"); no phase named when all three do the same."""
    parts: list[tuple[list[str], str]] = []
    for kind in kinds:
        row = _row(button, kind, seats)
        for phase in PHASES:
            make = lookup(row, mode, phase)
            if make is None or not _takes(mode, phase, make, seats):
                continue
            text = meaning(make.__name__, mode, phase) + (" (on release)" if kind == TAP else "")
            same = next((p for p in parts if p[1] == text), None)
            if same:
                same[0].append(phase)
            else:
                parts.append(([phase], text))
    if len(parts) == 1 and len(parts[0][0]) == len(PHASES):
        return parts[0][1]
    return "; ".join(f"{', '.join(str(p) for p in phases)}: {text}" for phases, text in parts)


def buttons_for(mode: str, seats: bool) -> tuple[str, ...]:
    """The buttons a table of ``mode`` uses (seat tracking needs the extend button: bet held + extend)."""
    buttons = MODE_BUTTONS[mode]
    if seats and "extend" not in buttons:
        buttons = (*buttons[:-1], "extend", buttons[-1])
    return buttons


def button_rows(mode: str, seats: bool = False) -> dict[str, ButtonRow]:
    """Every button of ``mode`` with what it does, from the gesture map."""
    rows = {}
    for button in buttons_for(mode, seats):
        chord = next((cls for (held, pressed), cls in CHORDS.items() if pressed == button), None) if seats else None
        rows[button] = ButtonRow(button, _cell(button, (PRESS, TAP), mode, seats), _cell(button, (HOLD,), mode, seats),
                                 meaning(chord.NAME, mode) if chord else "")
    return rows


def _keys(button: str) -> str:
    return " or ".join("space" if k == "space" else f"`{k.upper()}`" for k, b in KEYS.items() if b == button)


def button_table_markdown(mode: str, seats: bool = False, audience: str = "card") -> str:
    """The button table as Markdown: ``audience`` ``"keys"`` (the simulator's keys first: the README),
    ``"guide"`` (who presses it: the hardware guide) or ``"card"`` (the printable dealer card)."""
    first = {"keys": ["key", "button"], "guide": ["button", "who"], "card": ["button"]}[audience]
    head = first + ["press", "hold 2 s"] + (["with bet held"] if seats else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for button, row in button_rows(mode, seats).items():
        cells = {"keys": [_keys(button), button], "guide": [button, WHO[button]], "card": [f"**{button}**"]}[audience]
        cells += [row.press or "—", row.hold or "—"] + ([row.chord or "—"] if seats else [])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def dealer_card_markdown(name: str) -> str:
    """The printable dealer card ``docs/dealer-card-<name>.md`` (``name`` one of :data:`CARDS`)."""
    mode, seats = CARDS[name]
    config = {(CLOCK, False): 'mode = "clock"', (SHOT, False): 'mode = "shot"',
              (CLOCK, True): 'mode = "clock"` with `[seats] track = true',
              (SHOT, True): 'preset = "tempo"`, or `mode = "shot"` with `[seats] track = true'}[(mode, seats)]
    lines = [f"# Dealer card: {TITLES[(mode, seats)]}", "",
             f"For a table with `{config}`. Generated from the gesture map (`shotclock/core/gestures.py`); "
             "print it and keep it at the dealer's end of the table.", "",
             button_table_markdown(mode, seats), "",
             "* **press**: the ruling is dated at the moment the button goes down; \"on release\" is a short press, "
             "dated at its press too.",
             "* **hold 2 s**: keep the button down; the screen's bottom bar names what the hold will do and "
             "fills up before it acts. A hold that would do nothing shows no bar.",
             "* The floor button counts after 40 ms of contact (`device.floor_min_press`); a button held 10 s is "
             "reported stuck and ignored until released."]
    if seats:
        lines.append("* **with bet held**: keep the bet button down and press the other button; the bet button's "
                     "own press or hold is then dropped.")
    lines += ["", "The other cards: " + ", ".join(f"[{TITLES[CARDS[other]]}](dealer-card-{other}.md)"
                                                  for other in CARDS if other != name) + "."]
    return "\n".join(lines) + "\n"


_BLOCK = re.compile(r"(<!-- buttons (\S+) (\S+):start -->\n)(?:.*?\n)?(<!-- buttons \2 \3:end -->)", re.S)


def render_blocks(text: str) -> str:
    """``text`` with every generated block brought up to date: a block is the lines between
    ``<!-- buttons MODE AUDIENCE:start -->`` and ``<!-- buttons MODE AUDIENCE:end -->``, ``MODE`` a name of
    :data:`CARDS` (``shot-seats``), ``AUDIENCE`` as :func:`button_table_markdown` takes it."""
    def block(match: re.Match) -> str:
        mode, seats = CARDS[match.group(2)]
        return match.group(1) + button_table_markdown(mode, seats, match.group(3)) + "\n" + match.group(4)

    return _BLOCK.sub(block, text)


def blocks_in(text: str) -> list[tuple[str, str]]:
    """The generated blocks ``text`` holds, as ``(mode, audience)``."""
    return [(m.group(2), m.group(3)) for m in _BLOCK.finditer(text)]
