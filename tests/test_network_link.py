"""The MQTT link's threads only move bytes: what any thread offers arrives, and the builder wires it explicitly."""

import json
import threading
import time

from mqtt_broker import Inbox
from shotclock.adapters.handover import Handover
from shotclock.adapters.mqtt import MqttLink
from shotclock.adapters.mqtt_login import LinkSettings
from shotclock.adapters.outbox import MemoryOutbox
from shotclock.core.topics import table_topic

THREADS = 4
PER_THREAD = 500


def wait_until(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


def test_the_handover_loses_nothing_between_threads():
    # Several threads put states and records while one takes, as the loop, the log writer's status
    # thread and paho's thread do against the sender thread.
    handover = Handover(rows_kept=THREADS * PER_THREAD)
    seen_rows, seen_signals, states = [], [], []
    done = threading.Event()

    def take():
        while True:
            finished = done.is_set()
            taken = handover.take(0.01)
            seen_rows.extend(r["id"] for r in taken.rows)
            seen_signals.extend(taken.signals)
            if taken.state is not None:
                states.append(taken.state)
            if finished:
                return

    def put(n):
        for k in range(PER_THREAD):
            handover.put_state(f"{n}/{k}".encode())
            handover.put_rows([{"id": n * PER_THREAD + k + 1}])
            handover.signal("puback", n, k)

    taker = threading.Thread(target=take)
    taker.start()
    putters = [threading.Thread(target=put, args=(n,)) for n in range(THREADS)]
    for t in putters:
        t.start()
    for t in putters:
        t.join()
    handover.put_state(b"last")
    done.set()
    taker.join(60)
    assert sorted(seen_rows) == list(range(1, THREADS * PER_THREAD + 1))  # every record, once
    assert states[-1] == b"last"  # the newest state is the one that stays
    for n in range(THREADS):  # each thread's signals, in the order it gave them
        assert [k for kind, m, k in seen_signals if m == n] == list(range(PER_THREAD))


def test_the_oldest_records_past_the_bound_leave_their_ids():
    handover = Handover(rows_kept=3)
    handover.put_rows([{"id": i} for i in range(1, 8)])
    taken = handover.take(0)
    assert [r["id"] for r in taken.rows] == [5, 6, 7] and taken.newest == 7  # 1-4 are read back from the log


def test_states_and_records_offered_from_many_threads_all_reach_the_broker(broker):
    inbox = Inbox(broker.client("collector"), table_topic("test", "1", "event"), table_topic("test", "1", "state"))
    settings = LinkSettings("127.0.0.1", broker.port, "test", "1", "table-1", broker.passwords["table-1"])
    outbox = MemoryOutbox()
    rows = [outbox.add({"type": "beep", "t": float(i), "data": {"remaining": 0}, "boot": "00000000000a"})
            for i in range(THREADS * PER_THREAD)]
    link = MqttLink(settings, "00000000000a")
    link.offer_records(rows[:10])  # before the start: kept for the sender
    link.start(outbox)
    try:
        def offer(n):
            mine = rows[10:][n::THREADS]
            for k, row in enumerate(mine):
                link.offer_records([row])
                link.offer_state(json.dumps({"thread": n, "k": k}).encode())

        threads = [threading.Thread(target=offer, args=(n,)) for n in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        link.offer_state(b'{"last": true}')
        assert inbox.wait_for(lambda m: m.topic.endswith("/state") and m.payload == b'{"last": true}') is not None
        expected = set(range(1, len(rows) + 1))
        got = lambda: {json.loads(m.payload)["seq"] for m in list(inbox.messages) if m.topic.endswith("/event")}
        assert wait_until(lambda: got() >= expected), f"missing: {sorted(expected - got())[:10]}"
        assert wait_until(lambda: link.status.connected and link.status.pending == 0)
        assert outbox.delivered() == len(rows)
        states = [m.payload for m in list(inbox.messages) if m.topic.endswith("/state")]
        assert states[-1] == b'{"last": true}'
    finally:
        link.stop()
    # A newcomer gets the last state as the retained one.
    fresh = Inbox(broker.client("overlay"), table_topic("test", "1", "state"))
    assert fresh.wait_for(lambda m: m.retain).payload == b'{"last": true}'


class FakeScreen:
    """A screen listener: draws nothing, shows what the builder handed it."""

    def __init__(self):
        self.corner = None
        self.rounds = 0

    def set_corner(self, mark):
        self.corner = mark

    def update(self, round):
        self.rounds += 1


def test_the_builder_hands_each_listener_what_it_needs(tmp_path):
    from shotclock.config.loading import parse_config
    from shotclock.shell.device import build_device
    from shotclock.shell.lights import LightsPresenter
    from shotclock.shell.network import NetworkPresenter
    from shotclock.shell.recorder import Recorder

    from mqtt_broker import free_port

    credentials = tmp_path / "mqtt.toml"
    credentials.write_text('username = "table-1"\npassword = "x"\n')
    config = parse_config(f'table = "Tafel 1"\n[network]\nenabled = true\nhost = "127.0.0.1"\nport = {free_port()}\n'
                          f'tls = false\nvenue = "test"\ntable_id = "1"\ncredentials = "{credentials}"\n')
    screen, report = FakeScreen(), FakeScreen()
    device = build_device(config, "mock", screens=[screen], extra=[report], log_dir=tmp_path / "state")
    try:
        listeners = device.loop.listeners
        kinds = [type(l) for l in listeners]
        assert kinds[:3] == [LightsPresenter, Recorder, NetworkPresenter]  # stored, then sent, then shown
        assert listeners[3:5] == [report, screen] and listeners[-1] is device.notifier
        recorder, network = listeners[1], listeners[2]
        assert recorder.on_written == device.link.offer_records  # the log tells the link what it wrote
        assert network.link is device.link and report.corner is None
        assert screen.corner == network.mark and screen.corner().startswith("geen netwerk")  # no broker there
    finally:
        device.close()
