"""The link's sender thread: a thin shell around two pure objects.

Each round it takes what the other threads handed over (:class:`~shotclock.adapters.handover.Handover`),
tells the :class:`~shotclock.core.uplink.Uplink` (what to publish, the login, the outbox's failures) and the
:class:`~shotclock.core.delivery.Delivery` (which records are in flight, the watermark), publishes what they
say is due, moves the outbox's watermark and hands the screen a new
:class:`~shotclock.core.uplink.LinkStatus`. What it does itself is only the I/O: reading the login files,
the outbox (its SQLite connections belong to this thread alone), paho's publish, the log's lines.

Nothing ends it but the stop: a login file that cannot be read is read again (when it changes, or every
``LOGIN_RETRY`` s); an outbox that fails (a lock held too long, a damaged ``outbox.db``) is retried with a
doubling delay while state and acks still go, and the failure is shown (the screen's mark, the retained
status's ``degraded``) until it mends.
"""

from __future__ import annotations

import logging
import time

from shotclock.adapters.handover import Taken
from shotclock.adapters.mqtt_login import LoginProblem
from shotclock.core.delivery import Delivery, Read
from shotclock.core.inbound import parse_json
from shotclock.core.uplink import STOP_TIMEOUT, Uplink
from shotclock.core.wire import dumps, event_message

log = logging.getLogger("shotclock.network")


