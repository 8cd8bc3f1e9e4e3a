"""The collector answers the dashboard's questions about its archive (MQTT 5 request / response).

A page publishes a question on ``shotclock/v1/<venue>/archive/get`` with a Response Topic
(``…/archive/reply/<its client id>``) and Correlation Data; the collector, which holds the archive,
answers there (docs/network.md, "archive"). So the dashboard's rulings feed survives a reload and
each ruling's timeline comes from the archive, with the broker's own credentials and ACLs and no web
server beside it.

Questions (JSON objects):

* ``{"what": "rulings", "limit": N}`` → ``{"ok": true, "rulings": [...]}``: the venue's latest rulings,
  newest first (``table``, ``boot``, ``seq``, ``clock``, ``utc``, ``outcome``, ``remaining``, ``at_zero``, and
  ``by``: who on the floor commanded that clock, when anyone did).
* ``{"what": "clock", "table": ID, "clock": N, "boot": B}`` → ``{"ok": true, "number": K, "records": [...]}``:
  every record of that clock in the device's order (``seq``, ``utc``, ``record`` as in an ``event`` message),
  and ``K``, the clock's number in ``shotclock log --collected DIR --table ID`` (``… show K``). ``boot`` (any
  boot of the device log that holds it, as a ruling carries it) tells apart two clocks with the same id in
  two device logs of one table (a device replaced); without it, the latest such clock.

* ``{"what": "report", "day": "YYYY-MM-DD", "table": ID}`` (both optional) → the slow-play report
  (:func:`shotclock.floor.report.answer_report`; docs/report.md).
* ``{"what": "history", "delay": S, "table": ID}`` → one part of what a broadcast overlay on a delay of ``S`` seconds
  draws from (:func:`shotclock.floor.history.answer_history`): the overlay's own question, on its own topic.

Anything else gets ``{"ok": false, "reason": "…"}``.
"""

from __future__ import annotations

from shotclock.adapters.archive import Chain, Store, chains, clock_numbers
from shotclock.core.codec import decode

MAX_RULINGS = 200
MAX_RECORDS = 300  # a clock has a few dozen records; this keeps an answer inside the broker's 64 KiB packets


def answer(db: Store, question, history_since_ms: int | None = None) -> dict:
    """The answer to one question, read from the archive (SQLite or PostgreSQL). ``history_since_ms``: since when
    (Unix ms) the collector keeps the overlay's history whole, or None."""
    if not isinstance(question, dict):
        return {"ok": False, "reason": "a question is a JSON object"}
    what = question.get("what")
    if what == "rulings":
        limit = question.get("limit", 50)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_RULINGS:
            return {"ok": False, "reason": f"limit must be a whole number from 1 to {MAX_RULINGS}"}
        with db.reading():
            return {"ok": True, "rulings": rulings(db, limit)}
    if what == "clock":
        table, clock, boot = question.get("table"), question.get("clock"), question.get("boot")
        if not isinstance(table, str) or not isinstance(clock, int) or isinstance(clock, bool):
            return {"ok": False, "reason": "a clock question names a table (text) and a clock (number)"}
        if boot is not None and not isinstance(boot, str):
            return {"ok": False, "reason": "a clock question's boot is text (a ruling's boot)"}
        with db.reading():  # one snapshot: the chains and the clock's records agree
            table_chains = chains(db, table)
            chain = clock_chain(db, table, clock, boot, table_chains)
            records = clock_records(db, table, clock, chain)
            if not records:
                return {"ok": False, "reason": f"no clock {clock} of table {table} in the archive"}
            number = clock_numbers(db, table, table_chains).get((chain.number, clock))
        return {"ok": True, "table": table, "clock": clock, **({"number": number} if number else {}),
                "records": records}
    if what == "report":
        from shotclock.floor.report import answer_report

        return answer_report(db, question)
    if what == "history":
        from shotclock.floor.history import answer_history

        return answer_history(db, question, history_since_ms)
    return {"ok": False, "reason": f"unknown question {what!r} (rulings, clock, report or history)"}


def rulings(db: Store, limit: int) -> list[dict]:
    """The latest ``limit`` decisions across tables, newest first."""
    out = []
    for table, boot, seq, clock, utc, data in db.execute(
            "SELECT table_id, boot, seq, clock, utc, data FROM events WHERE type = 'decision' "
            "ORDER BY utc DESC LIMIT ?", (limit,)).fetchall():
        fields = decode(data)
        ruling = {"table": table, "boot": boot, "seq": seq, "clock": clock, "utc": utc,
                  "outcome": fields.get("outcome"), "remaining": fields.get("remaining"),
                  "at_zero": fields.get("at_zero")}
        by = floor_senders(db, table, boot, clock, seq)
        if by:
            ruling["by"] = by
        out.append(ruling)
    return out


def floor_senders(db: Store, table: str, boot: str, clock: int | None, seq: int) -> list[str]:
    """Who on the floor commanded this clock before its ruling ``seq`` (the senders of its command inputs, in
    order, each once): with a floor person's own login, the name the broker proved (docs/network.md)."""
    if clock is None:
        return []
    senders: list[str] = []
    for (data,) in db.execute("SELECT data FROM events WHERE table_id = ? AND boot = ? AND type = 'input' "
                              "AND seq BETWEEN ? AND ? ORDER BY seq", (table, boot, clock - 1, seq)):
        sender = decode(data).get("sender")
        if isinstance(sender, str) and sender not in senders:
            senders.append(sender)
    return senders


def clock_chain(db: Store, table: str, clock: int, boot: str | None, table_chains: list[Chain]
                ) -> Chain | None:
    """The chain (device log) of ``table`` that holds clock ``clock``: the one with ``boot`` when given, else the
    one a record of that clock arrived in last; None when there is no such clock."""
    if boot is not None:
        return next((c for c in table_chains if boot in c.boots), None)
    row = db.execute(f"SELECT boot FROM events WHERE table_id = ? AND clock = ? ORDER BY {db.arrival} DESC LIMIT 1",
                     (table, clock)).fetchone()
    return next((c for c in table_chains if row and row[0] in c.boots), None)


def clock_records(db: Store, table: str, clock: int, chain: Chain | None) -> list[dict]:
    """Every record of one clock of one table's device log (``chain``), in the device's order."""
    if chain is None:
        return []
    marks = ",".join("?" * len(chain.boots))
    return [{"seq": seq, "utc": utc, "record": {"t": t, "type": kind, **decode(data)}}
            for seq, utc, t, kind, data in db.execute(
                f"SELECT seq, utc, t, type, data FROM events WHERE table_id = ? AND clock = ? AND boot IN ({marks}) "
                "ORDER BY seq LIMIT ?", (table, clock, *chain.boots, MAX_RECORDS))]
