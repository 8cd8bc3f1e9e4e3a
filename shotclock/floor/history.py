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
(the collector's clock, Unix ms) and ``next_ms`` says where the next part begins; the page asks again with both
(``until_ms``, ``after_ms``) until a part has no ``next_ms``. ``covered`` says how many of the seconds asked the
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
    :param question: the question's fields (``delay``, and ``table``, ``until_ms``, ``after_ms`` when given).
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
    after = question.get("after_ms")
    with db.reading():  # one snapshot: the tables followed and their messages agree
        tables = [table] if table else featured_tables(db, start, until)
        topics = ["feature"] + [f"table/{t}/{leaf}" for t in tables for leaf in ("state", "status")]
        first = after is None
        found = in_force(db, topics, start) if first else []
        window, complete = messages(db, topics, tables, start if first else after, until)
    part, next_ms = fit(found, window, complete, start if first else after)
    covered = 0.0 if since_ms is None else max(0.0, min(float(delay), (until - since_ms) / 1000))
    now_ms = clock()
    answer = {"ok": True, "delay": delay, **({"table": table} if table else {}), "tables": tables,
              "until_ms": until, "covered": round(covered, 3),
              "messages": [{"topic": topic, "age_ms": max(0, now_ms - received), "payload": payload}
                           for received, topic, payload in part]}
    if next_ms is not None:
        answer["next_ms"] = next_ms
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


def heard(db: Store, topics: list[str], after: int, until: int, bridges: bool = True
          ) -> tuple[list[tuple[int, str, str]], bool]:
    """What was heard on ``topics`` (and the bridges) after ``after`` up to ``until``, oldest first, at most
    :data:`MAX_ROWS`; and whether that is all of it."""
    where, params = _topics(db, topics, bridges)
    rows = db.execute(f"SELECT h.received_ms, h.topic, h.payload FROM heard h WHERE {where} AND h.received_ms > ? "
                      f"AND h.received_ms <= ? ORDER BY h.received_ms, h.{_arrival(db)} LIMIT ?",
                      (*params, after, until, MAX_ROWS + 1)).fetchall()
    return [tuple(row) for row in rows[:MAX_ROWS]], len(rows) <= MAX_ROWS


def records(db: Store, tables: list[str], after: int, until: int) -> tuple[list[tuple[int, str, str]], bool]:
    """The records of ``tables`` the archive received after ``after`` up to ``until`` (ms), as ``event`` messages
    (without their ``log``), oldest first, at most :data:`MAX_ROWS`; and whether that is all of them."""
    if not tables:
        return [], True
    marks = ",".join("?" * len(tables))
    rows = db.execute("SELECT table_id, boot, seq, t, type, data, received_utc FROM events "
                      f"WHERE table_id IN ({marks}) AND received_utc >= ? AND received_utc < ? "
                      "ORDER BY received_utc, table_id, boot, seq LIMIT ?",
                      (*tables, _utc(after + 1), _utc(until + 1), MAX_ROWS + 1)).fetchall()
    out = []
    for table, boot, seq, t, kind, data, received in rows[:MAX_ROWS]:
        message = {"table": table, "boot": boot, "seq": seq, "record": {"t": t, "type": kind, **decode(data)}}
        out.append((_ms(received), f"table/{table}/event", text(message)))
    return out, len(rows) <= MAX_ROWS


def messages(db: Store, topics: list[str], tables: list[str], after: int, until: int
             ) -> tuple[list[tuple[int, str, str]], bool]:
    """Every message after ``after`` up to ``until``, in the order received, as far as both sources were read whole:
    (received ms, topic, payload); and whether that is all of the window."""
    said, said_all = heard(db, topics, after, until)
    logged, logged_all = records(db, tables, after, until)
    both = sorted(said + logged, key=lambda m: m[0])  # stable: at one ms, what was heard before the records
    cuts = []  # a source read in part is taken up to its last whole millisecond
    for rows, whole in ((said, said_all), (logged, logged_all)):
        if not whole:
            cuts.append(rows[-1][0] - 1 if rows[0][0] < rows[-1][0] else rows[-1][0])
    cut = min(cuts, default=until)
    return [m for m in both if m[0] <= cut], said_all and logged_all


def fit(found: list, window: list, complete: bool, after: int) -> tuple[list, int | None]:
    """What was in force (``found``, the first part's) and as many of ``window`` as fit in one part, never splitting a
    millisecond between two parts; and where the next part begins (None: this is the last). A message too long for
    any part (the broker's packets hold 64 KiB) is left out."""
    part, size = list(found), sum(map(_size, found))
    for n, message in enumerate(window):
        size += _size(message)
        if size > MAX_PART_BYTES:
            taken = [m for m in window[:n] if m[0] != message[0]] or window[:n]
            if not taken and not found:
                return [], message[0]  # alone too long: the next part begins after it
            return part + taken, taken[-1][0] if taken else after
    return part + window, None if complete else (window[-1][0] if window else after)


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
