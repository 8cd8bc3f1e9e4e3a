"""The events' in-flight window and watermark (core/delivery.py), without a broker, a thread or a clock."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from shotclock.core.delivery import Delivery, Read


def rows(first, last):
    return [{"id": i} for i in range(first, last + 1)]


class Store:
    """The decision log as the outbox reads it: ids ``first`` … ``last`` (older ones archived)."""

    def __init__(self, first=1, last=0):
        self.first, self.last = first, last

    def rows_after(self, after, limit):
        return rows(max(after + 1, self.first), self.last)[:limit]


class Wire:
    """The sender thread's side, with message ids and a log of what was published."""

    def __init__(self, delivery, store):
        self.d, self.store = delivery, store
        self.mids = itertools.count(1)
        self.published: list[int] = []

    def send(self):
        """Publish whatever the delivery says, reading from the store when asked; return the mids."""
        mids = []
        while True:
            step = self.d.next()
            if isinstance(step, Read):
                self.d.read(step.after, self.store.rows_after(step.after, step.limit))
                continue
            if not step:
                return mids
            for row in step:
                mid = next(self.mids)
                self.d.sent(mid, row["id"])
                self.published.append(row["id"])
                mids.append(mid)


def test_nothing_goes_before_a_connection_and_the_window_bounds_what_is_in_flight():
    d, store = Delivery(window=3), Store(last=5)
    d.written(rows(1, 5))
    wire = Wire(d, store)
    assert wire.send() == [] and d.pending == 5
    d.connected()
    first = wire.send()
    assert wire.published == [1, 2, 3] and d.in_flight == 3
    d.acked(first[0])
    wire.send()
    assert wire.published == [1, 2, 3, 4] and d.delivered == 1


def test_the_watermark_moves_only_over_records_acknowledged_without_a_gap():
    d = Delivery(window=5)
    d.written(rows(1, 4))
    d.connected()
    wire = Wire(d, Store(last=4))
    m1, m2, m3, m4 = wire.send()
    assert d.acked(m3) == 3 and d.acked(m2) == 2 and d.delivered == 0
    assert d.acked(m1) == 1 and d.delivered == 3 and d.pending == 1
    assert d.acked(m4) == 4 and d.delivered == 4 and d.pending == 0
    assert d.acked(m4) is None  # a duplicate PUBACK: not one of ours any more


def test_a_reconnect_sends_again_what_was_not_acknowledged_and_ignores_old_pubacks():
    d = Delivery(window=10)
    d.written(rows(1, 4))
    d.connected()
    wire = Wire(d, Store(last=4))
    m1, m2, m3, m4 = wire.send()
    d.acked(m1)
    d.acked(m3)
    d.disconnected()
    assert d.next() == []
    d.connected()
    wire.send()
    assert wire.published == [1, 2, 3, 4, 2, 4]  # 3 the broker has: not again
    assert d.acked(m2) is None and d.delivered == 1  # a PUBACK from the old connection counts for nothing


def test_records_that_left_memory_are_read_back_from_the_store_in_batches():
    d = Delivery(delivered=0, window=2, batch=3, memory=2)
    d.written(rows(1, 6))  # memory keeps 5 and 6 only
    d.connected()
    assert d.next() == Read(0, 3)
    d.read(0, rows(1, 3))
    assert [r["id"] for r in d.next()] == [1, 2]
    wire = Wire(d, Store(last=6))
    mids = wire.send()
    for mid in mids:
        d.acked(mid)
    while d.pending:
        for mid in wire.send():
            d.acked(mid)
    assert wire.published == [1, 2, 3, 4, 5, 6] and d.delivered == 6


def test_records_gone_from_the_store_are_not_waited_for():
    # The log archived 1-3 before the network sent them: the watermark passes them, pending goes to 0.
    d, store = Delivery(delivered=0, newest=6), Store(first=4, last=6)
    d.connected()
    wire = Wire(d, store)
    for mid in wire.send():
        d.acked(mid)
    assert wire.published == [4, 5, 6] and d.delivered == 6 and d.pending == 0


def test_over_the_bound_the_oldest_are_skipped_and_counted():
    d = Delivery(bound=5)
    assert d.written(rows(1, 12)) == 7
    assert d.dropped == 7 and d.delivered == 7 and d.pending == 5
    d.connected()
    wire = Wire(d, Store(last=12))
    for mid in wire.send():
        d.acked(mid)
    assert wire.published == [8, 9, 10, 11, 12] and d.delivered == 12


def test_rows_the_store_has_beyond_what_was_reported_are_sent_too():
    d = Delivery(delivered=2, newest=3)
    d.connected()
    wire = Wire(d, Store(last=5))  # the writer's report of 4 and 5 is still on its way
    wire.send()
    assert wire.published == [3, 4, 5] and d.newest == 5


