"""The device on the floor network: a loop listener that feeds the MQTT link, and its parts.

:class:`NetworkPresenter` runs on the loop's thread after the recorder. Each round it builds
the state message (pure code), hands it to the link when it changed or a second passed
while a clock runs, and sends the acks of the round's floor commands. The link does the
rest on its own threads; nothing here waits for the network. The builder
(:func:`shotclock.shell.device.attach_log_and_network`) makes the link with :func:`open_link`,
hands its :meth:`~shotclock.adapters.mqtt.MqttLink.offer_records` to the recorder, and starts
it with :func:`start_network`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import replace

import msgspec

from shotclock import __version__
from shotclock.core.engine import RUNNING
from shotclock.core.flood import FloodGuard, RefusedRecord
from shotclock.core.following import worth_taking
from shotclock.core.inbound import Refused
from shotclock.core.inputs import RoomHandForHand, TournamentNews
from shotclock.core.reasons import explain
from shotclock.core.roomstate import room_state_of
from shotclock.core.tournament_state import tournament_state_of
from shotclock.core.topics import hand_for_hand_scope, split_tournament_topic
from shotclock.core.view import network_mark
from shotclock.core.wire import (MALFORMED, RATE_LIMITED, RecentIds, Refusal, ack_message, check_command, dumps,
                                 in_scope, ms, state_key, state_message)

log = logging.getLogger("shotclock.network")
ROOM_STATE_SENDER = "hand-for-hand state"  # the flood guard's name for the venue's retained hand-for-hand states
TOURNAMENT_SENDER = "tournament clock"  # … and for the tournament clocks' retained states
TOURNAMENTS_KEPT = 64  # the tournament clocks whose last news a table remembers (a venue runs a few)


def state_expiry(interval: float) -> int:
    """Seconds a running clock's state lives at the broker: three heartbeats and a second, whole.

    Example::

        >>> state_expiry(1.0)
        4
    """
    return int(math.ceil(3 * interval + 1))


class DurableAcks:
    """A floor command's ack goes out only once the decision log has committed the records of its round.

    The floor takes an ack for "done and kept": a seat, a name, a top-up acked and then lost to a power cut
    would be a player's time the table no longer knows. The records reach the disk in the log writer's own
    process, after the loop has moved on; its report of the stream number committed up to
    (:meth:`committed`) lets the acks waiting for it go. While the log cannot be written (a fault, shown
    on screen and in the table's state) acks go at once: the command acted, and the floor must hear so.

    :param send: hands an ack's payload to the link (thread-safe).

    Example::

        >>> sent = []
        >>> acks = DurableAcks(sent.append)
        >>> acks.offer(b"seat", after=7); acks.committed(6); sent
        []
        >>> acks.committed(7); sent
        [b'seat']
    """

    def __init__(self, send):
        self._send = send
        self._lock = threading.Lock()  # offered on the loop's thread, committed on the writer's status thread
        self._held: list[tuple[int, bytes]] = []
        self._committed = 0
        self._failing = False

    def offer(self, payload: bytes, after: int | None) -> None:
        """Send ``payload`` once the records up to stream number ``after`` are committed (None: at once)."""
        with self._lock:
            hold = after is not None and after > self._committed and not self._failing
            if hold:
                self._held.append((after, payload))
        if not hold:
            self._send(payload)

    def committed(self, seq: int | None) -> None:
        """The log committed every record up to ``seq``; None: it cannot write (every held ack goes now)."""
        with self._lock:
            if seq is None:
                self._failing = True
                ready, self._held = self._held, []
            else:
                self._failing = False
                self._committed = max(self._committed, seq)
                ready = [h for h in self._held if h[0] <= self._committed]
                self._held = [h for h in self._held if h[0] > self._committed]
        for _, payload in ready:
            self._send(payload)

    @property
    def held(self) -> int:
        """Acks waiting for their records."""
        with self._lock:
            return len(self._held)


class NetworkPresenter:
    """Hands each round's state, records and command acks to an :class:`~shotclock.adapters.mqtt.MqttLink`.

    :param link: the started link.
    :param table: the table id in the topics.
    :param name: the table's name on its screen.
    :param language: the screen's language (for the dashboard's words).
    :param interval: seconds between state messages while a clock runs.
    :param note: logs a record (``t``, ``type``, ``data``) in the decision log with the next round; None: no log.
    """

    def __init__(self, link, table: str, name: str, language: str, interval: float = 1.0, gate=None,
                 recorder=None, note=None):
        self.link = link
        self.note = note
        self._takeovers = 0  # the link's takeovers of this table's session already in the decision log
        self.recorder = recorder  # the decision log's: an ack waits until its round's records are committed
        self.acks = DurableAcks(link.offer_ack)
        if recorder is not None:
            recorder.add_commit_listener(self.acks.committed)
        self.gate = gate  # its flood summaries are due at a time: the loop wakes for them
        self.table = table
        self.name = name
        self.language = language
        self.interval = interval
        self.seq = 0
        self._key = None
        self._sent_at: float | None = None
        self._running = False
        self.shown_status = None

    def update(self, round) -> None:
        """Offer the state when it changed (or the heartbeat is due), and the acks of floor commands: the acks go
        even when the state could not be offered (a command is answered whatever else fails), each once the
        log has committed its round's records (:class:`DurableAcks`)."""
        try:
            self._note_takeovers(round.now)
            self._offer_state(round)
        finally:
            for ack in getattr(round, "acks", ()):
                self._ack(ack)

    def _note_takeovers(self, now: float) -> None:
        """A ``session_taken`` record when the broker said another connection with this table's credential took
        its session (``reason``: the broker's words; ``count``: how often since the last record)."""
        status = self.link.status
        if status.takeovers > self._takeovers and self.note is not None:
            self.note({"t": now, "type": "session_taken",
                       "data": {"reason": status.taken, "count": status.takeovers - self._takeovers}})
        self._takeovers = status.takeovers

    def _offer_state(self, round) -> None:
        status = self.link.status
        network = {"outbox": status.pending}
        if status.dropped:
            network["dropped"] = status.dropped
        if status.clone:
            network["clone"] = True  # the dashboard says so: another device uses this table's identity
        if status.fault:
            network["fault"] = status.fault
        message = state_message(round.state, round.now, self.table, self.link.boot, self.seq + 1, self.name,
                                round.faults, network, self.language, heartbeat_ms=ms(self.interval))
        key = state_key(message)
        self._running = round.state.phase == RUNNING
        due = self._sent_at is None or (self._running and round.now >= self._sent_at + self.interval - 0.01)
        if key != self._key or due:
            self._sent_at = round.now  # before the offer: one that fails is tried again a heartbeat on, not at once
            self.seq += 1
            # A running clock's state expires at the broker a few heartbeats on: a table gone quiet leaves
            # no running clock retained for a page that connects later (docs/network.md, "state").
            self.link.offer_state(dumps(message), state_expiry(self.interval) if self._running else None)
            self._key = key
        self.shown_status = status

    def _ack(self, ack) -> None:
        reason = ack.ignored
        outputs = [o for o in ack.outputs if o.TYPE != "ignored"]
        # with the reason's code and parameters: a page says it in its own language
        message = ack_message(self.table, self.link.boot, ack.command, "ignored" if reason else "done", reason or "",
                              outputs, self.seq, explain(reason) if reason else None)
        self.acks.offer(dumps(message), self.recorder.handed_seq if self.recorder is not None else None)

    def mark(self) -> str:
        """The screen's small network mark now (the builder hands this to each screen)."""
        status = self.link.status
        return network_mark(status.connected, status.pending, self.language, status.fault, status.clone,
                            bool(status.taken))

    def next_wake(self, now: float) -> float | None:
        """While a clock runs: when the next state heartbeat is due."""
        wakes = [self.gate.next_summary() if self.gate is not None else None]
        if self._running and self._sent_at is not None:
            wakes.append(self._sent_at + self.interval)
        wakes = [w for w in wakes if w is not None]
        return min(wakes) if wakes else None


