"""The broadcast overlay's history from the archive: a delayed overlay that is reloaded shows at once what it showed.

An overlay on a delay (``/overlay/?delay=1800``) draws each frame from what the tables sent ``delay`` ago
(``lib/delay.js``). That history lived in the page alone: a browser source refreshed, or OBS restarted, showed
nothing for the whole delay. The collector keeps what the overlay draws from beside the records (the ``heard``
table: every table's states and statuses, the feature table, the room brokers' bridges) for the longest delay
(:data:`~shotclock.core.fields.DELAY_MAX`), and answers::

    {"what": "history", "delay": 1800, "table": "7"}

with every message of table 7 (without ``table``: of the tables the feature table named meanwhile) the collector
received in the last 1800 s, its records among them, and the newest of each topic from before (what was in force
when the window began): the very messages, each with how long ago the collector received it, so the page dates
them where it would have and draws the same (docs/network.md, "archive: question and answer").

The answer comes in parts, each inside the broker's 64 KiB packets: the first part's ``until_ms`` fixes the window
(the collector's clock, Unix ms) and ``next_ms`` and ``skip`` say where the next part begins (a millisecond, and how
many of its messages were given: a batch of records stored together shares one); the page asks again with them
(``until_ms``, ``after_ms``, ``skip``) until a part has no ``next_ms``. ``covered`` says how many of the seconds asked the
archive holds whole: since this collector began to keep the history (a page that gets less builds the rest itself).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Callable

from shotclock.adapters.archive import Store
from shotclock.adapters.log import utc_iso
from shotclock.core.codec import decode, encode, text
from shotclock.core.fields import DELAY_MAX, FIELDS

MAX_PART_BYTES = 56_000  # a part, with its envelope, inside the broker's 64 KiB packets
MAX_ROWS = 1_500  # rows read from each source for one part: more than fit in one (a message is 40 bytes or more)
MAX_TABLES = 8  # the tables one history follows: the feature table changes a few times an hour at most
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MS = timedelta(milliseconds=1)


def wall_ms() -> int:
    """The collector's clock, Unix ms: what the history's messages were stamped with when received."""
    return round(time.time() * 1000)


def answer_history(db: Store, question: dict, since_ms: int | None, clock: Callable[[], int] = wall_ms) -> dict:
    """One part of the overlay's history (see the module's docstring).

    :param db: the archive, read-only, its venue's records only.
    :param question: the question's fields (``delay``, and ``table``, ``until_ms``, ``after_ms``, ``skip`` when
        given).
    :param since_ms: since when the collector keeps the history whole (Unix ms), or None: it does not.
    :param clock: the collector's clock (Unix ms): the window ends when the first part is asked; each message's
        age is counted when its part is done, so the page dates it by when the part left, not by when it was asked.
    """
    delay = question.get("delay")
    if delay is None:
        return {"ok": False, "reason": f"a history question names its delay ({FIELDS['delay'].what} from 0 to "
                                       f"{DELAY_MAX})"}
    table = question.get("table")
    until = question.get("until_ms", clock())
    start = until - round(delay * 1000)
    first = question.get("after_ms") is None
    # Where this part begins: a millisecond, and how many of its messages the parts before gave.
    cursor = (start + 1, 0) if first else (question["after_ms"], question.get("skip", 0))
    with db.reading():  # one snapshot: the tables followed and their messages agree
        tables = [table] if table else featured_tables(db, start, until)
        topics = ["feature"] + [f"table/{t}/{leaf}" for t in tables for leaf in ("state", "status")]
        found = in_force(db, topics, start) if first else []
        window, complete = messages(db, topics, tables, cursor, until)
    part, next_cursor = fit(found, window, complete, cursor)
    covered = 0.0 if since_ms is None else max(0.0, min(float(delay), (until - since_ms) / 1000))
    now_ms = clock()
    answer = {"ok": True, "delay": delay, **({"table": table} if table else {}), "tables": tables,
              "until_ms": until, "covered": round(covered, 3),
              "messages": [{"topic": topic, "age_ms": max(0, now_ms - received), "payload": payload}
                           for received, topic, payload in part]}
    if next_cursor is not None:
        answer["next_ms"], answer["skip"] = next_cursor
    return answer


def featured_tables(db: Store, start: int, until: int) -> list[str]:
    """The tables the venue's feature table named from ``start`` to ``until`` (the one in force then included):
    the :data:`MAX_TABLES` named last, the one named last at the end."""
    named: list[str] = []
    for _, _, payload in in_force(db, ["feature"], start, bridges=False) + \
            heard(db, ["feature"], start, until, bridges=False)[0]:
        feature = decode(payload)
        table = feature.get("table") if isinstance(feature, dict) else None
        if isinstance(table, str):
            if table in named:
                named.remove(table)
            named.append(table)
    return named[-MAX_TABLES:]


def in_force(db: Store, topics: list[str], start: int, bridges: bool = True) -> list[tuple[int, str, str]]:
    """The newest message of each of ``topics`` (and of every room broker's bridge) received at or before
    ``start``: what was in force when the window began, as (received ms, topic, payload), oldest first."""
    where, params = _topics(db, topics, bridges)
    rows = db.execute(
        f"SELECT h.received_ms, h.topic, h.payload FROM heard h WHERE {where} AND h.received_ms = "
        "(SELECT MAX(x.received_ms) FROM heard x WHERE x.venue = h.venue AND x.topic = h.topic AND x.received_ms <= ?) "
        f"ORDER BY h.received_ms, h.{_arrival(db)}", (*params, start)).fetchall()
    return [tuple(row) for row in rows]


def heard(db: Store, topics: list[str], since: int, until: int, bridges: bool = True, more: int = 0
          ) -> tuple[list[tuple[int, str, str]], bool]:
    """What was heard on ``topics`` (and the bridges) from ``since`` up to ``until`` (ms, both included), oldest
    first, at most :data:`MAX_ROWS` and ``more``; and whether that is all of it."""
    where, params = _topics(db, topics, bridges)
    rows = db.execute(f"SELECT h.received_ms, h.topic, h.payload FROM heard h WHERE {where} AND h.received_ms >= ? "
                      f"AND h.received_ms <= ? ORDER BY h.received_ms, h.{_arrival(db)} LIMIT ?",
                      (*params, since, until, MAX_ROWS + more + 1)).fetchall()
    return [tuple(row) for row in rows[:MAX_ROWS + more]], len(rows) <= MAX_ROWS + more


def records(db: Store, tables: list[str], since: int, until: int, more: int = 0
            ) -> tuple[list[tuple[int, str, str]], bool]:
    """The records of ``tables`` the archive received from ``since`` up to ``until`` (ms, both included), as
    ``event`` messages (without their ``log``), oldest first, at most :data:`MAX_ROWS` and ``more``; and whether
    that is all of them."""
    if not tables:
        return [], True
    marks = ",".join("?" * len(tables))
    rows = db.execute("SELECT table_id, boot, seq, t, type, data, received_utc FROM events "
                      f"WHERE table_id IN ({marks}) AND received_utc >= ? AND received_utc < ? "
                      "ORDER BY received_utc, table_id, boot, seq LIMIT ?",
                      (*tables, _utc(since), _utc(until + 1), MAX_ROWS + more + 1)).fetchall()
    out = []
    for table, boot, seq, t, kind, data, received in rows[:MAX_ROWS + more]:
        message = {"table": table, "boot": boot, "seq": seq, "record": {"t": t, "type": kind, **decode(data)}}
        out.append((_ms(received), f"table/{table}/event", text(message)))
    return out, len(rows) <= MAX_ROWS + more


def messages(db: Store, topics: list[str], tables: list[str], cursor: tuple[int, int], until: int
             ) -> tuple[list[tuple[int, str, str]], bool]:
    """The messages from ``cursor`` (a millisecond, and how many of its messages to pass over) up to ``until``, in
    one order whatever part asks: by the millisecond received, what was heard before the records, each source in
    its own order; as far as both sources were read: (received ms, topic, payload), and whether that is all."""
    since, skip = cursor
    sources = [heard(db, topics, since, until, more=skip), records(db, tables, since, until, more=skip)]
    both = sorted(((m, rank, n) for rank, (rows, _) in enumerate(sources) for n, m in enumerate(rows)),
                  key=lambda x: (x[0][0], x[1], x[2]))
    # A source read in part: what follows its last row read may be preceded by its rows not read.
    ends = [both.index((rows[-1], rank, len(rows) - 1)) for rank, (rows, whole) in enumerate(sources) if not whole]
    window = [m for m, _, _ in both[:min(ends) + 1 if ends else len(both)]]
    given = sum(1 for m in window[:skip] if m[0] == since)
    return window[given:], not ends


def fit(found: list, window: list, complete: bool, cursor: tuple[int, int]
        ) -> tuple[list, tuple[int, int] | None]:
    """What was in force (``found``, the first part's) and as many of ``window`` as fit in one part; and where the
    next part begins (None: this is the last). A message too long for any part (the broker's packets hold 64 KiB)
    is passed over."""
    part, size, taken = list(found), sum(map(_size, found)), 0
    for message in window:
        length = _size(message)
        if length <= MAX_PART_BYTES:
            if size + length > MAX_PART_BYTES:
                break
            part.append(message)
            size += length
        taken += 1
    if taken == len(window) and complete:
        return part, None
    if not taken:
        return part, cursor
    last = window[taken - 1][0]
    given = sum(1 for m in window[:taken] if m[0] == last) + (cursor[1] if last == cursor[0] else 0)
    return part, (last, given)


def _size(message: tuple[int, str, str]) -> int:
    return len(encode({"topic": message[1], "age_ms": 10 ** 10, "payload": message[2]})) + 1


def _topics(db: Store, topics: list[str], bridges: bool) -> tuple[str, tuple]:
    """The SQL that picks ``topics`` (and every bridge's) of this venue from ``heard h``, and its parameters."""
    venue = "h.venue = ?" if db.venue is not None else "h.venue = h.venue"
    marks = ",".join("?" * len(topics))
    bridge = " OR h.topic LIKE ?" if bridges else ""  # a parameter: psycopg reads a % in the SQL as its own
    return (f"{venue} AND (h.topic IN ({marks}){bridge})",
            ((db.venue,) if db.venue is not None else ()) + tuple(topics) + (("bridge/%",) if bridges else ()))


def _arrival(db: Store) -> str:
    return "arrival" if db.kind == "postgresql" else "rowid"


def _utc(ms: int) -> str:
    """A time in Unix ms as the archive's ``received_utc`` writes it."""
    return utc_iso(EPOCH + ms * MS)


def _ms(utc: str) -> int:
    """The archive's ``received_utc`` in Unix ms (whole ms, rounded down)."""
    return (datetime.fromisoformat(utc.replace("Z", "+00:00")) - EPOCH) // MS
