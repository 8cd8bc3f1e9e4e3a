"""A reader of JavaScript object literals as The Tournament Director (TD) saves a tournament (``.tdt``): data only,
nothing evaluated.

A ``.tdt`` file is one JavaScript expression, not JSON: ``{ V: "3.7.2", T: new Tournament({Title: "…", Levels:
[new GameRound({Minutes: 20, SmallBlind: 25, …}), …], …}) }``. :func:`read_literal` reads exactly this much of
JavaScript and refuses the rest with one line naming the line and the column:

* objects ``{key: value, …}`` (keys bare names, strings or numbers; a trailing comma allowed), arrays ``[…]``;
* strings in double or single quotes with JavaScript's escapes (``\\n``, ``\\"``, ``\\'``, ``\\\\``, ``\\uXXXX``,
  ``\\u{X…}``, ``\\xXX``, a line continuation), numbers (whole, decimal, negative, with an exponent), ``true``,
  ``false``, ``null`` and ``undefined`` (read as None);
* ``new Name(…)`` (older files write ``new Map({…})``) and ``Map.from(…)``, read as :class:`Made`: the name and
  the arguments, never a call; ``//`` and ``/* */`` comments are skipped.

Anything else -- a call of any other function, an operator (``+``), a template string, a name where a value stands
(``NaN``, ``window``), a second statement -- is refused: no code in a file is ever run or even half-read. The reader
is linear in the text (one regular expression finds each token; none can backtrack more than one token), nests at
most :data:`DEPTH_MAX` deep and reads at most :data:`CHARS_MAX` characters.

Example::

    >>> read_literal('{V: "3.7", T: new Tournament({Levels: [new GameBreak({Minutes: 5},)]})}')
    {'V': '3.7', 'T': Made(name='Tournament', args=({'Levels': [Made(name='GameBreak', args=({'Minutes': 5},), at=39)]},), at=14)}
    >>> read_literal("{Tokens: Map.from([]), Name: 'Texas Hold \\\\'Em'}")
    {'Tokens': Made(name='Map.from', args=([],), at=9), 'Name': "Texas Hold 'Em"}
    >>> read_literal('{a: 1 + 2}')
    Traceback (most recent call last):
    ...
    shotclock.core.jsliteral.LiteralError: line 1, column 7: an operator '+': a .tdt file holds data, nothing is ...
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

DEPTH_MAX = 64  # objects, arrays and arguments nested in one another (TD nests about 8 deep)
CHARS_MAX = 4_000_000  # characters: TD's file of a big event is a few hundred kB (the shell reads 4 MB at most)
NUMBER_MAX = 40  # characters of one number (a TD time in milliseconds has 13 digits)

# One token after any whitespace and comments. Every repetition is possessive and its alternatives begin with
# different characters, so a match never backtracks: the reader is linear in the text.
_SPACE = r"(?:\s++|//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+\*/)*+"
_STRING = r'"(?:[^"\\]++|\\.)*+"|\'(?:[^\'\\]++|\\.)*+\''
_NUMBER = r"-?(?:\d++\.?+\d*+|\.\d++)(?:[eE][+-]?+\d++)?+"
_NAME = r"[A-Za-z_$][A-Za-z0-9_$]*+"
_TOKEN = re.compile(rf"{_SPACE}(?:(?P<p>[{{}}\[\]():,.])|(?P<s>{_STRING})|(?P<n>{_NUMBER})|(?P<w>{_NAME})|(?P<end>\Z)"
                    rf"|(?P<bad>.))", re.S)
# Most of a file is ``Key: "text",`` or ``Key: 12,``: one match reads such a property whole (the reader's fast path).
_PROPERTY = re.compile(rf"{_SPACE}(?:(?P<k>{_NAME})|(?P<q>{_STRING})){_SPACE}:{_SPACE}"
                       rf"(?:(?P<s>{_STRING})|(?P<n>{_NUMBER})(?![A-Za-z0-9_$.])"
                       rf"|(?P<w>true|false|null|undefined)(?![A-Za-z0-9_$])){_SPACE}(?P<c>,)?+", re.S)
_CONSTRUCTOR = re.compile(rf"{_SPACE}({_NAME}){_SPACE}\(")  # what most often follows ``new`` (the fast path)
_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(\r\n|.))", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
           "\n": "", "\r\n": "", "\r": "", "\u2028": "", "\u2029": ""}  # a backslash before a line break: none
_CONSTANTS = {"true": True, "false": False, "null": None, "undefined": None}
_OPERATORS = frozenset("+-*/%=!<>&|^~?")


class LiteralError(ValueError):
    """A text that is not a literal :func:`read_literal` reads: ``line`` and ``column`` (from 1) and the problem."""

    def __init__(self, line: int, column: int, problem: str):
        self.line, self.column, self.problem = line, column, problem
        super().__init__(f"line {line}, column {column}: {problem}")


class Made(NamedTuple):
    """``new Name(args…)`` or ``Map.from(args…)`` as written: the ``name`` (``"Tournament"``, ``"Map.from"``), the
    ``args`` read as literals, and ``at``, the offset of ``new`` (or ``Map``) in the text (:func:`position`)."""

    name: str
    args: tuple
    at: int

    @property
    def fields(self) -> dict:
        """The object TD gives its constructors (``new GameRound({…})``); {} when the first argument is not one."""
        return self.args[0] if self.args and isinstance(self.args[0], dict) else {}


def position(text: str, at: int) -> tuple[int, int]:
    """The line and column (from 1) of offset ``at`` in ``text``.

    >>> position("ab\\ncd", 4)
    (2, 2)
    """
    line_start = text.rfind("\n", 0, at) + 1
    return text.count("\n", 0, at) + 1, at - line_start + 1


def read_literal(text: str, chars_max: int = CHARS_MAX) -> Any:
    """The value of the JavaScript literal ``text``: dicts, lists, str, int, float, bool, None and :class:`Made`.

    :raises LiteralError: naming the line and column of the first thing that is not such a literal (or of the whole
        text when it holds more than ``chars_max`` characters).
    """
    if len(text) > chars_max:
        raise LiteralError(1, 1, f"{len(text):,} characters, at most {chars_max:,}")
    return _Reader(text).read()


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, at: int, problem: str):
        raise LiteralError(*position(self.text, at), problem)

    def token(self) -> tuple[str, str, int]:
        m = _TOKEN.match(self.text, self.pos)
        self.pos = m.end()
        kind = m.lastgroup
        return kind, m.group(kind), m.start(kind)

    def read(self) -> Any:
        value = self.value(self.token(), 0)
        kind, text, at = self.token()
        if kind != "end":
            self.unexpected(kind, text, at, "after the end of the literal (a file holds one value)")
        return value

    def value(self, token: tuple[str, str, int], depth: int) -> Any:
        kind, text, at = token
        if kind == "s":
            return self.string(text, at)
        if kind == "n":
            return self.number(text, at)
        if kind == "p" and text in "{[":
            if depth >= DEPTH_MAX:
                self.fail(at, f"nested more than {DEPTH_MAX} deep")
            return self.object(depth + 1) if text == "{" else self.items("]", depth + 1)
        if kind == "w":
            if text in _CONSTANTS:
                return _CONSTANTS[text]
            if text == "new":
                return self.made(at, depth)
            if text == "Map":
                return self.map_from(at, depth)
            self.fail(at, f"the name {text!r} where a value must be: only true, false, null, undefined, "
                          "new Name(…) and Map.from(…) are read (nothing is evaluated)")
        self.unexpected(kind, text, at, "where a value must be")

    def object(self, depth: int) -> dict:
        out: dict = {}
        text, simple = self.text, _PROPERTY.match
        while True:
            m = simple(text, self.pos)
            if m is not None:  # ``Key: "text",`` or ``Key: 12`` whole
                self.pos = m.end()
                key = m.group("k")
                if key is None:
                    key = self.string(m.group("q"), m.start("q"))
                value = m.group("s")
                if value is not None:
                    value = self.string(value, m.start("s"))
                else:
                    value = m.group("n")
                    value = _CONSTANTS[m.group("w")] if value is None else self.number(value, m.start("n"))
                out[key] = value
                if m.start("c") >= 0:
                    continue
            else:
                kind, word, at = self.token()
                if kind == "p" and word == "}":
                    return out
                if kind == "w" or kind == "n":
                    key = word
                elif kind == "s":
                    key = self.string(word, at)
                else:
                    self.unexpected(kind, word, at, "where a key or '}' must be")
                kind, word, at = self.token()
                if not (kind == "p" and word == ":"):
                    self.unexpected(kind, word, at, f"where ':' must follow the key {key!r}")
                out[key] = self.value(self.token(), depth)
            kind, word, at = self.token()
            if kind == "p" and word == "}":
                return out
            if not (kind == "p" and word == ","):
                self.unexpected(kind, word, at, "where ',' or '}' must be")

    def items(self, close: str, depth: int) -> list:
        out: list = []
        while True:
            token = self.token()
            kind, text, at = token
            if kind == "p" and text == close:
                return out
            out.append(self.value(token, depth))
            kind, text, at = self.token()
            if kind == "p" and text == close:
                return out
            if not (kind == "p" and text == ","):
                self.unexpected(kind, text, at, f"where ',' or '{close}' must be")

    def made(self, at: int, depth: int) -> Made:
        m = _CONSTRUCTOR.match(self.text, self.pos)
        if m is not None:  # ``Name(`` whole
            self.pos = m.end()
            return Made(m.group(1), tuple(self.arguments(m.end() - 1, depth)), at)
        kind, name, where = self.token()
        if kind != "w":
            self.unexpected(kind, name, where, "where a name must follow 'new'")
        while True:
            kind, text, where = self.token()
            if kind == "p" and text == ".":
                kind, part, where = self.token()
                if kind != "w":
                    self.unexpected(kind, part, where, "where a name must follow '.'")
                name += "." + part
                continue
            if kind == "p" and text == "(":
                return Made(name, tuple(self.arguments(where, depth)), at)
            self.unexpected(kind, text, where, f"where '(' must follow 'new {name}'")

    def map_from(self, at: int, depth: int) -> Made:
        for want in (".", "from", "("):
            kind, text, where = self.token()
            if text != want or kind == "s":
                self.unexpected(kind, text, where, "where 'Map.from(' must be (Map.from(…) is the only call read)")
        return Made("Map.from", tuple(self.arguments(where, depth)), at)

    def arguments(self, at: int, depth: int) -> list:
        if depth >= DEPTH_MAX:
            self.fail(at, f"nested more than {DEPTH_MAX} deep")
        return self.items(")", depth + 1)

    def string(self, text: str, at: int) -> str:
        body = text[1:-1]
        if "\\" not in body:
            return body

        def unescape(m: re.Match) -> str:
            braced, four, two, other = m.groups()
            if braced or four or two:
                code = int(braced or four or two, 16)
                if code > 0x10FFFF:
                    self.fail(at + 1 + m.start(), "a \\u{…} escape beyond Unicode")
                return chr(code)
            if other in "ux":
                self.fail(at + 1 + m.start(), f"a \\{other} escape without its hexadecimal digits")
            return _SIMPLE.get(other, other)

        value = _ESCAPE.sub(unescape, body)
        if any("\ud800" <= c <= "\udfff" for c in value):  # \uD83D\uDE00 is one character; a lone half stays
            value = value.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
        return value

    def number(self, text: str, at: int) -> int | float:
        if len(text) > NUMBER_MAX:
            self.fail(at, f"a number of {len(text)} characters (at most {NUMBER_MAX})")
        if text.lstrip("-").isdigit():
            return int(text)
        value = float(text)
        if not math.isfinite(value):
            self.fail(at, f"the number {text} is too large")
        return value

    def unexpected(self, kind: str, text: str, at: int, where: str):
        """Fail at a token that cannot stand here: ``where`` says what should (a character no literal holds says what
        it is instead)."""
        if kind == "bad":
            if text == "`":
                self.fail(at, "a template string (`…`): a .tdt file holds data, nothing is computed")
            if text in "\"'":
                self.fail(at, "a string that never ends")
            if text in _OPERATORS:
                self.fail(at, f"an operator {text!r}: a .tdt file holds data, nothing is computed")
            if text == ";":
                self.fail(at, "';': a .tdt file holds one value, not statements")
            self.fail(at, f"the character {text!r} {where}")
        shown = {"end": "the end of the file", "s": "a string", "n": f"the number {text}"}.get(kind, repr(text))
        self.fail(at, f"{shown} {where}")
