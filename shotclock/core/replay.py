"""Replay: the public JSON Lines format in and out (see the README, "Replay", and docs/replay.md).

Pure: :class:`ReplayInput` turns the bytes of a replay file into events, one line at a time
(memory stays bounded however long the file), and :func:`replay` runs them through an
:class:`~shotclock.core.engine.Engine` with no real time at all. The caller does the reading.

Every line is decoded on its own by the one codec (:func:`shotclock.core.codec.decode`: strict JSON, no key given
twice) straight into its event, whose fields' types and bounds come from the table of fields
(:mod:`shotclock.core.fields`); a line the event refuses is named by :func:`parse_event`, from the same table, and
each error names its line.
An optional first line ``{"config": {...}}`` (a *header*) carries the rule settings the events were recorded
with, so an exported clock replays with no other file.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Union

import msgspec

from shotclock.core import events as ev
from shotclock.core.codec import JsonProblem, decode
from shotclock.core.engine import MODE_EVENTS
from shotclock.core.levels import TableLevels
from shotclock.core.seated import make_engine
from shotclock.core.fields import FIELDS, INPUT_FIELDS, T_LIMIT, json_problem, missing, unexpected
from shotclock.core.settings import Settings
from shotclock.errors import ReplayFormatError, shown

MAX_LINE = 64 * 1024
"""The longest line read, in bytes (characters once decoded); a replay line is under 100 bytes."""

# Each event's fields, (required, optional), and each field's bounds: the one table of fields (core/fields.py).
# Only the events a replay line may name: the tournament's floor commands never touch a clock and have none.
_EVENTS = {name: fields for name, fields in INPUT_FIELDS.items() if name in ev.EVENT_TYPES}
_FIELDS = {name: set(required + optional) for name, (required, optional) in _EVENTS.items()}
_REQUIRED = {name: required for name, (required, _) in _EVENTS.items() if required}
_BARE = frozenset({"t", "event"})
_HEADER_FIELDS = {"config", "source", "level"}  # level: the tournament level the exported clock was played at
_LINE = msgspec.json.Decoder(Union[tuple(ev.EVENT_TYPES.values())])  # a replay line: an event, by its "event" tag
_TEXT = {cls: tuple(k for k in ("name", "by", "players") if k in cls.__struct_fields__)
         for cls in ev.EVENT_TYPES.values()}  # the events that carry text, and where: the text rule is checked here
_TEXT = {cls: keys for cls, keys in _TEXT.items() if keys}


def _js(value) -> str:
    """A value as the JSON it came from (``true``, ``5``, ``null``), cut short when huge; strings as before."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        value = ev.number(value)
        if isinstance(value, float) and value.is_integer():  # 1e10: written out, as JSON would
            value = int(value)
    return shown(value)


def parse_event(obj: object, line: int, previous_t: float | None = None) -> ev.Event:
    """One replay input record (a decoded JSON object) as an event; ``line`` names it in errors."""
    if not isinstance(obj, dict):
        raise ReplayFormatError(line, f"expected a JSON object, got {_json_type(obj)}")
    if "t" not in obj:
        raise ReplayFormatError(line, "missing 't' (seconds)")
    t = obj["t"]
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise ReplayFormatError(line, f"'t' must be a number of seconds, not {_js(t)}")
    if not 0 <= t < T_LIMIT:  # an int of any size compares without overflow
        raise ReplayFormatError(line, f"'t' must be from 0 up to 10^9 seconds, not {_js(t)}")
    if previous_t is not None and t < previous_t:
        raise ReplayFormatError(line, f"'t' goes backwards ({_js(t)} after {_js(previous_t)}); "
                                      "times must not decrease")
    t = float(t) + 0.0  # seconds, as the engine counts them (a whole number given as 3 is 3.0; -0 is 0)
    name = obj.get("event")
    if not isinstance(name, str) or name not in ev.EVENT_TYPES:
        known = ", ".join(ev.EVENT_TYPES)
        if name is None:
            problem = "missing 'event'"
        elif isinstance(name, str):
            problem = f"unknown event {shown(name)}{_closest(name, ev.EVENT_TYPES) or ''}"
        else:
            problem = f"'event' must be a name, not {_json_type(name)}"
        raise ReplayFormatError(line, f"{problem} (known: {known})")
    if len(obj) == 2 and name not in _REQUIRED:  # "t" and "event" alone: no field to check
        return ev.EVENT_TYPES[name](t)
    allowed = _FIELDS.get(name, set())
    for key in obj:  # in the line's order: a line with two wrong fields names the first
        if key not in allowed and key not in _BARE:
            raise ReplayFormatError(line, unexpected("event", name, key, _closest(key, allowed) or ""))
    for key in _REQUIRED.get(name, ()):
        if key not in obj:
            raise ReplayFormatError(line, missing("event", name, key))
    for key in obj:
        if key not in _BARE and (problem := FIELDS[key].problem(obj[key])) is not None:
            raise ReplayFormatError(line, problem)
    fields = {k: v for k, v in obj.items() if k not in _BARE}
    if "players" in obj:
        fields["players"] = tuple((seat, name) for seat, name in obj["players"])
    return ev.EVENT_TYPES[name](t, **fields)