class CommandGate:
    """Checks each incoming command on paho's thread; passes the good ones to the loop.

    Every command gets an ack, whatever its payload holds. A refused command (replayed,
    malformed, unknown) never reaches the engine: it is acknowledged as refused at once and
    written to the decision log by the recorder. Past a sender's rate (a :class:`FloodGuard`) a
    command is refused as ``rate_limited`` and only counted; the recorder takes the counts as
    summary records (:meth:`summary_notes`), so a flood cannot fill the disk.

    :param post: the loop's thread-safe ``post``.
    :param make_command: builds the core's command input from (t, request).
    :param link: for the refusal's ack.
    :param note: records a refusal in the decision log (thread-safe), or None.
    :param max_age: seconds past which a difference between the floor's clock and this device's
        is worth a warning in the system log (it refuses nothing: see docs/network.md).
    :param scope: this table's (room, section): a command naming another room or section is not for it and is
        dropped unanswered (:func:`~shotclock.core.wire.in_scope`; the tables it is for answer).
    """

    SKEW_WARN_EVERY = 600.0  # seconds between warnings about the floor's clock

    def __init__(self, post, make_command, link, table: str, max_age: float = 5.0, clock=time.monotonic,
                 wallclock=time.time, note=None, guard: FloodGuard | None = None, scope: tuple[str, str] = ("", "")):
        self.post = post
        self.scope = scope
        self.make_command = make_command
        self.link = link
        self.table = table
        self.max_age = max_age
        self.clock = clock
        self.wallclock = wallclock
        self.note = note
        self.guard = guard or FloodGuard()
        self.recent = RecentIds(keep_seconds=2 * max_age + 60)
        self._lock = threading.Lock()  # the guard is shared with the loop's thread (summary_notes)
        self._skew_warned: float | None = None
        self._news: dict[str, TournamentNews] = {}  # the last news of each tournament handed to the loop

    def __call__(self, payload: bytes, properties=None) -> None:
        t = self.clock()
        try:
            result = check_command(payload, t, self.recent)
        except Exception as exc:  # check_command never raises; if it ever does, the command is still acked
            log.exception("a floor command could not be checked")
            result = Refusal(MALFORMED, f"could not be read ({type(exc).__name__})")
        with self._lock:
            allowed = self.guard.allow(result.sender, t)
        if not allowed:
            self._refuse(Refusal(RATE_LIMITED, "over this sender's rate of floor commands", result.id,
                                 result.sender, result.name), t, logged=False)
            return
        if isinstance(result, Refusal):
            self._refuse(result, t, logged=True)
            return
        if not in_scope(result, *self.scope):
            log.debug("a floor command for room %r, section %r is not for this table", result.room, result.section)
            return
        self._check_skew(result, t)
        self.post(self.make_command(t, result))

    def room_state(self, topic: str, payload: bytes) -> None:
        """The venue's hand-for-hand state of a scope, retained on the broker (paho's thread): read by the core
        (:func:`~shotclock.core.roomstate.room_state_of`, bounded, the topic's scope its own), and posted to the loop
        dated at its arrival when the scope covers this table; one that cannot be read is said in the system log.
        A flood of them is held to the rate of a sender's commands."""
        t = self.clock()
        clock = split_tournament_topic(topic)
        if clock is not None and clock[2] == "state":
            self.tournament_state(clock[1], payload, t)
            return
        scope = hand_for_hand_scope(topic)
        if scope is None:
            return
        with self._lock:
            allowed = self.guard.allow(ROOM_STATE_SENDER, t)
        if not allowed:
            return
        state = room_state_of(payload, scope[1], scope[2])
        if isinstance(state, Refused):
            log.warning("refused the hand-for-hand state on %s (%s): %s", topic, state.reason, state.detail)
        elif state is not None and state.covers(*self.scope):
            self.post(RoomHandForHand(t, state.on, state.hands, state.minutes, state.seq, state.room, state.section))

    def tournament_state(self, tournament: str, payload: bytes, t: float) -> None:
        """A tournament clock's retained state (paho's thread): read by the core (bounded), and posted to the loop
        dated at its arrival when the tournament has started and its scope covers this table and it changes what
        the table does (:func:`~shotclock.core.following.worth_taking`: a heartbeat that changes nothing is not
        logged); a tournament that covered the table and no longer does (cleared, another scope) is posted as gone.
        One that cannot be read is said in the system log. A flood of them is held to a sender's rate."""
        with self._lock:
            allowed = self.guard.allow(TOURNAMENT_SENDER, t)
        if not allowed:
            return
        state = tournament_state_of(payload)
        if isinstance(state, Refused) or (state is not None and state.id != tournament):
            log.warning("refused tournament %s's state: %s", tournament,
                        state.detail if isinstance(state, Refused) else "it names another tournament")
            return
        last = self._news.get(tournament)
        if state is not None and state.started and state.scope.covers(self.table, *self.scope):
            news = state.news(t)
        elif last is not None and not last.gone:
            news = replace(last, t=t, gone=True)
        else:
            return
        if worth_taking(last, news):
            self._news.pop(tournament, None)
            self._news[tournament] = news  # the newest last: a venue's tournaments, the oldest forgotten past a bound
            if len(self._news) > TOURNAMENTS_KEPT:
                self._news.pop(next(iter(self._news)))
            self.post(news)

    def summary_notes(self, now: float, final: bool = False) -> list[dict]:
        """The ``refused`` records summarising commands over the rate, due at ``now`` (thread-safe)."""
        with self._lock:
            summaries = self.guard.summaries(now, final)
        for s in summaries:
            log.warning("refused %d floor commands from %r over the rate in %.0f s", s.count, s.sender,
                        s.until - s.since)
        return [{"t": now, "type": "refused", "data": msgspec.to_builtins(RefusedRecord.of(s))} for s in summaries]

    def next_summary(self) -> float | None:
        """When the next summary is due (the loop wakes to log it)."""
        with self._lock:
            return self.guard.due()

    def _refuse(self, result: Refusal, t: float, logged: bool) -> None:
        if logged:
            log.warning("refused a floor command (%s): %s", result.reason, result.detail)
            # Noted before the ack goes out: whoever sees the ack can count on the log to hold the refusal.
            if self.note:
                record = RefusedRecord(id=result.id, sender=result.sender, command=result.name,
                                       reason=result.reason, detail=result.detail)
                self.note({"t": t, "type": "refused", "data": msgspec.to_builtins(record)})
        self.link.offer_ack(dumps(ack_message(self.table, self.link.boot, result, "refused",
                                              f"{result.reason}: {result.detail}")))

    def _check_skew(self, request, t: float) -> None:
        """Say (at most every ten minutes) when the floor's clock and this device's disagree: not a
        reason to refuse (freshness is the broker's message expiry), but worth knowing for the archive's times."""
        skew = self.wallclock() - request.sent_ms / 1000
        if abs(skew) > self.max_age and (self._skew_warned is None or t - self._skew_warned > self.SKEW_WARN_EVERY):
            self._skew_warned = t
            log.warning("the floor's clock (%s) differs from this device's by %+.1f s: is time sync set up? "
                        "(the command still acts)", request.sender, skew)


