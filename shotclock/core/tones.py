"""The device's tones: their colours, and which tone a ruling and a running clock take.

One source for the table's screen and the floor's pages. The view model names a tone
(:class:`~shotclock.core.view.View` ``tone``); the screen paints it with :data:`TONES`, and the
dashboard and the broadcast overlay take the same table, generated into
``shotclock/web/lib/device-rules.js`` (``python -m shotclock.web``), so a ruling has the same
colour at the table, on the floor's tablet and on the stream.

Example::

    >>> ruling_tone("check"), running_tone(0.75), running_tone(0.5)
    ('check', 'calm', 'warn')
    >>> TONES["check"].background
    (58, 66, 82)
"""

from __future__ import annotations

from dataclasses import dataclass

from shotclock.core.events import ACTED, CANCELLED, CHECK, HAND_DEAD

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Tone:
    """A tone's colours: the screen's ``background``, its progress ``ring`` and ``ink`` (the words),
    and its ``accent``: the tone as a small mark on a dark page (a border, a bar, a word)."""

    background: RGB
    ring: RGB
    ink: RGB
    accent: RGB


# Calm green → amber → red for urgency. Amber is a real amber (a dark amber reads as brown under room
# light) with black ink; CHECK is a neutral slate, not a warning: nobody did anything wrong.
TONES: dict[str, Tone] = {
    "calm": Tone((8, 52, 30), (46, 204, 113), (235, 255, 240), (46, 204, 113)),
    "warn": Tone((232, 150, 0), (40, 24, 0), (0, 0, 0), (232, 150, 0)),
    "urgent": Tone((150, 0, 0), (255, 214, 0), (255, 255, 255), (248, 81, 73)),
    "paused": Tone((24, 34, 64), (120, 150, 220), (230, 236, 255), (120, 150, 220)),
    "dead": Tone((150, 0, 0), (255, 255, 255), (255, 255, 255), (248, 81, 73)),
    "good": Tone((10, 90, 40), (255, 255, 255), (255, 255, 255), (46, 204, 113)),
    "check": Tone((58, 66, 82), (220, 226, 236), (255, 255, 255), (160, 170, 188)),
    "neutral": Tone((16, 16, 20), (90, 90, 100), (240, 240, 240), (90, 90, 100)),
    # A player's own time bank running (Tempo): violet, like no other tone, so its start is seen.
    "bank": Tone((62, 22, 112), (210, 170, 255), (255, 255, 255), (176, 124, 255)),
    # A visual cue's pulse (screen.visual_cues): the whole screen white for a moment.
    "flash": Tone((255, 255, 255), (0, 0, 0), (0, 0, 0), (255, 255, 255)),
}

RULING_TONES = {ACTED: "good", HAND_DEAD: "dead", CHECK: "check", CANCELLED: "neutral"}
WARN_BELOW = 0.5  # a running clock turns from calm to warn once no more than this fraction is left


def ruling_tone(outcome: str) -> str:
    """The tone a ruling is shown in (an action at 0 too is ``good``: it goes to the player)."""
    return RULING_TONES[outcome]


def running_tone(progress: float) -> str:
    """The tone of a running clock before its countdown, from the fraction of it left."""
    return "calm" if progress > WARN_BELOW else "warn"