def _json_type(value) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null",
             int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


class ReplayInput:
    """The events of a replay file, read from its bytes one line at a time.

    :param chunks: the file's bytes in pieces of any size (``iter(lambda: f.read(1 << 20), b"")``).

    The first line is read at once: :attr:`header` is its ``config`` (a dict of dotted keys, as in
    the TOML file) when it is a header, else None. Iterate :meth:`events` for the rest. Errors are
    :class:`~shotclock.errors.ReplayFormatError` naming the line. A UTF-8 byte order mark at the
    start is skipped.

    >>> list(ReplayInput([b'{"t":0,"event":"call"}\\n']).events())
    [Call(t=0.0, facing_bet=None)]
    """

    def __init__(self, chunks: Iterable[bytes]):
        self._batches = _line_batches(chunks)
        self._pending: list[tuple[int, list[str]]] = []
        self.header: dict | None = None
        self.header_line = 0
        self.foreign: tuple[int, str] | None = None
        """(line, event) of the first event that belongs to the other mode (see :meth:`events`)."""
        self.empty = True
        """Nothing but blank lines (or nothing at all): no header and no event."""
        self._read_header()

    def _read_header(self) -> None:
        for start, lines in self._batches:
            for i, text in enumerate(lines):
                if text and not text.isspace():
                    self.empty = False
                    obj = decode_line(start + i, text)
                    if isinstance(obj, dict) and "t" not in obj and "config" in obj:
                        self.header = _header_config(obj, start + i)
                        self.header_line = start + i
                        lines = lines[i + 1:]
                        start += i + 1
                    self._pending.append((start, lines))
                    return
            # a batch of blank lines only: nothing to keep

    def events(self, mode: str | None = None) -> Iterator[ev.Event]:
        """The events in order; ``mode``: note in :attr:`foreign` the first event of the other mode."""
        foreign = MODE_EVENTS["shot" if mode == "clock" else "clock"] if mode else ()
        previous = 0.0
        for start, lines in self._all_batches():
            for number, text in enumerate(lines, start):
                if not text or text.isspace():
                    continue
                event = read_event(number, text, previous)
                if event.NAME in foreign and self.foreign is None:
                    self.foreign = (number, event.NAME)
                previous = event.t
                yield event

    def _all_batches(self):
        yield from self._pending
        self._pending = []
        yield from self._batches


def _header_config(obj: dict, line: int) -> dict:
    unknown = obj.keys() - _HEADER_FIELDS
    if unknown:
        key = sorted(unknown)[0]
        raise ReplayFormatError(line, f"the header takes no field {shown(key)} (known: config, source, level)")
    if "level" in obj and (problem := FIELDS["level"].problem(obj["level"])):
        raise ReplayFormatError(line, f"the header's {problem}")
    config = obj["config"]
    if not isinstance(config, dict) or any(isinstance(v, (dict, list)) for v in config.values()):
        raise ReplayFormatError(line, "the header's 'config' must be an object of dotted keys and plain values "
                                      '(for example {"mode": "shot", "shot.preflop": 20})')
    return config


