"""The one JSON codec of every edge: :func:`decode` reads what comes in, :data:`ENCODER` writes what goes out.

Every message that crosses an edge (a replay line, a floor command, an ack, a status, an archive question and its
answer, a log record) is read by :func:`decode`, with the same rules everywhere, checked once here:

* at most ``max_bytes`` bytes, UTF-8 (no lone surrogate, not even escaped as ``\\ud800``), no byte order mark;
* strict JSON: no ``NaN`` or ``Infinity``, no number too large for a float (``1e309``);
* no key given twice in one object (msgspec keeps the last one without a word, the replay format refuses it);
* nested at most ``max_depth`` deep.

Given a ``type`` (a frozen ``msgspec.Struct`` whose bounds come from the table of fields,
:mod:`shotclock.core.fields`), msgspec checks each field's type and bounds while it parses. A value the type refuses
goes to ``plain``, the caller's check on the plain JSON value, which names the problem in the field table's words
(the first problem in the message's order) or builds the value after all. Nothing here raises on bad input but
:class:`JsonProblem` (and what ``plain`` raises).

Example::

    >>> decode(b'{"a": 1}')
    {'a': 1}
    >>> for text in (b'[[[]]]', b'{"level": 2, "level": 77}', b'{"t": NaN}', b'"\\\\ud800"'):
    ...     try:
    ...         decode(text, max_depth=2)
    ...     except JsonProblem as exc:
    ...         print(exc.reason, "|", exc.detail)
    depth | nested 3 deep (at most 2)
    duplicate | the key 'level' is given twice
    number | not valid JSON (NaN is not a JSON number)
    text | a string holds a lone surrogate (not UTF-8)
    >>> ENCODER.encode({"seat": 4, "name": "Ana"})
    b'{"seat":4,"name":"Ana"}'
"""

from __future__ import annotations

import re
from typing import Any, Callable

import msgspec

ENCODER = msgspec.json.Encoder()
"""The one encoder of every edge's JSON (compact, UTF-8, keys in the order given; a Struct's fields in its order)."""
encode = ENCODER.encode
encode_lines = ENCODER.encode_lines
DEPTH = 32
"""Nesting allowed when the caller names no bound (no message of shotclock's nests more than 4 deep)."""
INT64 = (-(2 ** 63), 2 ** 63 - 1)


class JsonProblem(ValueError):
    """A JSON text an edge will not take: ``reason`` (one word, what a collector counts: size, text, depth,
    number, duplicate, malformed, field) and ``detail`` (one line, for the log and the person)."""

    def __init__(self, reason: str, detail: str, key: str | None = None):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.key = key
        """The key whose value broke the rule, where that is known (a lone surrogate in a name): the reader names the
        field (:func:`shotclock.core.fields.json_problem`)."""


def text(value) -> str:
    """:data:`ENCODER`'s JSON of ``value`` as text (a line to print)."""
    return encode(value).decode()


def pretty(value, indent: int = 2) -> str:
    """:data:`ENCODER`'s JSON of ``value`` indented for a person (``--json`` output), keys in the order given."""
    return msgspec.json.format(encode(value), indent=indent).decode()


