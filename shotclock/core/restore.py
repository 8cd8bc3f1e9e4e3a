"""Bringing back a clock the device stopped on: one rule, used by the device, ``log replay`` and screenshots.

The player never pays for the device's downtime. A clock that was running or paused when the
device stopped -- a crash, the watchdog's kill, a quit, a power cut -- comes back **paused**
with the time it had **when the device stopped**, and the floor resumes or cancels it. How
exactly that moment is known depends on how the device stopped:

* a graceful stop (``systemctl stop``, Esc in the simulator) writes a ``shutdown`` record with
  the exact time left;
* when the device process dies but its log writer outlives it (``kill -9``, an uncaught
  exception, the watchdog's kill), the writer records a ``lost`` record at the moment the device
  went silent: exact to within the device's heartbeat (:data:`HEARTBEAT`);
* after a power cut nothing could be written at the end: the time left at the clock's last
  record counts, at most the checkpoint interval (:data:`CHECKPOINT_SECONDS`) above the truth,
  in the player's favour.

Pure: this module reads the log's rows (as :mod:`shotclock.core.clocks` does) and never a clock.

Example::

    >>> rows = [{"id": 1, "session": 1, "clock": 1, "type": "start", "t": 10.0, "utc": "", "seconds": 30.0},
    ...         {"id": 2, "session": 1, "clock": 1, "type": "lost", "t": 17.5, "utc": ""}]
    >>> point = at_stop(rows)
    >>> (point.remaining, point.seconds, point.how)
    (22.5, 30.0, 'exact: the device died, its log writer recorded when')
"""

from __future__ import annotations

import msgspec

US = 1_000_000
HEARTBEAT = 0.25  # while a clock runs, the device tells its log writer it is alive at least this often
CHECKPOINT_SECONDS = 5.0  # while a clock runs, at most this long between records (the power-cut bound)

# How the time left at the stop was known (the ``how`` of an ``interrupted`` record).
HOW_PAUSED = "exact: it was paused"
HOW_STOPPED = "exact: stopped"
HOW_LOST = "exact: the device died, its log writer recorded when"
HOW_POWER_CUT = f"at its last record, at most {CHECKPOINT_SECONDS:g} s more than the truth"

# What stopped the device (an ``interrupted`` record's ``cause``), in words.
CAUSES = {"stop": "a stop of the device (a quit or a service stop)", "crash": "a crash of the device",
          "power_cut": "a power cut"}

# Records that carry the time left (``remaining``) at their time.
_CARRY_REMAINING = ("beep", "extended", "undo", "resume", "pause", "checkpoint", "shutdown", "interrupted", "top_up")


class ClockAtStop(msgspec.Struct, frozen=True):
    """Everything a restore needs of a clock the device stopped on: what an ``interrupted`` record holds.

    :param remaining: seconds left when the device stopped.
    :param seconds: the clock's whole length, extensions included (the ring's full circle).
    :param extensions: extensions this decision has had (against ``shot.extension_limit``).
    :param facing_bet: whether the player faced a bet (the ruling at 0).
    :param street: the street (shot mode), or None.
    :param how: how the time left was known (one of the ``HOW_*`` sentences).
    :param cause: ``stop`` (a deliberate stop), ``crash`` (the process died) or ``power_cut``.

    As it is written (``msgspec.to_builtins``): the fields an ``interrupted`` record stores (``log replay`` restores
    from them alone).
    """

    remaining: float
    seconds: float
    extensions: int
    facing_bet: bool
    street: str | None
    how: str
    cause: str

    @classmethod
    def from_record(cls, row: dict) -> "ClockAtStop":
        """Back from an ``interrupted`` record (one written before ``seconds`` and ``extensions`` were
        stored gives a clock as long as its time left, with no extensions)."""
        remaining = float(row["remaining"])
        return cls(remaining=remaining, seconds=float(row.get("seconds") or remaining),
                   extensions=int(row.get("extensions") or 0), facing_bet=bool(row.get("facing_bet")),
                   street=row.get("street"), how=row.get("how", HOW_STOPPED), cause=row.get("cause", "stop"))

    @classmethod
    def from_state(cls, state, at: float, cause: str = "power_cut") -> "ClockAtStop":
        """What a clock in ``state`` (an engine :class:`~shotclock.core.engine.Snapshot`) would come back
        with if the device stopped at ``at`` (``shotclock screenshot --interrupted``)."""
        return cls(remaining=state.remaining(at), seconds=state.seconds, extensions=state.extensions,
                   facing_bet=state.facing_bet, street=state.street, how=HOW_STOPPED, cause=cause)


