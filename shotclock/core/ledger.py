"""The time ledger: per seat and player, how much time their decisions took (seat tracking).

Pure: built from the decision log's rows (in id order), as :mod:`shotclock.core.clocks` builds clocks. For
each seat and the player sitting there (by name, when the floor named them): the decisions they made on a
clock, the time each took (median, 95th percentile, longest), the clocks called on them (rule 29), the
extension chips and the seconds of time bank they used, and the rulings against them (a dead hand or a
check at 0) -- the evidence a tournament director needs under TDA rule 70 (persistent delay of the game).

A decision's time is the clock's whole length (extensions and bank included) less what was left when the
player acted; a ruling at 0 took all of it. Paused time never counts. Clocks that ended quietly (a street,
a new hand, the dealer's stop) or by the floor's cancel are no decision of the player's. A clock that was
nobody's (the dealer corrected the turn, the floor emptied the seat on it or reseated the table) is on no line:
it was not called on anyone and took no bank (docs/rules.md).

Example::

    >>> rows = [{"id": 1, "type": "seat", "seat": 4, "change": "seated", "name": "Ana"},
    ...         {"id": 2, "clock": 2, "type": "start", "seconds": 30, "street": "flop", "seat": 4},
    ...         {"id": 3, "clock": 2, "type": "decision", "outcome": "acted", "remaining": 18, "seat": 4}]
    >>> [(e.seat, e.player, e.decisions, e.times) for e in ledger(rows)]
    [(4, 'Ana', 1, [12.0])]
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

import msgspec

from shotclock.core.clocks import _percentile
from shotclock.core.events import NOBODYS
from shotclock.core.fields import MAX_SEATS, as_whole

RULINGS_AGAINST = ("hand_dead", "check")
COLUMNS = ("seat", "player", "decisions", "median_s", "p95_s", "max_s", "clocks_called", "extensions",
           "bank_used_s", "rulings_against")


@dataclass
class Entry:
    """One seat and player's line of the ledger (``player`` is "" when never named)."""

    seat: int
    player: str
    decisions: int = 0
    times: list[float] = field(default_factory=list)
    clocks_called: int = 0
    extensions: int = 0
    bank_used: float = 0.0
    rulings_against: int = 0
    hands_dead: int = 0  # the rulings against them, by kind
    checks: int = 0

    def line(self) -> "LedgerLine":
        """The line as it is shown and written (seconds rounded to the millisecond; None where there is no time)."""
        times = sorted(self.times)
        r = lambda v: None if v is None else round(v, 3)  # noqa: E731
        return LedgerLine(self.seat, self.player, self.decisions, r(statistics.median(times)) if times else None,
                          r(_percentile(times, 0.95)) if times else None, r(times[-1]) if times else None,
                          self.clocks_called, self.extensions, r(self.bank_used), self.rulings_against)


class LedgerLine(msgspec.Struct, frozen=True):
    """One line of the ledger as ``log ledger`` prints it (:data:`COLUMNS`, in order)."""

    seat: int
    player: str
    decisions: int
    median_s: float | None
    p95_s: float | None
    max_s: float | None
    clocks_called: int
    extensions: int
    bank_used_s: float
    rulings_against: int


def _seat(value) -> int | None:
    value = as_whole(value)
    return value if value.__class__ is int and 1 <= value <= MAX_SEATS else None


def _charge(entry, clock: dict) -> Entry:
    """The line a clock's player is charged on, with the clock called and the extensions it took."""
    who = entry(clock["seat"], clock["name"])
    who.clocks_called += clock["called"]
    who.extensions += clock["extensions"]
    return who


def ledger(rows, by_name: bool = False) -> list[Entry]:
    """The ledger of ``rows`` (the log's records in id order; from the floor's archive, each may carry its
    ``chain``), sorted by seat and player. ``by_name``: one line per named player across seats and tables
    (a player moved keeps their line; unnamed seats stay by seat)."""
    names: dict[int, str] = {}
    clocks: dict[tuple, dict] = {}
    entries: dict[tuple, Entry] = {}

    def entry(seat: int, name: str) -> Entry:
        key = (0, name) if by_name and name else (seat, name)
        if key not in entries:
            entries[key] = Entry(0 if by_name and name else seat, name)
        return entries[key]

    for row in rows:
        kind = row.get("type")
        key = (row.get("chain"), row.get("clock"))
        if kind == "seat":
            seat = _seat(row.get("seat"))
            if seat is None:
                continue
            if row.get("change") in ("seated", "renamed"):
                names[seat] = row.get("name") or ""
            elif row.get("change") == "emptied":
                names.pop(seat, None)
        elif kind in ("seats", "seats_restored") and isinstance(row.get("players"), dict):
            names = {s: n for s, n in ((_seat(k), v) for k, v in row["players"].items())
                     if s is not None and isinstance(n, str)}
        elif kind == "start":
            seat = _seat(row.get("seat"))
            if seat is not None:  # clock mode (no street): the floor called a clock on this player -- unless it
                # is their own clock, which the table starts on a marked player (``mark``): no call
                clocks[key] = {"seat": seat, "name": names.get(seat, ""), "seconds": float(row.get("seconds") or 0),
                               "called": row.get("street") is None and not row.get("mark"), "extensions": 0}
        elif kind in ("extended", "undo") and key in clocks:
            clock = clocks[key]
            sign = 1 if kind == "extended" else -1
            clock["seconds"] += sign * float(row.get("seconds") or 0)
            clock["extensions"] += sign
        elif kind == "top_up" and key in clocks and row.get("remaining") is not None:
            clocks[key]["seconds"] += _grew(row)  # the player's bank grew on their clock
        elif kind == "decision" and key in clocks:
            clock = clocks.pop(key)
            if row.get("outcome") == "cancelled" and row.get("by") in NOBODYS:
                continue  # the turn corrected, the seat emptied, the table reseated: nobody's clock
            who = _charge(entry, clock)
            outcome = row.get("outcome")
            if outcome not in ("acted", *RULINGS_AGAINST):
                continue
            left = float(row.get("remaining") or 0) if outcome == "acted" else 0.0
            who.decisions += 1
            who.times.append(max(0.0, clock["seconds"] - left))
            who.bank_used += float(row.get("bank_used") or 0)
            who.hands_dead += outcome == "hand_dead"
            who.checks += outcome == "check"
            who.rulings_against += outcome in RULINGS_AGAINST
    for clock in clocks.values():  # still open (interrupted): called and extended all the same
        _charge(entry, clock)
    return sorted(entries.values(), key=lambda e: (e.seat, e.player))


def _grew(row: dict) -> float:
    """How much longer a ``top_up`` made the running clock: ``grew`` (under the bank's bound), or in a log
    written before that field, the whole top-up."""
    return float(row.get("grew", row.get("seconds")) or 0)
