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
import time

from shotclock import __version__
from shotclock.core.engine import RUNNING
from shotclock.core.view import network_mark
from shotclock.core.wire import (RecentIds, Refusal, ack_message, check_command, dumps, state_key,
                                 state_message)

log = logging.getLogger("shotclock.network")


class NetworkPresenter:
    """Hands each round's state, records and command acks to an :class:`~shotclock.adapters.mqtt.MqttLink`.

    :param link: the started link.
    :param table: the table id in the topics.
    :param name: the table's name on its screen.
    :param language: the screen's language (for the dashboard's words).
    :param interval: seconds between state messages while a clock runs.
    """

    def __init__(self, link, table: str, name: str, language: str, interval: float = 1.0):
        self.link = link
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
        """Offer the state when it changed (or the heartbeat is due), and the acks of floor commands."""
        status = self.link.status
        network = {"outbox": status.pending}
        if status.dropped:
            network["dropped"] = status.dropped
        if status.clone:
            network["clone"] = True  # the dashboard says so: another device uses this table's identity
        message = state_message(round.state, round.now, self.table, self.link.boot, self.seq + 1, self.name,
                                round.faults, network, self.language)
        key = state_key(message)
        self._running = round.state.phase == RUNNING
        due = self._sent_at is None or (self._running and round.now >= self._sent_at + self.interval - 0.01)
        if key != self._key or due:
            self.seq += 1
            self.link.offer_state(dumps(message))
            self._key = key
            self._sent_at = round.now
        for ack in getattr(round, "acks", ()):
            self._ack(ack)
        self.shown_status = status

    def _ack(self, ack) -> None:
        reason = ack.ignored
        outputs = [o.record() for o in ack.outputs if o.TYPE != "ignored"]
        self.link.offer_ack(dumps(ack_message(self.table, self.link.boot, ack.command,
                                              "ignored" if reason else "done", reason or "", outputs, self.seq)))

    def mark(self) -> str:
        """The screen's small network mark now (the builder hands this to each screen)."""
        status = self.link.status
        return network_mark(status.connected, status.pending, self.language, status.clone)

    def next_wake(self, now: float) -> float | None:
        """While a clock runs: when the next state heartbeat is due."""
        if self._running and self._sent_at is not None:
            return self._sent_at + self.interval
        return None


class CommandGate:
    """Checks each incoming command on paho's thread; passes the good ones to the loop.

    A refused command (stale, replayed, malformed, unknown) never reaches the engine: it is
    acknowledged as refused at once and written to the decision log by the recorder.

    :param post: the loop's thread-safe ``post``.
    :param make_command: builds the core's command input from (t, request).
    :param link: for the refusal's ack.
    :param note: records a refusal in the decision log (thread-safe), or None.
    """

    def __init__(self, post, make_command, link, table: str, max_age: float, clock=time.monotonic,
                 wallclock=time.time, note=None):
        self.post = post
        self.make_command = make_command
        self.link = link
        self.table = table
        self.max_age = max_age
        self.clock = clock
        self.wallclock = wallclock
        self.note = note
        self.recent = RecentIds(keep_seconds=2 * max_age + 60)

    def __call__(self, payload: bytes, properties=None) -> None:
        t = self.clock()
        result = check_command(payload, t, int(self.wallclock() * 1000), self.max_age, self.recent)
        if isinstance(result, Refusal):
            log.warning("refused a floor command (%s): %s", result.reason, result.detail)
            # Noted before the ack goes out: whoever sees the ack can count on the log to hold the refusal.
            if self.note:
                self.note({"t": t, "type": "refused", "data": {"id": result.id, "sender": result.sender,
                                                               "command": result.name, "reason": result.reason,
                                                               "detail": result.detail}})
            self.link.offer_ack(dumps(ack_message(self.table, self.link.boot, result, "refused",
                                                  f"{result.reason}: {result.detail}")))
            return
        self.post(self.make_command(t, result))


def open_link(config, boot: str):
    """The MQTT link when ``[network] enabled`` (made, not started), else None.

    Reads the credentials file: an unreadable one raises :class:`~shotclock.errors.ShotclockError`
    before anything is opened.
    """
    if not config["network.enabled"]:
        return None
    from shotclock.adapters.mqtt import LinkSettings, MqttLink

    return MqttLink(LinkSettings.from_config(config), boot,
                    status_extra={"name": config["table"], "mode": config["mode"], "version": __version__},
                    outbox_max=config["network.outbox_max"])


def start_network(link, device, config, recorder=None) -> NetworkPresenter:
    """Start ``link`` for ``device`` and return the loop listener that feeds it.

    The link's outbox is the decision log (or, without one, memory); floor commands go through a
    :class:`CommandGate` into the device's loop, and a change of the connection wakes the loop. A
    broker that cannot be reached is no error: the link keeps trying, and the screen shows the
    waiting records.
    """
    from shotclock.adapters.outbox import LogOutbox, MemoryOutbox

    s = link.settings
    if recorder is not None:
        outbox = LogOutbox(recorder.state_dir, start_after=recorder.first_id - 1)
    else:
        outbox = MemoryOutbox(config["network.outbox_max"])
    gate = CommandGate(device.loop.post, make_command, link, s.table, config["network.command_max_age"],
                       clock=device.loop.clock, note=_noter(recorder, device.loop.waker))
    presenter = NetworkPresenter(link, s.table, config["table"], config["language"], config["network.state_interval"])
    link.start(outbox, on_command=gate, on_status_change=device.loop.waker.wake)
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
    from shotclock.core.inputs import Command

    return Command(t, request.name, id=request.id, sender=request.sender, facing_bet=request.facing_bet,
                   seat=request.seat, player=request.player, bank=request.bank, chips=request.chips,
                   seconds=request.seconds, players=request.players)