def login_file_problems(config, user: str) -> dict[str, str]:
    """Each problem of the ``[network]`` files the service would meet, keyed by the config key: a
    credentials file or CA file missing, not readable by ``user`` (the service's user), not TOML with a
    username and a password, or not PEM. Empty when all is well or the network is off."""
    from shotclock.adapters.mqtt_login import LoginProblem, read_credentials, tls_context
    from shotclock.errors import ShotclockError
    from shotclock.shell.files import unreadable_by

    problems = {}
    if not config.network.enabled:
        return problems
    files = {"network.credentials": config.network.credentials}
    if config.network.tls and config.network.ca_file:
        files["network.ca_file"] = config.network.ca_file
    for key, path in files.items():
        why = unreadable_by(path, user)
        if why:
            problems[key] = f"{path}: {why} (the service runs as {user})"
            continue
        try:
            if key == "network.credentials":
                read_credentials(path)
            else:
                tls_context(path)
        except (ShotclockError, LoginProblem) as exc:
            problems[key] = str(exc)
    return problems


def open_link(config, boot: str, make_link=None):
    """The MQTT link when ``[network] enabled`` (made, not started), else None.

    Reads no file: the link reads its credentials and CA files when it starts, on its own thread,
    and a mistake there is shown and retried, never raised (the table's clock never waits for the network).
    ``make_link``: the link's class or maker, with :class:`~shotclock.adapters.mqtt.MqttLink`'s arguments
    (None: that class; the fleet simulator's tables share one loop, :mod:`shotclock.floor.fleet_link`).
    """
    if not config.network.enabled:
        return None
    from shotclock.adapters.mqtt import MqttLink
    from shotclock.adapters.mqtt_login import LinkSettings

    return (make_link or MqttLink)(LinkSettings.from_config(config), boot,
                    status_extra={"name": config.table, "mode": config.mode, "version": __version__,
                                  # where the table stands, for the dashboard's filters (only when set)
                                  **{k: v for k, v in (("room", config.network.room),
                                                       ("section", config.network.section)) if v},
                                  # the named rule sets it can run, for the dashboard's rule set choice
                                  **({"rule_sets": sorted(config.rule_sets)} if config.rule_sets else {})},
                    outbox_max=config.network.outbox_max)


