"""``shotclock tournament start|pause|resume|add|take|level|next|keep|load|status``: the floor's commands to a
tournament clock over the broker, each answered in one line (docs/tournament.md).

A command goes to ``…/tournament/<id>/cmd/by/<login>`` (the ACL lets only that login write it) and the clock's
process answers on ``…/tournament/<id>/cmd/ack`` once its journal holds it: exit 0 done, 1 the clock did not do it
(with its reason), 2 a usage or input error or no answer. ``status`` reads the clock's retained state and status:
exit 1 when the clock is offline or silent.
"""

from __future__ import annotations

import queue
import time
import uuid

from shotclock.core.codec import JsonProblem, decode, encode
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.core.topics import check_name, tournament_topic
from shotclock.core.tournament_state import ClockStatus, TournamentState, tournament_state_of
from shotclock.core.tournament_wire import ClockAck, ClockCommand
from shotclock.core.view import countdown_text
from shotclock.errors import ShotclockError


def cmd_tournament(args) -> int:
    """Send one command to the tournament clock ``args.id`` and print its answer (or, ``status``, its state)."""
    problem = check_name("--id", args.id)
    if problem:
        raise ShotclockError(problem)
    if args.action == "status":
        return _status(args)
    command = _command(args)
    with _Link(args, [tournament_topic(args.venue, args.id, "cmd/ack")]) as link:
        topic = tournament_topic(args.venue, args.id, f"cmd/by/{link.username}")
        link.client.publish(topic, encode(command), qos=1)
        deadline = time.monotonic() + args.wait
        while True:
            item = link.next(deadline)
            if item is None:
                raise ShotclockError(f"tournament {args.id}: no answer within {args.wait:g} s (is its clock running? "
                                     f"'shotclock tournament status --id {args.id}')")
            try:
                ack = decode(item[1], ClockAck, max_bytes=MAX_PAYLOAD)
            except JsonProblem:
                continue
            if ack.id == command.id:
                break
    if ack.outcome == "done":
        print(f"tournament {args.id}: {args.action}: {ack.said or 'done'}")
        return 0
    print(f"tournament {args.id}: {args.action}: not done: {ack.reason or ack.outcome}")
    return 1


def _command(args) -> ClockCommand:
    fields = {}
    if args.action in ("add", "take"):
        if args.value is None:
            raise ShotclockError(f"'tournament {args.action}' needs the seconds (for example: {args.action} 60)")
        fields["seconds"] = _seconds(args.value)
    elif args.action == "level":
        if args.value is None:
            raise ShotclockError("'tournament level' needs the level (for example: level 12)")
        fields["level"] = _level(args.value)
    elif args.action == "players":
        from shotclock.core.fields import as_whole
        from shotclock.core.tournament_wire import PLAYERS_MAX

        value = as_whole(args.value) if args.value is not None else None
        if not isinstance(value, int) or not 0 <= value <= PLAYERS_MAX:
            raise ShotclockError(f"'tournament players' needs the players left in plain digits, 0 to {PLAYERS_MAX} "
                                 f"(0: not shown), not {args.value!r}")
        fields["players"] = value
    elif args.action == "load":
        if args.value is None:
            raise ShotclockError("'tournament load' needs the structure's file (for example: load sunday.tdt)")
        from shotclock.shell.structurecmd import load_structure

        fields["structure"] = load_structure(args.value, getattr(args, "encoding", None))
    elif args.value is not None:
        raise ShotclockError(f"'tournament {args.action}' takes no value ({args.value!r} given)")
    return ClockCommand(id=uuid.uuid4().hex[:16], name=args.action, sent_ms=int(time.time() * 1000), **fields)


def _seconds(text: str) -> float:
    from shotclock.core.fields import BANK_MAX, as_decimal

    minutes = text.endswith("m")
    value = as_decimal(text[:-1] if minutes else text)
    if not isinstance(value, (int, float)) or not 0 < value * (60 if minutes else 1) <= BANK_MAX:
        raise ShotclockError(f"the seconds must be a number in plain digits, more than 0 and at most {BANK_MAX} "
                             f"(or minutes with m: 2m), not {text!r}")
    return float(value) * (60 if minutes else 1)