class Sender:
    """The sender thread of one :class:`~shotclock.adapters.mqtt.MqttLink` (``link``), with its ``outbox``."""

    def __init__(self, link, outbox):
        self.link = link
        self.outbox = outbox
        self.uplink = Uplink()
        self.delivery: Delivery | None = None  # made once the outbox could be read
        self.saved = 0  # the watermark as written to the outbox
        self.newest = 0  # the newest record handed over (while there is no delivery)
        self._stop_deadline: float | None = None  # set once stopping: the last records may go until then

    def run(self) -> None:
        """Rounds until the link stops; then what is left, for up to ``STOP_TIMEOUT``."""
        try:
            while (timeout := self.next_wait(time.monotonic())) is not None:
                if not self.guarded_round(timeout):
                    time.sleep(0.2)  # a fault that repeats at once must not spin the CPU the loop needs
        finally:
            self.close()

    def next_wait(self, now: float) -> float | None:
        """How long the next round may wait for something to be handed over; None: the sender is done (it
        was stopped, and the last records went, could not go, or ``STOP_TIMEOUT`` passed)."""
        if not self.uplink.stopping:
            return self.uplink.wait(now)
        if self._stop_deadline is None:
            self._stop_deadline = now + STOP_TIMEOUT
        if (self.uplink.online and self.delivery is not None and self.delivery.pending
                and not self.uplink.outbox_fault and now < self._stop_deadline):
            return 0.05  # a clean stop: let the last events go
        return None

    def close(self) -> None:
        """Close the outbox (from the thread that used it)."""
        try:
            self.outbox.close()
        except Exception:
            log.exception("the outbox could not be closed")

    def guarded_round(self, timeout: float) -> bool:
        """One round; whatever fails in it is logged and the sender goes on (the next round tries again).
        False when it failed."""
        try:
            self.round(self.link.handover.take(timeout))
        except Exception:
            log.exception("the network sender's round failed; it goes on")
            return False
        return True

    def round(self, taken: Taken) -> None:
        """Act on one hand-over: signals in order, then records, state and acks; send; report."""
        now = time.monotonic()
        self.try_login(now)
        for signal in taken.signals:
            self.on_signal(*signal)
        self.newest = max(self.newest, taken.newest)
        if self.delivery is not None:
            over = self.delivery.written(taken.rows, taken.newest)
            if over:
                log.error("outbox full: %d oldest records will not be delivered (they stay in the log)", over)
        if taken.state is not None:
            self.uplink.state(taken.state, taken.state_expiry)
        self.uplink.ack(*taken.acks)
        for message in self.uplink.outgoing():
            self.link.publish(message.leaf, message.payload, message.retain, message.expiry)
        if self.uplink.outbox_due(now):
            self.outbox_round(now)
        self.report(now)

    def try_login(self, now: float) -> None:
        """Read the login and start connecting, unless done or not due (see :meth:`Uplink.login_due`)."""
        if self.link.connecting or not self.uplink.login_due(now, self.link.settings.files_signature()):
            return
        try:
            username, password, context = self.link.settings.login()
        except LoginProblem as problem:
            if self.uplink.login_failed(problem.kind, problem.detail, now):
                log.error("floor network: %s; the table's clock runs without it, retrying when the file "
                          "changes", problem.detail)
            return
        if self.uplink.login_read():
            log.info("floor network: the login can be read now; connecting")
        self.link.connect(username, password, context)

    def outbox_round(self, now: float) -> None:
        """Open the delivery, send the records due and move the watermark. A failure leaves everything in
        memory as it was: the next try goes on from there."""
        try:
            if self.delivery is None:
                self.saved = self.outbox.delivered()
                self.delivery = Delivery(self.saved, max(self.outbox.newest(), self.newest),
                                         bound=self.link.outbox_max)
                self.delivery.set_end_to_end(self.uplink.end_to_end)
                if self.uplink.online:
                    self.delivery.connected()
            d = self.delivery
            if d.online:
                self.send_records()
            if d.delivered != self.saved:
                self.outbox.set_delivered(d.delivered)
                self.saved = d.delivered
        except Exception as exc:  # sqlite3.Error above all; whatever it is, the thread goes on
            self.outbox_failed(exc, now)
            return
        if self.uplink.outbox_ok():
            log.info("the outbox works again; records are being sent")

    def outbox_failed(self, exc: Exception, now: float) -> None:
        """Log the failure (once per cause), close the outbox's connections; a damaged ``outbox.db`` (only a
        watermark) is moved aside and made anew. The uplink says when to try again."""
        reason = f"outbox: {exc}" if str(exc) else f"outbox: {type(exc).__name__}"
        if reason != self.uplink.outbox_fault:
            log.error("the network's outbox failed (%s); state and acks still go, events wait; retrying", exc)
        try:
            self.outbox.close()
        except Exception:
            pass
        repair = getattr(self.outbox, "repair", None)
        repaired = repair is not None and repair()
        if repaired:
            if self.delivery is not None:  # what this run knows delivered still holds
                self.outbox.start_after = self.delivery.delivered
            log.error("outbox.db was damaged: moved aside; records not known to be delivered go again")
            self.delivery = None  # the watermark is read anew
        self.uplink.outbox_failed(reason, now, repaired)

    def on_signal(self, kind: str, *args) -> None:
        """One signal from another thread (see :meth:`Handover.signal`)."""
        d, u = self.delivery, self.uplink
        if kind == "connected":
            u.connected()
            if d is not None:
                d.connected()
        elif kind == "disconnected":
            if u.disconnected():
                log.warning("lost the broker (%s); records wait in the outbox", args[0])
            if d is not None:
                d.disconnected()
        elif kind == "refused":
            u.broker_refused(args[0])
        elif kind == "puback":
            mid, code = args
            record_id = d.acked(mid) if d is not None else None
            if record_id is not None and code >= 0x80:
                u.broker_refused(f"event refused by the broker (reason {code})")
                log.error("the broker refused event %d (reason code %d): check the ACL", record_id, code)
        elif kind == "stored":
            seq = u.stored_seq(parse_json(args[0]))
            if d is not None and seq is not None:
                d.stored([seq])
        elif kind == "collector":
            # A collector's retained status (any): the venue keeps an archive, so a record is delivered only once
            # the archive has it. None (its status removed): the broker's PUBACK is the word again.
            resend = u.collector(parse_json(args[0]) if args[0] else None)
            if d is not None:
                d.set_end_to_end(u.end_to_end)
                if resend:
                    d.resend()
        elif kind == "clone":
            if u.clone(time.monotonic()):
                log.error("another device uses table %s's identity%s (a cloned SD card, or two devices given one "
                          "table_id): give each its own table id and credential", self.link.settings.table,
                          f" (boot {args[0]})" if args[0] else ", and took this one's session")
        elif kind == "taken":
            u.taken(args[0], time.monotonic())
            log.error("the broker says another connection with table %s's credential took its session (%s): a "
                      "cloned SD card, or the credential copied; waiting before taking it back (the two take turns)",
                      self.link.settings.table, args[0])
        elif kind == "restatus":
            u.restatus()
        elif kind == "stop":
            u.stopping = True

    def report(self, now: float) -> None:
        """The new :class:`LinkStatus` for the screen, and the retained status's ``degraded`` when it changed."""
        d = self.delivery
        pending = d.pending if d is not None else max(0, self.newest - self.saved)
        self.link.set_status(self.uplink.status(pending, d.dropped if d is not None else 0, now))
        degraded = self.uplink.status_due()
        if degraded is not None:
            self.link.publish("status", self.link.online_status(degraded), retain=True)

    def send_records(self) -> None:
        """Publish the records the delivery says are due, reading them from the outbox when asked."""
        d, link = self.delivery, self.link
        while True:
            step = d.next()
            if isinstance(step, Read):
                d.read(step.after, self.outbox.rows_after(step.after, step.limit))
                continue
            if not step:
                return
            for row in step:
                message = event_message(link.settings.table, row.get("boot", link.boot), row)
                self.uplink.sent_boots.add(message["boot"])
                info = link.publish("event", dumps(message))
                d.sent(info.mid, row["id"])