# -- the property: whatever happens, in whatever order, every record arrives and the watermark is right --

steps = st.lists(st.one_of(
    st.tuples(st.just("write"), st.integers(1, 30)),
    st.tuples(st.just("ack"), st.integers(0, 40)),        # which in-flight send the broker acknowledges
    st.tuples(st.just("ack_all"), st.just(0)),
    st.tuples(st.just("reconnect"), st.just(0)),
    st.tuples(st.just("disconnect"), st.just(0)),
    st.tuples(st.just("send"), st.just(0)),
), max_size=60)


@settings(max_examples=300, deadline=None)
@given(steps=steps, start=st.integers(0, 20), window=st.integers(1, 8), memory=st.integers(1, 50),
       batch=st.integers(1, 10))
def test_every_record_arrives_in_order_and_the_watermark_never_lies(steps, start, window, memory, batch):
    store = Store(first=1, last=start)
    d = Delivery(delivered=0, newest=start, window=window, memory=memory, batch=batch)
    wire = Wire(d, store)
    in_flight: dict[int, int] = {}  # mid → record id, as the broker sees it on this connection
    acked: set[int] = set()
    sends_this_connection: list[int] = []
    watermarks = [d.delivered]

    def publish():
        before = len(wire.published)
        mids = wire.send()
        for mid, record_id in zip(mids, wire.published[before:]):
            in_flight[mid] = record_id
            sends_this_connection.append(record_id)
        assert d.in_flight <= window

    for kind, n in steps:
        if kind == "write":
            first = store.last + 1
            store.last += n
            d.written(rows(first, store.last))
        elif kind == "ack" and in_flight:
            mid = sorted(in_flight)[n % len(in_flight)]
            acked.add(in_flight.pop(mid))
            d.acked(mid)
        elif kind == "ack_all":
            for mid in sorted(in_flight):
                acked.add(in_flight.pop(mid))
                d.acked(mid)
        elif kind == "reconnect":
            in_flight.clear()  # the old connection's PUBACKs are lost
            sends_this_connection.clear()
            d.connected()
        elif kind == "disconnect":
            d.disconnected()
        elif kind == "send":
            publish()
        # Sends within one connection go in increasing record order.
        assert sends_this_connection == sorted(sends_this_connection)
        # The watermark only grows, never passes a record the broker lacks, and counts what waits.
        assert d.delivered >= watermarks[-1]
        watermarks.append(d.delivered)
        assert all(i in acked for i in range(1, d.delivered + 1))
        assert d.pending == store.last - d.delivered
    # Connected and answered, everything gets there.
    d.connected()
    in_flight.clear()
    for _ in range(store.last + 2):
        publish()
        for mid in sorted(in_flight):
            acked.add(in_flight.pop(mid))
            d.acked(mid)
    assert d.delivered == store.last and d.pending == 0 and d.in_flight == 0
    assert acked == set(range(1, store.last + 1))


def test_end_to_end_the_archive_moves_the_watermark_and_a_reconnect_sends_what_it_lacks():
    # Issue 18, 6: a PUBACK means the broker has it, not that it is kept; the archive's word does.
    d = Delivery(end_to_end=True, window=10)
    d.written([{"id": i} for i in range(1, 5)])
    d.connected()
    for row in d.next():
        d.sent(100 + row["id"], row["id"])
    d.stored([3])  # the archive's word may come before the broker's PUBACK
    assert [d.acked(100 + i) for i in range(1, 5)] == [1, 2, 3, 4]
    assert (d.delivered, d.pending, d.next()) == (0, 4, [])  # all at the broker, none counted delivered
    d.stored([1])
    assert d.delivered == 1
    d.connected()  # a broker crash and restart: 2 and 4 go again (3 is in the archive)
    assert [row["id"] for row in d.next()] == [2, 4]
    d.set_end_to_end(False)  # the venue's collector retired: what the broker acknowledged is delivered
    d.sent(202, 2)
    d.sent(204, 4)
    d.acked(202), d.acked(204)
    assert (d.delivered, d.pending) == (4, 0)


def test_a_collector_back_online_gets_what_was_published_and_not_stored_again():
    """Behind a room broker's bridge the device's own connection holds while the venue broker restarts:
    the collector's return is the only sign that the published records may be lost."""
    d = Delivery(end_to_end=True, window=5)
    d.written([{"id": i} for i in (1, 2, 3)])
    d.connected()
    assert [r["id"] for r in d.next()] == [1, 2, 3]
    for key, record in ((11, 1), (12, 2), (13, 3)):
        d.sent(key, record)
        d.acked(key)
    d.stored([1])
    assert d.next() == []  # published, waiting for the archive's word
    d.resend()
    assert [r["id"] for r in d.next()] == [2, 3]
    d.disconnected()
    d.resend()  # offline: nothing to do until the next connection
    assert d.next() == []
