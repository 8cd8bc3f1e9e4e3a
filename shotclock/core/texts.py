"""What the screen says, in Dutch (the official table language, the default) and English."""

from __future__ import annotations

TEXTS = {
    "nl": {
        "mode.clock": "Klok",
        "label.house": "regel 29",
        "mode.shot": "Shotclock",
        "idle.waiting": "Klaar",
        "idle.last": "Laatste beslissing: {ruling}",
        "at_zero": "{bet} · bij 0: {ruling}",
        "paused": "GEPAUZEERD",
        "interrupted": "ONDERBROKEN",
        "interrupted.press": "Floor drukt: HERVAT",
        "interrupted.hold": "Floor houdt vast: annuleer",
        "ruling.hand_dead": "HAND DOOD",
        "ruling.hand_dead.detail": "geen actie tegen een inzet",
        "ruling.check": "CHECK",
        "ruling.check.detail": "geen actie, geen inzet",
        "ruling.acted": "ACTIE OP TIJD",
        "ruling.acted.detail": "nog {left} over",
        "ruling.at_zero": "ACTIE OP 0",
        "ruling.at_zero.detail": "SPELER IN HET VOORDEEL",
        "ruling.cancelled": "GEANNULEERD",
        "ruling.cancelled.detail": "geen beslissing",
        "street.preflop": "Preflop",
        "street.flop": "Flop",
        "street.turn": "Turn",
        "street.river": "River",
        "extensions": "Extensies: {n}",
        "extensions.of": "Extensies: {n} van {limit}",
        "chips_left": "nog {n} chips",
        "bet.yes": "Tegen inzet",
        "bet.no": "Geen inzet",
        "fault.stuck": "Knop '{button}' zit vast · genegeerd",
        "fault.no_sound": "Geen geluid",
        "fault.log.unavailable": "Logboek niet beschikbaar",
        "fault.log.write_failed": "Logboek: schrijven mislukt",
        "fault.log.backlog": "Logboek loopt achter",
        "button.floor": "floor",
        "button.action": "actie",
        "button.bet": "inzet",
        "button.extend": "extensie",
        "button.street": "straat",
        "seconds": "{s} s",
        "key.space": "spatie",
        "hint.floor": "klok / pauze · houd 2 s: annuleer",
        "hint.street": "straat · houd: nieuwe hand",
        "hint.quit": "Esc: stoppen",
    },
    "en": {
        "mode.clock": "Clock",
        "label.house": "rule 29",
        "mode.shot": "Shot clock",
        "idle.waiting": "Ready",
        "idle.last": "Last ruling: {ruling}",
        "at_zero": "{bet} · at 0: {ruling}",
        "paused": "PAUSED",
        "interrupted": "INTERRUPTED",
        "interrupted.press": "Floor presses: RESUME",
        "interrupted.hold": "Floor holds: cancel",
        "ruling.hand_dead": "HAND DEAD",
        "ruling.hand_dead.detail": "no action facing a bet",
        "ruling.check": "CHECK",
        "ruling.check.detail": "no action, no bet",
        "ruling.acted": "ACTION IN TIME",
        "ruling.acted.detail": "{left} left",
        "ruling.at_zero": "ACTION AT 0",
        "ruling.at_zero.detail": "PLAYER GETS THE BENEFIT",
        "ruling.cancelled": "CANCELLED",
        "ruling.cancelled.detail": "no ruling",
        "street.preflop": "Preflop",
        "street.flop": "Flop",
        "street.turn": "Turn",
        "street.river": "River",
        "extensions": "Extensions: {n}",
        "extensions.of": "Extensions: {n} of {limit}",
        "chips_left": "{n} chips left",
        "bet.yes": "Facing a bet",
        "bet.no": "No bet",
        "fault.stuck": "Button '{button}' stuck · ignored",
        "fault.no_sound": "No sound",
        "fault.log.unavailable": "Log unavailable",
        "fault.log.write_failed": "Log: cannot write",
        "fault.log.backlog": "Log falling behind",
        "button.floor": "floor",
        "button.action": "action",
        "button.bet": "bet",
        "button.extend": "extend",
        "button.street": "street",
        "seconds": "{s} s",
        "key.space": "space",
        "hint.floor": "call / pause · hold 2 s: cancel",
        "hint.street": "street · hold: new hand",
        "hint.quit": "Esc: quit",
    },
}
LANGUAGES = tuple(TEXTS)


def text(language: str, key: str, **values) -> str:
    """The text for ``key`` in ``language``, with ``values`` filled in."""
    return TEXTS[language][key].format(**values)


def seconds(language: str, value: float) -> str:
    """A time for the screen: ``12,3 s`` in Dutch, ``12.3 s`` in English."""
    shown = f"{value:.1f}"
    if language == "nl":
        shown = shown.replace(".", ",")
    return text(language, "seconds", s=shown)
