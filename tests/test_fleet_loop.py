"""The fleet's loop (asyncio in a thread): timers, calls from other threads and sockets on one thread, reading
before working, connecting off the loop, and it survives what fails."""

import logging
import socket
import threading

from helpers import wait_until
from shotclock.floor.fleet_loop import READ_PASSES, TURN_SLICE, FleetLoop


def running_loop():
    loop = FleetLoop()
    loop.start()
    return loop


def test_calls_from_other_threads_and_timers_run_on_the_loops_thread_in_time_order():
    loop = running_loop()
    ran = []
    try:
        def schedule():
            now = loop.clock()
            for delay, name in ((0.06, "third"), (0.02, "first"), (0.04, "second")):
                loop.call_at(now + delay, lambda name=name: ran.append((name, threading.current_thread().name)))
            cancelled = loop.call_later(0.01, lambda: ran.append(("cancelled", "")))
            cancelled.cancel()

        caller = threading.Thread(target=loop.call_soon, args=(schedule,))
        caller.start()
        caller.join()
        wait_until(lambda: len(ran) == 3, what="three timers")
        assert ran == [("first", "fleet-loop"), ("second", "fleet-loop"), ("third", "fleet-loop")]
    finally:
        loop.stop()
    assert not loop.thread.is_alive()


