"""The fleet's loop: one thread runs timers, calls from other threads and sockets, and survives what fails."""

import logging
import socket
import threading

from helpers import wait_until
from shotclock.floor.fleet_loop import FleetLoop


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
        assert loop.failures["a call from another thread"] == 3
        said = [r for r in caplog.records if "failed" in r.getMessage()]
        assert len(said) == 1 and "ZeroDivisionError" in said[0].exc_text
        assert loop.thread.is_alive()
    finally:
        loop.stop()


def test_a_readable_socket_wakes_its_owner_and_writes_wait_for_the_end_of_the_turn():
    loop = running_loop()
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    got = []

    class Owner:
        def readable(self):
            got.append(ours.recv(100))
            loop.want_write(self)  # an answer, written when the turn ends

        def flush(self):
            ours.send(b"pong")

        writable = flush

    try:
        loop.call_soon(lambda: loop.add_socket(ours, Owner()))
        theirs.sendall(b"ping")
        theirs.settimeout(10)
        assert theirs.recv(100) == b"pong"
        assert got == [b"ping"]
        loop.call_soon(lambda: loop.remove_socket(ours))
        removed = threading.Event()
        loop.call_soon(removed.set)
        assert removed.wait(10) and ours not in loop.sockets
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
        loop.call_soon(lambda: (loop.add_socket(first, First()), loop.add_socket(second, Second()), added.set()))
        assert added.wait(10)
        first_far.sendall(b"copy")
        wait_until(lambda: len(order) == 2, what="both sockets read and the work done")
        assert order == ["the second table read", "the first table's work"]
    finally:
        loop.stop()
        for s in (first, first_far, second, second_far):
            s.close()
