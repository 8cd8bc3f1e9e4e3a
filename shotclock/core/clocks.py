"""Clocks as the decision log recorded them: summaries, timelines, replay export, statistics.

Pure: these functions take the log's rows as dicts (``id``, ``session``, ``clock``, ``type``,
``t``, ``utc`` and the record's own fields) and derive everything a floor asks of the log.
Nothing here is stored twice: a clock is whatever its records say.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from shotclock.core.events import ACTED, CANCELLED, QUIET_ENDS
from shotclock.core.restore import CAUSES
from shotclock.core.settings import STREETS

US = 1_000_000


@dataclass
class Clock:
    """One clock, from its start to its decision (``outcome`` None while open)."""

    id: int
    session: int
    mode: str
    started_t: float
    started_utc: str
    seconds: float
    street: str | None
    facing_bet_at_start: bool | None
    facing_bet: bool | None = None
    outcome: str | None = None
    remaining: float | None = None
    at_zero: bool | None = None
    by: str | None = None
    decided_t: float | None = None
    decided_utc: str | None = None
    pauses: int = 0
    extensions: int = 0
    interrupted: bool = False
    running_seconds: float = 0.0
    records: list[dict] = field(default_factory=list)
    number: int = 0
    """Its place among the log's clocks, 1 for the oldest (what ``shotclock log`` shows; set by the reader)."""

    @property
    def open(self) -> bool:
        """No decision recorded (yet)."""
        return self.outcome is None

    @property
    def kind(self) -> str | None:
        """The outcome as the floor counts it: ``acted_at_zero`` apart from ``acted``, and a clock the
        hand's flow ended (``ended_by_street``, ``_hand``, ``_stop``) apart from the floor's ``cancelled``."""
        if self.outcome == ACTED and self.at_zero:
            return "acted_at_zero"
        if self.outcome == CANCELLED and self.by in QUIET_ENDS:
            return f"ended_by_{self.by}"
        return self.outcome


# A street or a new hand records the bet state it leaves (no bet, the blinds), not the one the clock ran with.
ENDS_BY_FLOW = ("street", "hand")


def clocks_from(rows: list[dict], modes: dict[int, str] | None = None) -> list[Clock]:
    """Every clock in ``rows`` (in id order), with its records. ``modes``: session → mode."""
    modes = modes or {}
    clocks: dict[int, Clock] = {}
    for row in rows:  # a clock's id is its start record's id; the input that started it comes just before
        if row["type"] == "start" and row.get("clock") == row["id"]:
            with _naming(row):
                mode = modes.get(row["session"], "shot" if row.get("street") else "clock")
                clocks[row["id"]] = Clock(row["id"], row["session"], mode, float(row["t"]), row["utc"],
                                          float(row["seconds"]), row.get("street"), row.get("facing_bet"),
                                          facing_bet=row.get("facing_bet"))
    for row in rows:
        clock = clocks.get(row.get("clock"))
        if clock is None:
            continue
        with _naming(row):
            _add(clock, row)
    for clock in clocks.values():
        with _naming(clock.records[-1]):
            clock.running_seconds = _running_seconds(clock.records)
    return sorted(clocks.values(), key=lambda c: c.id)


class DamagedRecord(ValueError):
    """A record lacks a field a clock needs, or holds the wrong kind of value; names the record."""


@contextmanager
def _naming(row: dict):
    try:
        yield
    except (KeyError, TypeError, ValueError) as exc:
        what = f"no field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise DamagedRecord(f"record {row.get('id')} ({row.get('type')}) is damaged: {what}") from None


def _add(clock: Clock, row: dict) -> None:
    """One record's effect on its clock's summary."""
    clock.records.append(row)
    kind = row["type"]
    if kind == "pause":
        clock.pauses += 1
    elif kind == "extended":
        clock.extensions += 1
    elif kind == "undo":  # the dealer took a mis-pressed chip back
        clock.extensions -= 1
    elif kind == "interrupted":
        clock.interrupted = True
    elif kind == "input" and row.get("facing_bet") is not None and row.get("event") not in ENDS_BY_FLOW:
        clock.facing_bet = row["facing_bet"]
    elif kind == "decision":
        clock.outcome = row["outcome"]
        clock.remaining = row.get("remaining")
        clock.at_zero = row.get("at_zero")
        clock.by = row.get("by")
        clock.decided_t, clock.decided_utc = row["t"], row["utc"]
        if clock.outcome in ("hand_dead", "check"):
            clock.facing_bet = clock.outcome == "hand_dead"


def _running_seconds(records: list[dict]) -> float:
    """How long the clock ran (paused and interrupted time left out), to its decision or last record."""
    total, since, prev = 0, None, None
    for r in records:
        t = round(r["t"] * US)
        if prev is not None and r["session"] != prev["session"] and since is not None:
            # A power cut: monotonic time restarts with the new session; count up to the old one's last record.
            total += round(prev["t"] * US) - since
            since = None
        prev = r
        if r["type"] in ("start", "resume"):
            since = t
        elif r["type"] in ("pause", "decision", "interrupted", "shutdown") and since is not None:
            total += t - since
            since = None
    if since is not None:
        total += round(records[-1]["t"] * US) - since
    return total / US


