"""Why the table refused a floor command, as a code and its parameters, so every page says it in its own language.

The engine gives its reason as one line of English (the log's, the terminal's). Each reason the floor can
meet has a template in :mod:`shotclock.core.texts` (``reason.<code>``, Dutch and English); the English
template is the text the core writes, and :func:`explain` reads a reason back into its code and parameters
(the ``code`` and ``params`` of a command's ack, docs/network.md). The pages then show
``reason.<code>`` in their language, from the generated ``lib/device-texts.js``.

Example::

    >>> explain("seat 2 is taken by Ana Costa: empty it first")
    ('seat_taken_by', {'seat': '2', 'name': 'Ana Costa'})
    >>> explain("nothing seated: seat 3 is taken")
    ('nothing_seated', {'why': 'seat 3 is taken'})
    >>> explain("something else") is None
    True
"""

from __future__ import annotations

import re
import string

from shotclock.core import texts

PREFIX = "reason."


def reason(code: str, **params) -> str:
    """The English reason for ``code`` (what the core writes in the log and the ack's ``reason``)."""
    return texts.text("en", PREFIX + code, **params)


def _pattern(template: str) -> re.Pattern:
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>.+?)")
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


_PATTERNS = {key[len(PREFIX):]: _pattern(value) for key, value in texts.TEXTS["en"].items() if key.startswith(PREFIX)}


def explain(text: str) -> tuple[str, dict[str, str]] | None:
    """(code, parameters) of an English reason, or None when it has no template."""
    for code, pattern in _PATTERNS.items():
        match = pattern.match(text)
        if match:
            return code, match.groupdict()
    return None