def decode(data: bytes | str, type: Any = Any, *, max_bytes: int | None = None, max_depth: int = DEPTH,
           plain: Callable[[Any], Any] | None = None, nulls: bool = True):
    """The value of the JSON ``data`` (bytes, or a line already read as text), as ``type``.

    :param type: what to decode into (a Struct, a union of tagged Structs, ``dict``…); ``Any``: plain JSON values.
    :param max_bytes: the most bytes ``data`` may hold (None: no bound here, the caller bounded it).
    :param max_depth: how deeply arrays and objects may nest.
    :param plain: when ``type`` refuses a value, called with the plain JSON value: it names the problem (by
        raising) or returns the value after all. Without it the refusal is a :class:`JsonProblem` ``field``.
    :param nulls: False when no field of ``type`` takes ``null`` (an optional field is left out, never null): a
        text holding ``null`` goes to ``plain``, which names the field.
    :raises JsonProblem: naming the first rule broken.
    """
    if data.__class__ is str:
        if max_bytes is not None and len(data) * 4 > max_bytes:  # characters: bounded as the bytes they would be
            size = len(data.encode("utf-8", "surrogatepass"))
            if size > max_bytes:
                raise JsonProblem("size", f"{size} bytes (at most {max_bytes})")
        null = "null"
    else:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise JsonProblem("malformed", "not bytes")
        data = bytes(data)
        if max_bytes is not None and len(data) > max_bytes:
            raise JsonProblem("size", f"{len(data)} bytes (at most {max_bytes})")
        null = b"null"
    refused = None
    try:
        if type is not Any and (nulls or null not in data):
            try:
                value = (type.decode if type.__class__ is msgspec.json.Decoder else _decoder(type))(data)
            except msgspec.ValidationError as exc:
                refused = str(exc)
            else:
                _keys_and_depth(data, max_depth)  # only now: every string in ``data`` is whole, the scan linear
                return value
        value = _plain_decode(data)
    except msgspec.ValidationError as exc:  # a number beyond any float or whole number
        raise JsonProblem("number", _number_problem(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise _malformed(data, str(exc)) from None
    except RecursionError:
        raise JsonProblem("depth", f"nested deeper than {max_depth}") from None
    except UnicodeEncodeError as exc:  # text already read, holding a lone surrogate itself
        raise JsonProblem("text", "a string holds a lone surrogate (not UTF-8)",
                          _key_before(data[:exc.start])) from None
    _keys_and_depth(data, max_depth)
    if plain is not None:
        return plain(value)
    if refused is not None:
        raise JsonProblem("field", _said(refused))
    return value


_decoders: dict = {}
_heads: dict = {}
_plain_decode = msgspec.json.Decoder().decode


def _decoder(type):
    """The decoder of ``type``, made once (msgspec would work out a union's layout again on every call). A hot
    reader passes a ``msgspec.json.Decoder`` made for its type instead (a union's hash costs more than the
    decoding)."""
    try:
        return _decoders[type]
    except KeyError:
        return _decoders.setdefault(type, msgspec.json.Decoder(type).decode)
    except TypeError:  # a type that cannot be a key
        return msgspec.json.Decoder(type).decode


def head(data: bytes | str, keys: tuple[str, ...]) -> dict:
    """The top-level ``keys`` of a JSON object that :func:`decode` refused, each that is text and given once (to
    name a refused command's id in its ack); {} when ``data`` is no JSON object at all."""
    shape = _heads.get(keys) or _heads.setdefault(keys, msgspec.json.Decoder(
        msgspec.defstruct("Head", [(key, Any, None) for key in keys])))  # the other keys' values are skipped
    if data.__class__ is not str:
        data = bytes(data)
    try:
        found = msgspec.structs.asdict(shape.decode(data))
    except msgspec.DecodeError:  # a lone surrogate elsewhere does not hide the id: read around it
        marked = _LONE.sub("\\\\ufffd", data) if data.__class__ is str else \
            _LONE_BYTES.sub(b"\\\\ufffd", data)
        try:
            found = {k: v for k, v in msgspec.structs.asdict(shape.decode(marked)).items()
                     if not (isinstance(v, str) and "\ufffd" in v)}
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return {}
    except (msgspec.ValidationError, RecursionError, TypeError):
        return {}
    count: dict = {}
    depth = 0
    for key, colon, opened, closed in (_TOKENS_STR if data.__class__ is str else _TOKENS_BYTES).findall(data):
        depth += 1 if opened else -1 if closed else 0
        if colon and depth == 1:
            name = _key_text(key)
            count[name] = count.get(name, 0) + 1
    return {key: found[key] for key in keys if count.get(key) == 1 and isinstance(found.get(key), str)}


def integers_problem(value, low: int = INT64[0], high: int = INT64[1]) -> str | None:
    """Where a plain JSON value holds a whole number outside ``low``..``high`` (64 bits: SQLite's INTEGER), in one
    line; None when none does. For a value of no declared type (an archive record's fields)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v.__class__ is dict:
            stack.extend(v.values())
        elif v.__class__ is list:
            stack.extend(v)
        elif v.__class__ is int and not low <= v <= high:
            return "a whole number beyond 64 bits"
    return None


# -- inside ---------------------------------------------------------------------------------------------

_STRING = r'"(?:[^"\\]|\\.)*"'
# Each string in order, a key (a string before a colon) as group 1: strings are read whole, so a quote, a colon or a
# bracket inside one is never taken for a key or a nesting.
_TOKENS_STR = re.compile(rf'({_STRING})(\s*:)?|([\[{{])|([\]}}])', re.S)
_TOKENS_BYTES = re.compile(_TOKENS_STR.pattern.encode(), re.S)
# The same for a text with no backslash (so no escape: a string is a quote, anything but a quote, a quote): every key
# with its quotes as group 1 (never empty), every other string as "".
_KEYS_STR = re.compile(r'("[^"]*")\s*:|"[^"]*"')
_KEYS_BYTES = re.compile(_KEYS_STR.pattern.encode())


def _keys_and_depth(data, max_depth: int) -> None:
    """Refuse a key given twice in one object, or nesting deeper than ``max_depth``, in a JSON text msgspec has
    read (it keeps the last of two keys). The common case is a few C calls: no escape (so a quote always starts or
    ends a string), few brackets, and no two strings alike (so no two keys); then one regular expression and a set
    (no two keys alike); anything else is read token by token."""
    if data.__class__ is str:
        if "\\" not in data and data.count("{") + data.count("[") <= max_depth:
            strings = data.split('"')[1::2]
            if len(set(strings)) == len(strings):
                return
            found = _KEYS_STR.findall(data)
            if len(found) - found.count("") == len(set(found)) - ("" in found):
                return
    elif b"\\" not in data and data.count(b"{") + data.count(b"[") <= max_depth:
        strings = data.split(b'"')[1::2]
        if len(set(strings)) == len(strings):
            return
        found = _KEYS_BYTES.findall(data)
        if len(found) - found.count(b"") == len(set(found)) - (b"" in found):
            return
    objects: list[set | None] = []
    for key, colon, opened, closed in (_TOKENS_STR if data.__class__ is str else _TOKENS_BYTES).findall(data):
        if opened:
            objects.append(set() if opened in ("{", b"{") else None)
            if len(objects) > max_depth:
                raise JsonProblem("depth", f"nested {_depth(data)} deep (at most {max_depth})")
        elif closed:
            if objects:
                objects.pop()
        elif colon and objects and objects[-1] is not None:
            name = _key_text(key)
            if name in objects[-1]:
                raise JsonProblem("duplicate", f"the key {_shown_key(name)} is given twice")
            objects[-1].add(name)


def _depth(data) -> int:
    depth = deepest = 0
    for _, _, opened, closed in (_TOKENS_STR if data.__class__ is str else _TOKENS_BYTES).findall(data):
        depth += 1 if opened else -1 if closed else 0
        deepest = max(deepest, depth)
    return deepest


def _key_text(token) -> str:
    """A key as its text (escapes read: ``"\\u0061"`` is ``"a"``)."""
    if token.__class__ is not str:
        token = token.decode("utf-8", "surrogateescape")
    if "\\" not in token:
        return token[1:-1]
    try:
        return msgspec.json.decode(token, type=str)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return token[1:-1]


def _shown_key(name: str) -> str:
    text = repr(name)
    return text if len(text) <= 40 else text[:37] + "..."


_BYTE = re.compile(r"\(byte (\d+)\)")
_HIGH, _LOW = r'\\u[dD][89abAB][0-9a-fA-F]{2}', r'\\u[dD][c-fC-F][0-9a-fA-F]{2}'
_LONE = re.compile(rf'{_HIGH}(?!{_LOW})|(?<!{_HIGH}){_LOW}')
_LONE_BYTES = re.compile(_LONE.pattern.encode())


def _malformed(data, message: str) -> JsonProblem:
    """msgspec's DecodeError in the words of the edges: where, and what (NaN, a lone surrogate, not UTF-8…)."""
    where = _BYTE.search(message)
    at = int(where.group(1)) if where else None
    text = data if data.__class__ is str else data.decode("utf-8", "replace")
    if data[:3] in (b"\xef\xbb\xbf",) or text[:1] == "\ufeff":
        return JsonProblem("malformed", "not valid JSON (a byte order mark before it)")
    if "UTF-8" in message:
        return JsonProblem("text", "not UTF-8 text")
    lone = _LONE.search(text) if "surrogate" in message or "truncated" in message else None
    if lone:
        return JsonProblem("text", "a string holds a lone surrogate (not UTF-8)", _key_before(text[:lone.start()]))
    if at is not None:
        rest = (data[at:] if data.__class__ is str else data[at:].decode("utf-8", "replace")).lstrip("-")
        if rest.startswith(("NaN", "Infinity")):
            return JsonProblem("number", f"not valid JSON ({rest[:3] if rest[0] == 'N' else 'Infinity'} is not a "
                                         "JSON number)")
        what = message.split(": ", 1)[-1].split(" (byte")[0]
        return JsonProblem("malformed", f"not valid JSON ({what} at column {at + 1})")
    if "truncated" in message:
        return JsonProblem("malformed", "not valid JSON (it ends before the value does)" if text.strip()
                           else "not valid JSON (nothing there)")
    return JsonProblem("malformed", f"not valid JSON ({message})")


def _key_before(text: str) -> str | None:
    """The key of the value that the end of ``text`` (JSON up to a point inside a string) is in, when it is one."""
    if len(text) > 4096:  # a message with a name is short; a long one is not searched (each quote restarts a scan)
        return None
    keys = [key for key, colon, _, _ in _TOKENS_STR.findall(text) if colon]
    return _key_text(keys[-1]) if keys else None


def _number_problem(message: str) -> str:
    if "Integer" in message:
        return "a whole number with more digits than any field takes"
    return "a number beyond any float (more than 1.8e308)"


def _said(message: str) -> str:
    """msgspec's ValidationError as a field's problem (``Expected `int`, got `str` - at `$.seat```)."""
    what, _, where = message.partition(" - at `$")
    where = where.rstrip("`").lstrip(".")
    return f"{where!r}: {what[0].lower()}{what[1:]}" if where else what