def _line_batches(chunks: Iterable[bytes]) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, the lines) for each run of whole lines in ``chunks``.

    A line that is not UTF-8 or is too long raises only after every line before it was handed
    on, so the error named is always the first one in the file.
    """
    rest = b""
    number = 1
    for chunk in chunks:
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            rest = data
            if len(rest) > MAX_LINE:
                raise _too_long(number)
            continue
        whole, rest = data[:cut], data[cut + 1:]
        yield from _checked_lines(whole, number)
        number += whole.count(b"\n") + 1
        if len(rest) > MAX_LINE:
            raise _too_long(number)
    if rest:
        yield from _checked_lines(rest, number)


def _too_long(number: int) -> ReplayFormatError:
    return ReplayFormatError(number, f"longer than {MAX_LINE // 1024} KiB (is this a replay file?)")


def _checked_lines(data: bytes, number: int) -> Iterator[tuple[int, list[str]]]:
    """The lines of ``data`` (whole lines, the first numbered ``number``), up to the first that is not
    UTF-8 or is too long, which raises."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        if start:
            yield from _checked_lines(data[:start - 1], number)
        line = number + data.count(b"\n", 0, exc.start)
        raise ReplayFormatError(line, f"not UTF-8 text (byte {exc.start - start + 1} of the line)") from None
    lines = text.split("\n")
    if number == 1 and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]  # a byte order mark, as some editors write
    if max(map(len, lines)) > MAX_LINE:
        first = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE)
        if first:
            yield number, lines[:first]
        raise _too_long(number + first)
    yield number, lines


def decode_line(number: int, text: str):
    """One line of JSON Lines as plain JSON values, by the one codec (strict JSON, no key given twice); errors name
    the line ``number``."""
    try:
        return decode(text)
    except JsonProblem as exc:
        raise ReplayFormatError(number, _line_problem(exc)) from None


def read_event(number: int, text: str, previous_t: float | None = None) -> ev.Event:
    """One replay line (``text``, line ``number``) as its event: decoded straight into the event's struct, whose
    fields' bounds come from the table of fields; a line that struct refuses is named by :func:`parse_event`."""
    try:
        event = decode(text, _LINE, nulls=False, plain=lambda obj: parse_event(obj, number, previous_t))
    except JsonProblem as exc:
        raise ReplayFormatError(number, _line_problem(exc)) from None
    cls = event.__class__
    if cls in _TEXT and any(FIELDS[k].problem(_plain(getattr(event, k))) for k in _TEXT[cls]
                            if getattr(event, k) is not None):
        parse_event(decode(text), number, previous_t)  # names the text the rule refuses
    t = event.t
    if previous_t is not None and t < previous_t:
        raise ReplayFormatError(number, f"'t' goes backwards ({_js(t)} after {_js(previous_t)}); "
                                        "times must not decrease")
    if not t and str(t)[0] == "-":  # -0 is 0
        event = msgspec.structs.replace(event, t=0.0)
    return event


def _plain(value):
    """A decoded field as the table of fields checks it (players as lists, as the JSON had them)."""
    return [list(pair) for pair in value] if value.__class__ is tuple else value


def _line_problem(exc: JsonProblem) -> str:
    if exc.reason == "number" and "digits" in exc.detail:
        return "a number with more digits than any time or seat needs"
    return json_problem(exc)


def parse_events(lines: Iterable[str]) -> list[ev.Event]:
    """All events of JSON Lines ``lines`` (strings, a header allowed first); raises ReplayFormatError."""
    return list(ReplayInput(line.encode("utf-8", "surrogatepass") + b"\n" for line in lines).events())


def replay(events: Iterable[ev.Event], settings: Settings) -> Iterator[ev.Output]:
    """Run ``events`` through a fresh engine; yield every output in time order.

    Stops at an ``end`` event (after letting time pass to it), or else once no clock is
    running (a clock left paused stays paused).
    """
    for outputs in replay_steps(events, settings):
        yield from outputs


def replay_steps(events: Iterable[ev.Event], settings: Settings) -> Iterator[list[ev.Output]]:
    """:func:`replay`, a list of outputs at a time (what each event or wake caused; some lists are empty):
    for a caller that handles outputs in bulk (``shotclock replay`` writes them)."""
    engine = make_engine(settings)
    handle = engine.handle
    levels = TableLevels(settings)  # a level, the hands per level: from the next hand, as on the table
    # The events not handed to the engine itself. A hand goes to the levels once a level or hands line was read
    # (before that it changes no level): until then a file without levels pays one lookup an event, as before.
    special = {ev.End, *ev.RHYTHM_EVENTS}
    for event in events:
        cls = event.__class__
        if cls in special:
            if cls is ev.End:
                yield engine.advance(event.t)
                return
            special.add(ev.Hand)
            yield levels.take(event, engine)
        else:
            yield handle(event)
    while (wake := engine.next_wake()) is not None:
        yield engine.advance(wake)


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    match = difflib.get_close_matches(word, list(candidates), n=1)
    return f" (did you mean {match[0]!r}?)" if match else None
