"""Replay: the public JSON Lines format in and out (see README, "Replay format").

Pure: :func:`parse_events` turns text lines into events, :func:`replay` runs them through
an :class:`~shotclock.core.engine.Engine` with no real time at all.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Iterator

from shotclock.core import events as ev
from shotclock.core.engine import Engine
from shotclock.core.settings import Settings
from shotclock.errors import ReplayFormatError

_FIELDS = {"call": {"facing_bet"}, "bet": {"facing_bet"}, "extend": {"seat"}}
SEATS = range(1, 11)  # a poker table seats at most ten
_REQUIRED = {"bet": {"facing_bet"}}
_BARE = frozenset({"t", "event"})
_BARE_TYPES = {name: cls for name, cls in ev.EVENT_TYPES.items() if name not in _REQUIRED}
_decode = json.JSONDecoder().decode  # json.loads adds per-call checks that show at 100,000 lines


def parse_event(obj: object, line: int, previous_t: float | None = None) -> ev.Event:
    """One replay input record (a decoded JSON object) as an event; ``line`` names it in errors."""
    # The common case, checked in as few steps as possible (replay reads 100,000s of these)...
    if obj.__class__ is dict and len(obj) == 2:
        t, cls = obj.get("t"), _BARE_TYPES.get(obj.get("event"))
        if (cls is not None and (t.__class__ is float or t.__class__ is int) and math.isfinite(t)
                and (previous_t is None or t >= previous_t)):
            return cls(t)
    # ...and everything else, with a message naming what is wrong.
    if not isinstance(obj, dict):
        raise ReplayFormatError(line, f"expected a JSON object, got {type(obj).__name__}")
    if "t" not in obj:
        raise ReplayFormatError(line, "missing 't' (seconds)")
    t = obj["t"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise ReplayFormatError(line, f"'t' must be a number of seconds, not {t!r}")
    if previous_t is not None and t < previous_t:
        raise ReplayFormatError(line, f"'t' goes backwards ({t} after {previous_t}); times must not decrease")
    name = obj.get("event")
    if name not in ev.EVENT_TYPES:
        hint = _closest(name, ev.EVENT_TYPES) if isinstance(name, str) else None
        known = ", ".join(ev.EVENT_TYPES)
        problem = "missing 'event'" if name is None else f"unknown event {name!r}"
        raise ReplayFormatError(line, f"{problem}{hint or ''} (known: {known})")
    if len(obj) == 2 and name not in _REQUIRED:  # the common cases: just t and event…
        return ev.EVENT_TYPES[name](t)
    if len(obj) == 3 and name in _FIELDS and obj.get("facing_bet").__class__ is bool:  # …or a bet state
        return ev.EVENT_TYPES[name](t, obj["facing_bet"])
    allowed = _FIELDS.get(name, set())
    for key in obj.keys() - _BARE:
        if key not in allowed:
            hint = _closest(key, allowed) or ""
            raise ReplayFormatError(line, f"'{name}' takes no field {key!r}{hint}")
    for key in _REQUIRED.get(name, ()):
        if key not in obj:
            raise ReplayFormatError(line, f"'{name}' needs {key!r}")
    if "facing_bet" in obj and not isinstance(obj["facing_bet"], bool):
        raise ReplayFormatError(line, f"'facing_bet' must be true or false, not {obj['facing_bet']!r}")
    if "seat" in obj and (obj["seat"].__class__ is not int or obj["seat"] not in SEATS):
        raise ReplayFormatError(line, f"'seat' must be a seat number from 1 to 10, not {obj['seat']!r}")
    fields = {k: v for k, v in obj.items() if k not in _BARE}
    return ev.EVENT_TYPES[name](t, **fields)


def parse_events(lines: Iterable[str]) -> list[ev.Event]:
    """All events of a JSON Lines text; blank lines are skipped. Raises ReplayFormatError."""
    numbered = [(n, text) for n, text in enumerate(lines, start=1) if text and not text.isspace()]
    try:
        # One decode of the whole file is three times faster than one a line...
        objects = _decode("[" + ",".join(text for _, text in numbered) + "]")
        if len(objects) != len(numbered):
            raise ValueError("a line held more than one value")
    except ValueError:
        objects = [_decode_line(n, text) for n, text in numbered]  # ...and this names the bad line.
    events: list[ev.Event] = []
    previous_t = None
    for (number, _), obj in zip(numbered, objects):
        event = parse_event(obj, number, previous_t)
        previous_t = event.t
        events.append(event)
    return events


def _decode_line(number: int, text: str):
    try:
        return _decode(text)
    except json.JSONDecodeError as exc:
        raise ReplayFormatError(number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None


def replay(events: Iterable[ev.Event], settings: Settings) -> Iterator[ev.Output]:
    """Run ``events`` through a fresh engine; yield every output in time order.

    Stops at an ``end`` event (after letting time pass to it), or else once no clock is
    running (a clock left paused stays paused).
    """
    engine = Engine(settings)
    handle = engine.handle
    for event in events:
        if event.__class__ is ev.End:
            yield from engine.advance(event.t)
            return
        yield from handle(event)
    while (wake := engine.next_wake()) is not None:
        yield from engine.advance(wake)


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    match = difflib.get_close_matches(word, list(candidates), n=1)
    return f" (did you mean {match[0]!r}?)" if match else None