def start_network(link, device, config, recorder=None) -> NetworkPresenter:
    """Start ``link`` for ``device`` and return the loop listener that feeds it.

    The link's outbox is the decision log (or, without one, memory); floor commands and the venue's hand-for-hand
    states go through a :class:`CommandGate` into the device's loop, and a change of the connection wakes the loop. A
    broker that cannot be reached is no error: the link keeps trying, and the screen shows the
    waiting records.
    """
    from shotclock.adapters.outbox import LogOutbox, MemoryOutbox

    s = link.settings
    if recorder is not None:
        outbox = LogOutbox(recorder.state_dir, start_after=recorder.first_id - 1)
    else:
        outbox = MemoryOutbox(config.network.outbox_max)
    gate = CommandGate(device.loop.post, make_command, link, s.table, config.network.command_max_age,
                       clock=device.loop.clock, note=_noter(recorder, device.loop.waker),
                       scope=(config.network.room, config.network.section))
    if recorder is not None:
        recorder.add_note_source(gate.summary_notes)  # a flood's summaries go in the log, the last at the stop
    presenter = NetworkPresenter(link, s.table, config.table, config.language, config.network.state_interval,
                                 gate=gate, recorder=recorder, note=_noter(recorder, device.loop.waker))
    link.start(outbox, on_command=gate, on_status_change=device.loop.waker.wake, on_room_state=gate.room_state)
    log.info("floor network: %s:%d, venue %r, table %r", s.host, s.port, s.venue, s.table)
    return presenter


def _noter(recorder, waker):
    """A thread-safe way to log a record now: hand it to the recorder and wake the loop to write it."""
    if recorder is None:
        return None

    def note(record):
        recorder.note(record)
        waker.wake()
    return note


def make_command(t: float, request):
    """The core's floor-command input for a checked request, dated ``t`` (arrival)."""
    from shotclock.core.inputs import Command, args_of

    return Command(t, request.name, id=request.id, sender=request.sender, **args_of(request))