def test_many_threads_calling_at_once_lose_no_call():
    loop = running_loop()
    count = []
    try:
        def hammer():
            for _ in range(500):
                loop.call_soon(lambda: count.append(1))

        threads = [threading.Thread(target=hammer) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wait_until(lambda: len(count) == 4000, what="every call run")
    finally:
        loop.stop()


def test_a_failing_callback_is_logged_once_and_the_loop_goes_on(caplog):
    loop = running_loop()
    after = threading.Event()
    try:
        with caplog.at_level(logging.ERROR, logger="shotclock.fleet"):
            for _ in range(3):
                loop.call_soon(lambda: 1 / 0)
            loop.call_soon(after.set)
            assert after.wait(10)
        assert loop.failures["a call"] == 3
        said = [r for r in caplog.records if "failed" in r.getMessage()]
        assert len(said) == 1 and "ZeroDivisionError" in said[0].exc_text
        timed = threading.Event()
        with caplog.at_level(logging.ERROR, logger="shotclock.fleet"):
            loop.call_soon(lambda: (loop.call_later(0, lambda: {}["missing"]), loop.call_later(0.01, timed.set)))
            assert timed.wait(10)
        assert loop.failures["a timer or a socket's callback"] == 1
        assert any(r.exc_text and "KeyError" in r.exc_text for r in caplog.records)
        assert loop.thread.is_alive()
    finally:
        loop.stop()


def test_a_readable_socket_wakes_its_reader_and_writes_wait_for_the_end_of_the_turn():
    loop = running_loop()
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    got, written = [], []

    class Owner:
        def readable(self):
            got.append(ours.recv(100))
            loop.want_write(self)  # an answer, written when the turn ends
            loop.call_soon(lambda: written.append(False))  # work of this turn, done before the write

        def flush(self):
            written.append(True)
            ours.send(b"pong")

    try:
        owner = Owner()
        loop.call_soon(lambda: loop.add_reader(ours, owner.readable))
        theirs.sendall(b"ping")
        theirs.settimeout(10)
        assert theirs.recv(100) == b"pong"
        assert got == [b"ping"] and written == [False, True]
        removed = []
        loop.call_soon(lambda: (loop.remove_reader(ours), removed.append(loop.aio.remove_reader(ours))))
        wait_until(lambda: removed, what="the reader removed")
        assert removed == [False]  # nothing left to remove: no longer watched
    finally:
        loop.stop()
        ours.close()
        theirs.close()


def test_the_loop_ends_with_its_last_table():
    loop = FleetLoop()
    loop.join()
    loop.join()
    assert loop.thread.is_alive()
    loop.leave()
    assert loop.thread.is_alive()
    loop.leave()
    loop.thread.join(10)
    assert not loop.thread.is_alive()


def test_the_loop_reads_every_socket_that_became_ready_before_it_does_the_work_a_read_asked_for():
    # A command to 500 tables: the broker's copies arrive one after another, and the last table must read its
    # copy as soon as it is there, not after the work the first ones' copies asked for.
    loop = running_loop()
    first, first_far = socket.socketpair()
    second, second_far = socket.socketpair()
    for s in (first, second):
        s.setblocking(False)
    order = []

    class First:
        def readable(self):
            first.recv(100)
            loop.call_soon(lambda: order.append("the first table's work"))
            second_far.sendall(b"copy")  # the next copy arrives while the loop reads this one

    class Second:
        def readable(self):
            second.recv(100)
            order.append("the second table read")

    try:
        added = threading.Event()
        loop.call_soon(lambda: (loop.add_reader(first, First().readable), loop.add_reader(second, Second().readable),
                                added.set()))
        assert added.wait(10)
        first_far.sendall(b"copy")
        wait_until(lambda: len(order) == 2, what="both sockets read and the work done")
        assert order == ["the second table read", "the first table's work"]
    finally:
        loop.stop()
        for s in (first, first_far, second, second_far):
            s.close()


def test_a_long_queue_of_work_leaves_the_sockets_their_turn():
    # Five hundred tables' work after a release: a copy that arrives meanwhile is read after a slice of it,
    # not after all of it.
    loop = running_loop()
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    order = []

    def work(n):
        if n == 0:
            theirs.sendall(b"copy")
        until = loop.clock() + TURN_SLICE  # each call takes a whole slice: the turn ends after it
        while loop.clock() < until:
            pass
        order.append(n)

    try:
        added = threading.Event()
        loop.call_soon(lambda: (loop.add_reader(ours, lambda: order.append(ours.recv(100))), added.set()))
        assert added.wait(10)
        for n in range(20):
            loop.call_soon(lambda n=n: work(n))
        wait_until(lambda: len(order) == 21, what="the work done and the copy read")
        assert order.index(b"copy") <= 2, order  # read after the first slice (or two), not after the twentieth
        assert [n for n in order if n != b"copy"] == list(range(20))  # the work in its order
    finally:
        loop.stop()
        ours.close()
        theirs.close()


def test_a_connection_is_opened_on_a_connector_thread_and_the_loop_goes_on_meanwhile():
    loop = running_loop()
    opening, opened, ran = threading.Event(), threading.Event(), []
    try:
        def connect():  # paho's reconnect, waiting for a handshake
            ran.append(threading.current_thread().name)
            opening.set()
            opened.wait(10)
            loop.call_soon(lambda: ran.append("back on the loop"))

        loop.connect_soon(connect)
        assert opening.wait(10)
        during = threading.Event()
        loop.call_soon(during.set)
        assert during.wait(10)  # the loop runs while the connection waits
        opened.set()
        wait_until(lambda: len(ran) == 2, what="the outcome back on the loop")
        assert ran[0].startswith("fleet-connect") and ran[1] == "back on the loop"
    finally:
        opened.set()
        loop.stop()
    assert not loop.thread.is_alive()


def test_the_loop_keeps_reading_while_copies_keep_coming_before_it_works():
    # The broker's fan-out: each copy arrives while the loop reads the one before. The loop reads them all (up to
    # READ_PASSES rounds of reading in a row) before the work the first one asked for.
    loop = running_loop()
    pairs = [socket.socketpair() for _ in range(READ_PASSES)]
    for near, _ in pairs:
        near.setblocking(False)
    order = []

    def reader(n):
        def read():
            pairs[n][0].recv(100)
            order.append(n)
            if n == 0:
                loop.call_soon(lambda: order.append("work"))
            if n + 1 < len(pairs):
                pairs[n + 1][1].sendall(b"copy")  # the next table's copy comes in now
        return read

    try:
        added = threading.Event()
        loop.call_soon(lambda: ([loop.add_reader(near, reader(n)) for n, (near, _) in enumerate(pairs)], added.set()))
        assert added.wait(10)
        pairs[0][1].sendall(b"copy")
        wait_until(lambda: len(order) == READ_PASSES + 1, what="every copy read and the work done")
        assert order == [*range(READ_PASSES), "work"]
    finally:
        loop.stop()
        for pair in pairs:
            for s in pair:
                s.close()
