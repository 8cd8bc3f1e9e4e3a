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

from shotclock.core.events import ACTED, CANCELLED, EVENT_TYPES, QUIET_ENDS
from shotclock.core.fields import FIELDS
from shotclock.core.restore import CAUSES
from shotclock.core.settings import STREETS, Settings
from shotclock.core.table import SEAT_FIELDS

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
    cancel_pause: int | None = None
    """The pause record that the press of the floor's cancelling hold made (the press pauses at once; held 2 s, it
    cancels): part of the cancel, not counted in ``pauses``."""
    interrupted: bool = False
    running_seconds: float = 0.0
    records: list[dict] = field(default_factory=list)
    seat: int | None = None  # with seat tracking: the seat it was for
    player: str = ""  # and the player's name then ("" when unnamed; set by the reader, see :func:`players_at_start`)
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


def clocks_from(rows: list[dict]) -> list[Clock]:
    """Every clock in ``rows`` (in id order), with its records."""
    clocks: dict[int, Clock] = {}
    for row in rows:  # a clock's id is its start record's id; the input that started it comes just before
        if row["type"] == "start" and row.get("clock") == row["id"]:
            with _naming(row):
                # The start says its mode (a shot clock names its street, a called clock none), not the session:
                # a level or a rule set may have changed the mode since the session began.
                mode = "shot" if row.get("street") else "clock"
                clocks[row["id"]] = Clock(row["id"], row["session"], mode, float(row["t"]), row["utc"],
                                          float(row["seconds"]), row.get("street"), row.get("facing_bet"),
                                          facing_bet=row.get("facing_bet"), seat=_seat_of(row))
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


def _seat_of(row: dict) -> int | None:
    seat = row.get("seat")
    return seat if FIELDS["seat"].fits(seat) else None


def players_at_start(rows: list[dict]) -> dict[int, str]:
    """The name of the player each clock was for when it started (by the clock's id; seat tracking), from the
    log's ``seat``, ``seats``, ``seats_restored`` and ``start`` records in id order."""
    names: dict[int, str] = {}
    out: dict[int, str] = {}
    for row in rows:
        kind = row.get("type")
        if kind == "seat" and _seat_of(row) is not None:
            if row.get("change") in ("seated", "renamed"):
                names[row["seat"]] = row.get("name") or ""
            elif row.get("change") == "emptied":
                names.pop(row["seat"], None)
        elif kind in ("seats", "seats_restored") and isinstance(row.get("players"), dict):
            names = {int(k): v for k, v in row["players"].items() if str(k).isdigit() and isinstance(v, str)}
        elif kind == "start" and row.get("clock") == row.get("id") and _seat_of(row) is not None:
            out[row["id"]] = names.get(row["seat"], "")
    return out


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
    if kind == "input" and row.get("event") == "cancel" and row.get("gesture") == "hold":
        _cancel_by_hold(clock, row)
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


def _cancel_by_hold(clock: Clock, cancel: dict) -> None:
    """The floor's hold that cancels a clock paused it at its press first (docs/rules.md): when the pause this
    clock had last from the floor button is that press's (its ``t`` is the hold's ``pressed``), it is the cancel's."""
    press = next((r for r in reversed(clock.records) if r["type"] == "input" and r.get("button") == cancel.get("button")
                  and r.get("gesture") == "press"), None)
    if (press is None or press.get("event") != "pause" or press["t"] != cancel.get("pressed")
            or press.get("session") != cancel.get("session")):
        return
    at = round(press["t"] * US)  # the engine's outputs are dated to the microsecond, inputs as they were given
    pause = next((r for r in clock.records if r["type"] == "pause" and r["id"] > press["id"]
                  and round(r["t"] * US) == at), None)
    if pause is not None:
        clock.cancel_pause = pause["id"]
        clock.pauses -= 1


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


def replay_events(clock: Clock, seats: dict | None = None, settings: Settings | None = None) -> list[dict]:
    """The clock's inputs in the replay format, ``t`` from 0 at its start, ending at its decision.

    A prologue puts the engine in the state the clock started in (bet faced, street; with seat tracking,
    ``seats``, the log's ``seats`` record the clock started with, read with ``settings``: the seats, names,
    button, hand, folded and all-in seats, turn, banks, chips used and the floor's marks), so that ``shotclock
    replay`` with the session's configuration re-derives the same ruling, seat, bank and a marked player's own
    clock. A clock the device stopped on and brought back (a crash, a power cut) is paused in the replay where the
    device stopped, and goes on from there as it did after the restart: the time the device was down is left out,
    as on the device.
    """
    if clock.interrupted and not any(r["type"] == "interrupted" and r.get("restored") for r in clock.records):
        cut = next((r for r in clock.records if r["type"] == "interrupted"), {})
        by = CAUSES.get(cut.get("cause"), CAUSES["power_cut"])
        raise ValueError(f"clock {clock.id} was interrupted by {by} and {_after_cut(clock)}; "
                         "it cannot be replayed from 0 (see 'shotclock log show')")
    fb = bool(clock.facing_bet_at_start)
    seated = seats is not None and settings is not None
    events = seat_prologue(clock, seats, settings) if seated else []
    if clock.mode == "clock":
        events.append({"t": 0, "event": "call", "facing_bet": fb})
    else:
        if not seated:
            events = [{"t": 0, "event": "hand"}, *_streets(clock)]
            if fb != (clock.street == STREETS[0]):
                events.append({"t": 0, "event": "bet", "facing_bet": fb})
        events.append({"t": 0, "event": "start"})
    # Replay time: from the start, and across a restart from where the device stopped: its last record then (a
    # lost record may come after an input it is dated before: the restore counts the clock to the lost record's
    # time, so the replay takes such inputs at that time too).
    stopped_at: dict[int, float] = {}  # session -> its last record before the next session's (the stop)
    for before, after in zip(clock.records, clock.records[1:]):
        if after["session"] != before["session"]:
            stopped_at[before["session"]] = round(before["t"] * US)
    session, base_t, base_rel = clock.session, round(clock.started_t * US), 0
    rel = lambda t: base_rel + min(round(t * US), stopped_at.get(session, float("inf"))) - base_t
    started = running = False
    last = 0
    decided = None
    for r in clock.records:
        if r["type"] == "start" and r["id"] == clock.id:
            started = running = True
            continue
        if not started:
            continue
        if r["session"] != session:
            if r["type"] != "interrupted" or not r.get("restored"):
                raise ValueError(f"clock {clock.id} goes on in session {r['session']} without being restored; "
                                 "it cannot be replayed (see 'shotclock log show')")
            if running:  # the device stopped here: the clock comes back paused with the time it had then
                events.append({"t": last / US, "event": "pause"})
            session, base_t, base_rel, running = r["session"], round(r["t"] * US), last, False
            continue
        now = last = max(last, rel(r["t"]))
        kind = r["type"]
        if kind in ("start", "resume"):
            running = True
        elif kind in ("pause", "decision"):
            running = False
            decided = now if kind == "decision" else decided
        if kind != "input" or r["event"] not in EVENT_TYPES:
            continue
        event = {"t": now / US, "event": r["event"]}
        if "set_bet" in r:
            event["facing_bet"] = r["set_bet"]
        event.update((k, r[k]) for k in SEAT_FIELDS if r.get(k) is not None)
        events.append(event)
    if decided is not None:
        events.append({"t": decided / US, "event": "end"})
    for e in events:
        if isinstance(e["t"], float) and e["t"].is_integer():
            e["t"] = int(e["t"])
    return events