def _level(text: str) -> int:
    from shotclock.core.fields import FIELDS, as_whole

    value = as_whole(text)
    problem = FIELDS["level"].problem(value)
    if problem:
        raise ShotclockError(f"the level {problem.removeprefix(repr('level') + ' ')} (in plain digits)")
    return value


def _status(args) -> int:
    reads = [tournament_topic(args.venue, args.id, leaf) for leaf in ("state", "status")]
    found: dict[str, bytes] = {}
    with _Link(args, reads) as link:
        deadline = time.monotonic() + min(args.wait, 2.0)  # retained messages come at once
        while len(found) < 2:
            item = link.next(deadline)
            if item is None:
                break
            found[item[0].rsplit("/", 1)[1]] = item[1]
    state = tournament_state_of(found.get("state", b""))
    if not isinstance(state, TournamentState):
        print(f"tournament {args.id}: no state on this broker (never run here, or its clock was never started)")
        return 1
    try:
        online = decode(found.get("status", b""), ClockStatus, max_bytes=MAX_PAYLOAD).online
    except JsonProblem:
        online = False
    print(state_line(state, time.time() * 1000, online))
    return 0 if online else 1


def state_line(state: TournamentState, now_ms: float, online: bool) -> str:
    """The clock's state in one line for a person, as of ``now_ms`` (the wall clock: the message says its own)."""
    where = f"level {state.level} ({state.stage.blinds})" if state.level is not None else \
        f"break{': ' + state.stage.name if state.stage.name else ''}"
    if state.remaining is None:
        left = "ends by hands"
    else:
        left = state.remaining - (max(0.0, now_ms - state.at_ms) / 1000 if state.running and online else 0.0)
        left = f"{countdown_text(max(0.0, left))} left"
    how = "finished" if state.finished else "hand-for-hand (stopped)" if state.hand_for_hand else \
        "paused" if state.paused else "running" if state.running else "not started" if not state.started else \
        "waiting for the floor's 'next'"
    players = f", {state.players} players" if state.players else ""
    away = f"; was away {state.away_s:.1f} s (counted as played: 'add' it back or 'keep')" if state.away_s else ""
    said = f"tournament {state.id} ({state.title}): {where}, {left}, {how}{players}{away}"
    return said if online else said + "; UNREACHABLE: its clock's process is offline (this is its last state)"


class _Link:
    """A floor login's connection for one command: subscribed to ``reads`` before anything is sent."""

    def __init__(self, args, reads: list[str]):
        from shotclock.floor.client import floor_client

        self.args = args
        self.client, self.username = floor_client(args, f"shotclock-tournament-{uuid.uuid4().hex[:16]}")
        self.inbox: queue.Queue = queue.Queue()
        self._ready: queue.Queue = queue.Queue()
        self.client.on_connect = lambda c, u, f, rc, p: self._ready.put(rc) if rc.is_failure else \
            c.subscribe([(topic, 1) for topic in reads])
        self.client.on_subscribe = lambda c, u, mid, rcs, p: self._ready.put(0)
        self.client.on_message = lambda c, u, m: self.inbox.put((m.topic, m.payload))

    def __enter__(self) -> "_Link":
        from shotclock.floor.client import connect

        connect(self.client, self.args, keepalive=10)
        try:
            answer = self._ready.get(timeout=self.args.wait)
        except queue.Empty:
            self.__exit__()
            raise ShotclockError(f"no answer from the broker at {self.args.broker} within {self.args.wait:g} s") \
                from None
        if answer:
            self.__exit__()
            raise ShotclockError(f"the broker refused the connection ({answer}): check --credentials")
        return self

    def next(self, deadline: float):
        try:
            return self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def __exit__(self, *exc) -> None:
        self.client.disconnect()
        self.client.loop_stop()