def _after_cut(clock: Clock) -> str:
    """What became of a clock after the power cut or stop that interrupted it (for a message)."""
    if clock.outcome is None:
        return "has no decision yet"
    if clock.outcome == CANCELLED:
        return "then cancelled by the floor" if clock.by in (None, "floor") else f"then ended by the {clock.by}"
    resumed = any(r["type"] == "resume" and r["session"] != clock.session for r in clock.records)
    return ("resumed by the floor, then ruled " if resumed else "then ruled ") + clock.kind.replace("_", " ")


def replay_events(clock: Clock) -> list[dict]:
    """The clock's inputs in the replay format, ``t`` from 0 at its start, ending at its decision.

    A prologue puts the engine in the state the clock started in (bet faced, street), so that
    ``shotclock replay`` with the session's configuration re-derives the same ruling.
    """
    if clock.interrupted:
        cut = next((r for r in clock.records if r["type"] == "interrupted"), {})
        by = CAUSES.get(cut.get("cause"), CAUSES["power_cut"])
        raise ValueError(f"clock {clock.id} was interrupted by {by} and {_after_cut(clock)}; "
                         "it cannot be replayed from 0 (see 'shotclock log show')")
    t0 = round(clock.started_t * US)
    rel = lambda t: (round(t * US) - t0) / US
    fb = bool(clock.facing_bet_at_start)
    if clock.mode == "clock":
        events = [{"t": 0, "event": "call", "facing_bet": fb}]
    else:
        events = [{"t": 0, "event": "hand"}]
        for street in STREETS[1:STREETS.index(clock.street) + 1]:
            events.append({"t": 0, "event": "street"})
        default = clock.street == STREETS[0]
        if fb != default:
            events.append({"t": 0, "event": "bet", "facing_bet": fb})
        events.append({"t": 0, "event": "start"})
    started = False
    for r in clock.records:
        if r["type"] == "start":
            started = True
            continue
        if not started or r["type"] != "input":
            continue
        event = {"t": rel(r["t"]), "event": r["event"]}
        if "set_bet" in r:
            event["facing_bet"] = r["set_bet"]
        events.append(event)
    if clock.decided_t is not None:
        events.append({"t": rel(clock.decided_t), "event": "end"})
    for e in events:
        if isinstance(e["t"], float) and e["t"].is_integer():
            e["t"] = int(e["t"])
    return events


def stats(clocks: list[Clock], utc_seconds: Callable[[str], float]) -> dict:
    """Clocks called, rulings by outcome, median and 90th percentile decision time, clocks per hour.

    ``utc_seconds`` turns a logged UTC time into seconds: clocks per hour are counted on UTC,
    because the monotonic ``t`` starts again at each boot. Clocks the flow of the hand ended (a street,
    a new hand, the dealer's stop) are counted apart from the floor's cancels (see :attr:`Clock.kind`);
    neither is a decision time.
    """
    decided = [c for c in clocks if not c.open]
    by_outcome: dict[str, int] = {}
    for c in decided:
        by_outcome[c.kind] = by_outcome.get(c.kind, 0) + 1
    times = sorted(c.running_seconds for c in decided if c.outcome != CANCELLED)
    result = {"clocks": len(clocks), "open": len(clocks) - len(decided), "outcomes": by_outcome,
              "decision_seconds_median": None, "decision_seconds_p90": None, "clocks_per_hour": None}
    if times:
        result["decision_seconds_median"] = round(statistics.median(times), 3)
        result["decision_seconds_p90"] = round(_percentile(times, 0.9), 3)
    if len(clocks) >= 2:
        hours = (utc_seconds(clocks[-1].started_utc) - utc_seconds(clocks[0].started_utc)) / 3600
        if hours > 0:
            result["clocks_per_hour"] = round(len(clocks) / hours, 1)
    return result


def _percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def chips_used(rows: list[dict], reset_at_hand: bool) -> dict[int, int]:
    """Extension chips each seat has used, from the log's rows in id order: what a restart gives back
    to the engine, so a reboot does not hand players their chips again.

    Counts ``extended`` records that name a seat; an ``undo`` takes back its clock's latest one; a
    ``chips_reset`` (the floor's gesture), a ``chips_restored`` (the used counts at a restart) and, with
    ``reset_at_hand``, every ``hand`` input start the count again.
    """
    used: dict[int, int] = {}
    seats: dict[int | None, list[int | None]] = {}  # per clock, the seats of its extensions in order
    for row in rows:
        kind = row["type"]
        if kind == "chips_reset" or (kind == "input" and reset_at_hand and row.get("event") == "hand"):
            used.clear()
        elif kind == "chips_restored":
            used = seat_counts(row.get("used"))
        elif kind == "extended":
            seat = row.get("seat") if _whole(row.get("seat")) else None  # a damaged record counts no seat
            seats.setdefault(row.get("clock"), []).append(seat)
            if seat is not None:
                used[seat] = used.get(seat, 0) + 1
        elif kind == "undo" and seats.get(row.get("clock")):
            seat = seats[row.get("clock")].pop()
            if seat is not None and used.get(seat):
                used[seat] -= 1
    return {seat: n for seat, n in sorted(used.items()) if n > 0}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat_counts(value) -> dict[int, int]:
    """A ``chips_restored`` record's ``used`` (seat → chips, seats as JSON keys) as ints; what is not a
    whole seat and a whole positive count (a damaged or edited record) is left out, never fatal."""
    if not isinstance(value, dict):
        return {}
    counts = {}
    for seat, n in value.items():
        if isinstance(seat, str) and seat.isdigit() and _whole(n) and n > 0:
            counts[int(seat)] = n
        elif _whole(seat) and _whole(n) and n > 0:
            counts[seat] = n
    return counts
