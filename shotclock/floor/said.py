"""A table's answer to a floor command (its ``cmd/ack``, docs/network.md) as a line for a person."""

from __future__ import annotations

from shotclock.core.codec import text
from shotclock.core.handforhand import time_off


def _value(value) -> str:
    if isinstance(value, float):
        return f"{round(value, 2):g}"
    if isinstance(value, (list, dict)):
        return text(value)
    return str(value)


def _minutes(value) -> str:
    return f"{round(value, 2):g} min"


def said(record: dict) -> str | None:
    """What a tournament command did at a table, in words, from one record of its ack's ``outputs`` (None: a record
    said as its fields).

    >>> said({"type": "hand_for_hand", "why": "released", "on": True, "waiting": False, "hands": 2, "minutes": 2})
    'released: hand 2 of hand-for-hand (4 min off the tournament clock)'
    >>> said({"type": "level_set", "level": 12, "hands": 10, "by": "floor-anna"})
    'level 12 from the next hand, 10 hands a level'
    """
    kind = record.get("type")
    if kind == "hand_for_hand":
        why, hands, minutes = record.get("why"), record.get("hands"), record.get("minutes")
        if not isinstance(hands, int) or not isinstance(minutes, (int, float)):
            return None
        off = _minutes(time_off(hands, minutes) / 60)
        if why == "started":
            return f"hand-for-hand started ({_minutes(minutes)} off the tournament clock a hand)"
        if why == "released":
            return f"released: hand {hands} of hand-for-hand ({off} off the tournament clock)"
        if why == "ended":
            return f"hand-for-hand ended after {hands} hand{'s' if hands != 1 else ''} ({off} off the tournament clock)"
        return None
    if kind == "level_set":
        level, hands = record.get("level"), record.get("hands")
        per = None if hands is None else "hands not counted" if hands == 0 else f"{hands} hands a level"
        if level is None:
            return f"{per} from the next hand" if per else None
        return f"level {level} from the next hand" + (f", {per}" if per else "")
    if kind == "rule_set" and record.get("why") == "chosen":
        chosen = record.get("next") or "none: the table's own rules"
        return f"rule set {chosen} from the next hand"
    return None


def ack_line(table: str, ack: dict) -> str:
    """The table's answer as one line for a person: what a tournament command did in words (:func:`said`), ``ok``
    with what any other command did (each output record's type and fields), or ``refused`` with the table's reason.

    >>> ack_line("7", {"name": "empty", "outcome": "done",
    ...                "outputs": [{"t": 8.1, "type": "seat", "seat": 4, "change": "emptied", "bank": 150.0}]})
    'table 7: ok: empty: seat (seat 4, change emptied, bank 150)'
    >>> ack_line("7", {"name": "seat", "outcome": "ignored", "reason": "seat 2 is taken by Ana Costa"})
    'table 7: refused: seat: seat 2 is taken by Ana Costa'
    """
    name = ack.get("name") or "the command"
    if ack.get("outcome") != "done":
        return f"table {table}: refused: {name}: {ack.get('reason') or ack.get('outcome') or 'no reason given'}"
    records = [r for r in ack.get("outputs") or [] if isinstance(r, dict)]
    words = [said(r) for r in records]
    if records and all(words):
        return f"table {table}: {'; '.join(words)}"
    did = []
    for record in records:
        fields = ", ".join(f"{k} {_value(v)}" for k, v in record.items() if k not in ("t", "type"))
        did.append(f"{record.get('type')} ({fields})" if fields else str(record.get("type")))
    return f"table {table}: ok: {name}" + (f": {'; '.join(did)}" if did else ": nothing changed")
