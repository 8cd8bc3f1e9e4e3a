"""A simulated table's MQTT link on the fleet's loop: the device's link, without its two threads.

:class:`LoopLink` is :class:`~shotclock.adapters.mqtt.MqttLink` -- the same client id, login, Last Will,
subscriptions, status, state, events and acks, the same :class:`~shotclock.adapters.sender.Sender`
deciding what to publish -- with paho's network thread and the sender thread replaced by a
:class:`~shotclock.floor.fleet_loop.FleetLoop` (asyncio): paho's documented external-loop interface
(``loop_read``, ``loop_write``, ``loop_misc``, ``socket()`` and the socket callbacks) on the loop's readers
and writers, paho's own ``reconnect`` on one of the loop's connector threads (it waits for the handshake), and
a sender round whenever something is handed over or the sender's wait runs out. Only paho's public API is
used. The broker sees what it sees of a device; the simulator pays for one thread, not three per table.
"""

from __future__ import annotations

import logging
import ssl
import threading

from shotclock.adapters.handover import Handover
from shotclock.adapters.mqtt import MqttLink
from shotclock.adapters.mqtt_login import no_delay
from shotclock.core.uplink import STOP_TIMEOUT

log = logging.getLogger("shotclock.network")


class LoopLink(MqttLink):
    """One table's link, run by ``loop`` (a :class:`~shotclock.floor.fleet_loop.FleetLoop`).

    Made like an :class:`MqttLink` (``open_link(..., make_link=lambda *a, **k: LoopLink(loop, *a, **k))``);
    ``offer_*`` may be called from any thread, :meth:`stop` from any thread but the loop's.
    """

    def __init__(self, loop, *args, on_arrival=None, **kwargs):
        """``on_arrival(table, payload)``: called on the loop's thread as each floor command is read from the
        socket, before the table acts on it (``shotclock fleet --arrivals``: when a command reached a table)."""
        super().__init__(*args, **kwargs)
        self.loop = loop
        self.on_arrival = on_arrival
        self.handover = Handover(on_put=self._wanted)
        self.sender = None
        self._round_wanted = False  # a sender round is asked for (any thread sets it, the loop clears it)
        self._round_timer = None  # the round the sender's wait asked for
        self._reconnect_timer = None
        self._delay: float | None = None  # paho's reconnect back-off, as its own loop counts it
        self._attempting = False  # a connector thread is in paho's reconnect: the loop leaves the client alone
        self._watching_write = False  # the socket's buffer was full: the loop waits until it can be written
        self._ending = False  # the sender is done: say offline, disconnect, never connect again
        self._closing = None  # the clean stop's offline status (paho's message info), until its PUBACK
        self._disconnecting = False
        self._clean = True  # the stop says offline (False: as a crash would, the Last Will says it)
        self._stopped = threading.Event()  # the link is done: disconnected, its outbox closed
        self.up = False  # connected now, as paho last said (the loop's thread writes it; anyone reads it)
        self.was_up = False  # connected at least once

    def make_client(self, client_id: str):
        """The device's client, its socket on the fleet's loop (paho's socket callbacks)."""
        client = super().make_client(client_id)
        client.on_socket_open = self._socket_open
        client.on_socket_close = self._socket_close
        client.on_socket_register_write = self._register_write
        client.on_socket_unregister_write = self._unregister_write
        return client

    # -- any thread ---------------------------------------------------------------------------

    def start(self, outbox, on_command=None, on_status_change=None, on_room_state=None) -> None:
        """Start sending (and, once the login is read, connecting) on the loop; returns at once."""
        from shotclock.adapters.sender import Sender

        self.take_callbacks(on_command, on_status_change, on_room_state)
        self.sender = Sender(self, outbox)
        self._wanted()

    def stop(self, clean: bool = True, wait: bool = True) -> None:
        """Send what is left (up to ``STOP_TIMEOUT``), say offline (``clean``), disconnect, close the outbox.
        ``wait=False``: return at once (:meth:`wait_stopped` waits); a fleet stops every table first."""
        self._clean = clean
        if self.sender is None:
            self._stopped.set()
        self.handover.signal("stop")
        if wait:
            self.wait_stopped()

    def wait_stopped(self, timeout: float = 2 * STOP_TIMEOUT + 5) -> bool:
        """Wait until the link is done; False when it was not in ``timeout`` s."""
        return self._stopped.wait(timeout)

    def _wanted(self) -> None:
        """Something was handed over: ask the loop for a sender round (one, however many puts)."""
        if not self._round_wanted and self.sender is not None:
            self._round_wanted = True
            self.loop.call_soon(self._round)

    # -- the loop's thread: the sender ---------------------------------------------------------

    def _round(self) -> None:
        self._round_wanted = False
        sender = self.sender
        if sender is None or self._ending:
            return
        self._run_round()

    def _timed_round(self) -> None:
        self._round_timer = None  # it ran
        self._round()

    def _run_round(self) -> None:
        sender = self.sender
        sender.guarded_round(0)
        wait = sender.next_wait(self.loop.clock())
        timer = self._round_timer
        if wait is None:
            if timer is not None:
                timer.cancel()
            self._sender_done()
            return
        when = self.loop.clock() + wait
        if timer is not None and timer.when() <= when:
            return  # a round that comes sooner than needed only waits again: the timer stands
        if timer is not None:
            timer.cancel()
        self._round_timer = self.loop.call_at(when, self._timed_round)

    def connect(self, username: str, password: str, context: ssl.SSLContext | None) -> None:
        """The sender read the login: connect now (paho's reconnect on a connector thread, the rest on the loop)."""
        self.set_login(username, password, context)
        self._connecting = True
        self._attempt()

    def _sender_done(self) -> None:
        """The sender stopped: close the outbox; say offline (a clean stop), then disconnect."""
        self._ending = True
        self.sender.close()
        self._cancel_reconnect()
        self._wind_down()

    def _wind_down(self) -> None:
        if self._attempting:
            return  # the connector's attempt ends first (:meth:`_attempted` comes back here)
        if not self._connecting or self.client.socket() is None:
            self._finish()
            return
        if self._clean and self._status.connected:
            self._closing = self.client.publish(self.topic("status"), self.offline_status(), qos=1, retain=True)
            self.loop.call_later(STOP_TIMEOUT, self._disconnect)  # no PUBACK in time: go anyway
        else:
            self._disconnect()

    def _disconnect(self) -> None:
        if self._disconnecting or self._stopped.is_set():
            return
        self._disconnecting = True
        if self.client.socket() is None:
            self._finish()
            return
        self.client.disconnect()  # the DISCONNECT is written at the end of this turn; paho then closes
        self.loop.call_later(1.0, self._finish)  # a socket that takes no more bytes: done all the same

    def _finish(self) -> None:
        if self._stopped.is_set():
            return
        self.loop.misc.discard(self)
        sock = self.client.socket() if self.client is not None else None
        if sock is not None:  # the DISCONNECT could not be written: close it here
            self._unwatch(sock)
            try:
                sock.close()
            except OSError:
                pass
        self._stopped.set()

    # -- the loop's thread: the connection -----------------------------------------------------

    def _attempt(self) -> None:
        """Connect (or connect again) on a connector thread: paho's ``reconnect`` opens the connection and waits
        for its handshake (a thousand tables connecting at once overflow the broker's listen queue, and a dropped
        handshake waits a second or more: the loop, waiting, let the connected tables' keep-alive run out). A broker
        that cannot be reached is tried again after paho's back-off."""
        self._reconnect_timer = None
        if self._ending or self._attempting or (self.sender is not None and self.sender.uplink.stopping):
            return
        self._attempting = True
        self.loop.connect_soon(self._reconnect)

    def _reconnect(self) -> None:
        """The connector thread: paho's reconnect (the loop leaves this client alone meanwhile); the outcome goes
        back to the loop."""
        try:
            self.client.reconnect()
            failed = None
        except Exception as exc:  # refused, unreachable, timed out, TLS refused, a bad host name: tried again
            failed = exc
        self.loop.call_soon(lambda: self._attempted(failed))

    def _attempted(self, failed: Exception | None) -> None:
        """The loop's thread, once the connector is done: the CONNECT goes, or the next try is set."""
        self._attempting = False
        if failed is not None:
            self._on_connect_fail(self.client, None)
            if self._ending:
                self._wind_down()
            else:
                self._retry()
            return
        if self._ending:
            self._wind_down()
            return
        self.flush()  # the CONNECT paho queued

    def _retry(self) -> None:
        """Try again after paho's reconnect delay (doubling from its minimum to its maximum, as its own loop:
        the link sets them, and sets them longer while another device uses this table's identity)."""
        if self._reconnect_timer is not None or self._ending or self._attempting:
            return
        low, high = self.reconnect_delay
        self._delay = low if self._delay is None else min(self._delay * 2, high)
        self._reconnect_timer = self.loop.call_later(self._delay, self._attempt)

    def _cancel_reconnect(self) -> None:
        if self._reconnect_timer is not None:
            self._reconnect_timer.cancel()
            self._reconnect_timer = None

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if not reason_code.is_failure:
            self._delay = None  # paho's back-off starts again after a connection
            self.up = self.was_up = True
        super()._on_connect(client, userdata, flags, reason_code, properties)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        self.up = False
        super()._on_disconnect(client, userdata, flags, reason_code, properties)
        if self._ending:
            self.loop.call_soon(self._finish)  # once paho has closed the socket
        else:
            self._retry()  # lost (or refused): paho's own loop would reconnect

    def _on_message(self, client, userdata, message):
        """paho read a message while the loop reads this table's socket: the table acts on it on the loop's next
        turn, after every socket that is ready now is read (the loop reads before it works). A release to 500
        tables then reaches them side by side, as it reaches 500 devices, where acting on each at once made the
        last table's reading wait for the others' work."""
        topic = message.topic
        if self.on_arrival is not None and (topic.endswith("/cmd") or "/cmd/by/" in topic or
                                            ("/tournament/" in topic and topic.endswith("/state"))):
            self.on_arrival(self.settings.table, message.payload)
        self.loop.call_soon(lambda: MqttLink._on_message(self, client, userdata, message))

    def _on_publish(self, client, userdata, mid, reason_code, properties):
        if self._ending:
            if self._closing is not None and mid == self._closing.mid:
                self._disconnect()
            return
        super()._on_publish(client, userdata, mid, reason_code, properties)

    def _socket_open(self, client, userdata, sock) -> None:
        """paho opened the connection (on the connector thread): the loop reads it from now on."""
        no_delay(client, userdata, sock)
        self.loop.call_soon(lambda: self._watch(sock))

    def _watch(self, sock) -> None:
        if client_socket(self.client) is sock:  # not closed meanwhile
            self.loop.add_reader(sock, self.readable)
            self.loop.misc.add(self)

    def _socket_close(self, client, userdata, sock) -> None:
        if self.loop.in_loop():
            self._unwatch(sock)
        else:  # paho's reconnect closing the last connection's socket, on the connector thread
            self.loop.call_soon(lambda: self._unwatch(sock))

    def _unwatch(self, sock) -> None:
        self.loop.remove_reader(sock)
        if self._watching_write:
            self._watching_write = False
            self.loop.remove_writer(sock)

    def _register_write(self, client, userdata, sock) -> None:
        """paho queued a packet: it is written at the end of the loop's turn."""
        if self.loop.in_loop():
            self.loop.want_write(self)
        else:  # the CONNECT, queued by reconnect on the connector thread: written once the attempt is over
            self.loop.call_soon(lambda: self.loop.want_write(self))

    def _unregister_write(self, client, userdata, sock) -> None:
        """paho wrote all it had (the loop's thread: ``loop_write``), or closes the socket."""
        if self._watching_write and self.loop.in_loop():
            self._watching_write = False
            self.loop.remove_writer(sock)

    # what the loop calls

    def readable(self) -> None:
        """The socket has bytes: read every packet in (a TLS socket may hold more than the loop sees)."""
        client = self.client
        if self._attempting:
            return
        client.loop_read()
        sock = client.socket()
        while sock is not None and getattr(sock, "pending", None) and sock.pending():
            client.loop_read()
            sock = client.socket()

    def flush(self) -> None:
        """Write what paho queued; wait for the socket to take the rest when its buffer is full."""
        client = self.client
        if self._attempting or client is None or client.socket() is None:
            return
        client.loop_write()
        sock = client.socket()
        if sock is not None and client.want_write() and not self._watching_write:
            self._watching_write = True
            self.loop.add_writer(sock, self.flush)

    def misc(self) -> None:
        """paho's keep-alive: a ping when due, a connection given up when the broker stopped answering."""
        if not self._attempting and self.client.socket() is not None:
            self.client.loop_misc()


def client_socket(client):
    """The client's socket now (paho's ``socket()``), or None."""
    return client.socket() if client is not None else None