def _streets(clock: Clock) -> list[dict]:
    """A ``street`` event for each street before the clock's (shot mode)."""
    if clock.mode != "shot" or clock.street not in STREETS:
        return []
    return [{"t": 0, "event": "street"} for _ in STREETS[1:STREETS.index(clock.street) + 1]]


def seat_prologue(clock: Clock, seats: dict, settings: Settings) -> list[dict]:
    """The events that put a fresh seat-aware engine in the state of the ``seats`` record (what the table had
    when ``clock`` started), its bet state and street included. Checked by running them: the turn is set by
    the dealer's own correction, as many steps forward as it takes (one back first when nobody is on turn).
    Raises ValueError when the turn cannot be set so."""
    from shotclock.core.seated import SeatedEngine
    from shotclock.core.seats import view_from_record

    view = view_from_record(seats, settings.seats.count)
    if view is None:
        raise ValueError(f"clock {clock.id}: the seats it started with do not fit the session's seats.count")
    players, banks, used = dict(view.players), dict(view.banks), dict(view.chips_used)
    events = [{"t": 0, "event": "empty", "seat": s} for s in range(1, view.count + 1) if s not in players]
    if view.button is not None:
        events.append({"t": 0, "event": "button", "seat": view.button})
    if view.in_hand:
        events.append({"t": 0, "event": "hand"})
    events += _streets(clock)
    allowance, bank = settings.shot.allowance, settings.seats.bank
    for seat, name in sorted(players.items()):
        event = {"t": 0, "event": "seat", "seat": seat}
        if name:
            event["name"] = name
        if seat in banks and banks[seat] != (bank or None):  # (a player moved in may bring a bank to any table)
            event["bank"] = banks[seat]
        if allowance and used.get(seat):
            event["chips"] = max(0, allowance - used[seat])
        if len(event) > 3:
            events.append(event)
    if view.in_hand:
        events += [{"t": 0, "event": "fold", "seat": s} for s in sorted(players) if s not in view.in_hand]
        events += [{"t": 0, "event": "all_in", "seat": s} for s in sorted(view.all_in)]
    if clock.mode == "shot" and bool(clock.facing_bet_at_start) != (clock.street == STREETS[0]):
        events.append({"t": 0, "event": "bet", "facing_bet": bool(clock.facing_bet_at_start)})
    engine = SeatedEngine(settings)
    for e in events:
        engine.handle(_event(e))
    active = engine.state.seats.in_hand - engine.state.seats.all_in
    # Nobody on turn with one player still able to act, in a hand of two or more: that player has just acted (the
    # turn then moves to nobody). A hand with one player left is over: nobody is on turn in it, as the folds left it.
    target = next(iter(active)) if view.turn is None and len(active) == 1 and len(view.in_hand) >= 2 else view.turn
    for _ in range(view.count + 1):
        if engine.state.seats.turn == target:
            break
        # Forward from a seat on turn; from nobody (a hand the others left) only a step back finds the turn again.
        step = "turn_forward" if engine.state.seats.turn is not None else "turn_back"
        events.append({"t": 0, "event": step})
        engine.handle(_event(events[-1]))
    if engine.state.seats.turn != target:
        raise ValueError(f"clock {clock.id}: the turn it started with (seat {target}) cannot be set again")
    if target != view.turn:
        events.append({"t": 0, "event": "action"})
    # The floor's marks last: in clock mode a mark on the player on turn must not start their own clock before the
    # clock this replay is of (a mark never starts a clock by itself; the clock's own start follows).
    for seat, mark, seconds in view.marks:
        events.append({"t": 0, "event": "mark", "seat": seat, "mark": mark,
                       **({} if seconds is None else {"mark_seconds": seconds})})
    return events


def _event(record: dict):
    fields = {k: v for k, v in record.items() if k not in ("t", "event")}
    return EVENT_TYPES[record["event"]](float(record["t"]), **fields)


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