def at_stop(records: list[dict]) -> ClockAtStop:
    """The clock as it stood when the device last stopped, from its records (in id order).

    Walks the records keeping the time left and whether the clock ran. A running clock's time
    runs on only up to the moment the device stopped: a ``shutdown`` or ``lost`` record (exact),
    else its last record (a power cut: an upper bound, the player's favour). An ``undo``, an
    extension or a checkpoint never changes whether it ran; only a start, a resume, a pause or a
    stop does.
    """
    left_us = since = session = None
    running = False
    seconds_us, extensions, facing_bet, street = 0, 0, False, None
    ended = None  # (cause, how) of the stop after the clock's last change, if one was recorded
    for r in records:
        t = round(float(r["t"]) * US)
        if r["session"] != session:
            since = None  # monotonic time restarts with each session
            session = r["session"]
        kind = r["type"]
        if kind == "start":
            left_us = seconds_us = round(float(r["seconds"]) * US)
            since, running, extensions, ended = t, True, 0, None
            facing_bet = bool(r.get("facing_bet", facing_bet))
            street = r.get("street", street)
            continue
        if left_us is None:
            continue  # records before the clock's start (the input that called it)
        if running and since is not None:
            left_us -= t - since  # it ran up to this record (up to a lost record: the device went silent)
            since = t
        if kind == "lost":
            ended = ("crash", HOW_LOST if running else HOW_PAUSED)
        elif kind == "shutdown":
            ended = ("stop", HOW_STOPPED if running else HOW_PAUSED)
        elif kind == "interrupted":
            ended = (r.get("cause", "power_cut"), r.get("how", HOW_PAUSED))  # an earlier start left it as it was
            seconds_us = round(float(r.get("seconds") or 0) * US) or seconds_us
            extensions = int(r.get("extensions", extensions) or 0)
            facing_bet = bool(r.get("facing_bet", facing_bet))
        elif kind in ("input", "edge", "command", "fault", "ignored"):
            if kind == "input" and r.get("facing_bet") is not None:
                facing_bet = bool(r["facing_bet"])
        else:
            ended = None  # the clock changed after any earlier stop
            if kind == "extended":
                seconds_us += round(float(r["seconds"]) * US)
                extensions += 1
            elif kind == "undo":
                seconds_us -= round(float(r["seconds"]) * US)
                extensions -= 1
            elif kind == "top_up" and r.get("remaining") is not None:  # the player's bank grew on their clock
                seconds_us += round(float(r.get("grew", r["seconds"])) * US)  # ``grew``: under the bank's bound
        if kind in _CARRY_REMAINING and r.get("remaining") is not None:
            left_us = round(float(r["remaining"]) * US)
        if kind == "resume":
            running = True
        elif kind in ("pause", "shutdown", "interrupted", "lost"):
            running = False
        since = t if running else None
    if left_us is None:
        raise ValueError("no start record: not a clock")
    cause, how = ended or ("power_cut", HOW_POWER_CUT if running else HOW_PAUSED)
    remaining = max(0, left_us)
    return ClockAtStop(remaining=remaining / US, seconds=max(seconds_us, remaining) / US, extensions=extensions,
                       facing_bet=facing_bet, street=street, how=how, cause=cause)


class Recovery(msgspec.Struct, frozen=True):
    """What a start does with the clock the last stop left open: restore it here, or leave it be.

    :param clock_id: the open clock (its start record's id).
    :param point: the clock as it stood at the stop.
    :param restored: True when this table takes it back (same table name, same mode).
    :param other_table: the table it belongs to, when that is not this one.
    """

    clock_id: int
    point: ClockAtStop
    restored: bool
    other_table: str | None = None


class Interrupted(ClockAtStop, frozen=True, kw_only=True, omit_defaults=True):
    """The ``interrupted`` record: the clock at the stop (each of :class:`ClockAtStop`'s fields), whether this start
    restored it, and the ``table`` it belongs to when that is another (absent otherwise)."""

    restored: bool
    table: str | None = None

    @classmethod
    def of(cls, recovery: Recovery) -> dict:
        """The record's data for ``recovery``, as the log stores it."""
        return msgspec.to_builtins(cls(**msgspec.structs.asdict(recovery.point), restored=recovery.restored,
                                       table=recovery.other_table))


def plan_recovery(clock, started_on: str | None, table: str, mode: str) -> Recovery | None:
    """The recovery of ``clock`` (a :class:`~shotclock.core.clocks.Clock` from the log) at a start of
    ``table`` in ``mode``; None when it has its decision. ``started_on``: the table name of the session
    the clock started in (None: unknown, taken as this one). A clock is only restored on the table and
    in the mode it ran in."""
    if not clock.open:
        return None
    point = at_stop(clock.records)
    same_table = started_on is None or started_on == table
    return Recovery(clock.id, point, restored=same_table and clock.mode == mode,
                    other_table=None if same_table else started_on)
