"""The link sender's decisions (shotclock.core.uplink.Uplink), pure, on virtual time: what goes when, the
login's and the outbox's retries, when the link shows degraded."""

from shotclock.core.uplink import BACKOFF, CLONE_SHOWN, LOGIN_RETRY, ROUND, Uplink


def published(u):
    return [(p.leaf, p.payload, p.retain, p.expiry) for p in u.outgoing()]


def test_nothing_goes_offline_and_nothing_offered_meanwhile_is_lost_the_newest_state_only():
    u = Uplink()
    u.state(b"s1", 4)
    u.state(b"s2", None)  # the newest replaces one not yet sent
    u.ack(b"a1", b"a2")
    assert published(u) == []
    u.connected()
    assert published(u) == [("state", b"s2", True, None), ("cmd/ack", b"a1", False, None),
                            ("cmd/ack", b"a2", False, None)]
    assert published(u) == []  # each once


def test_every_connection_sends_the_last_state_again_the_broker_may_have_lost_it():
    u = Uplink()
    u.connected()
    assert published(u) == []  # no state yet: nothing to send again
    u.state(b"s", 4)
    assert published(u) == [("state", b"s", True, 4)]
    assert u.disconnected() is True  # lost: worth saying
    assert u.disconnected() is False  # already down
    u.connected()
    assert published(u) == [("state", b"s", True, 4)]
    u.stopping = True
    assert u.disconnected() is False  # a stop's own disconnect is not news


def test_a_failing_outbox_is_retried_with_a_doubling_delay_and_shown_until_it_mends():
    u = Uplink()
    u.connected()
    assert u.outbox_due(0.0)
    assert u.outbox_failed("outbox: database is locked", 100.0) is True
    assert u.status(3, 0, 100.0).fault == "outbox" and u.status(3, 0, 100.0).detail == "outbox: database is locked"
    assert not u.outbox_due(100.0 + BACKOFF[0] - 0.01) and u.outbox_due(100.0 + BACKOFF[0])
    assert u.wait(100.0) == BACKOFF[0] and u.wait(100.0 + BACKOFF[0]) == 0.0
    assert u.outbox_failed("outbox: database is locked", 101.0) is False  # the same cause: said once
    assert not u.outbox_due(101.0 + 2 * BACKOFF[0] - 0.01) and u.outbox_due(101.0 + 2 * BACKOFF[0])
    t = 103.0
    for _ in range(10):  # doubling, up to the longest delay
        u.outbox_failed("outbox: database is locked", t)
    assert u.outbox_due(t + BACKOFF[1]) and not u.outbox_due(t + BACKOFF[1] - 0.01)
    assert u.status_due() == "outbox: database is locked"  # the retained status says it, once
    assert u.status_due() is None
    assert u.outbox_ok() is True and u.outbox_ok() is False
    assert u.status_due() == "" and u.status(0, 0, t).fault == ""  # mended: said again without it
    u.outbox_failed("outbox: disk I/O error", t)
    assert u.outbox_due(t + BACKOFF[0]) and not u.outbox_due(t + BACKOFF[0] - 0.01)  # the delay starts again


def test_a_repaired_outbox_is_tried_again_at_once():
    u = Uplink()
    u.outbox_failed("outbox: file is not a database", 50.0, repaired=True)
    assert u.outbox_due(50.0) and u.wait(50.0) == 0.0


def test_the_degraded_status_waits_for_a_connection_and_goes_again_after_each():
    u = Uplink()
    u.outbox_failed("outbox: locked", 0.0)
    assert u.status_due() is None  # offline: the connect's status will be fresh anyway
    u.connected()
    assert u.status_due() == "outbox: locked"
    u.disconnected()
    u.connected()  # the connect published a status without it: it goes again
    assert u.status_due() == "outbox: locked"
    u.restatus()  # the status changed otherwise (its bridge became known)
    assert u.status_due() == "outbox: locked"
    assert u.wait(0.0) <= ROUND


def test_a_login_that_cannot_be_read_is_retried_when_its_files_change_or_after_a_while():
    u = Uplink()
    assert u.login_due(0.0, ("a",))
    assert u.login_failed("credentials", "no such file", 0.0) is True
    assert u.status(0, 0, 0.0).fault == "credentials"
    assert not u.login_due(1.0, ("a",))  # the same files, too soon
    assert u.login_due(1.0, ("b",))  # the file changed: at once
    assert u.login_failed("credentials", "no such file", 1.0) is False  # said once
    assert not u.login_due(1.0 + LOGIN_RETRY - 0.01, ("b",)) and u.login_due(1.0 + LOGIN_RETRY, ("b",))
    u.outbox_failed("outbox: locked", 2.0)
    assert u.fault() == ("credentials", "no such file")  # the login's fault first
    assert u.login_read() is True and u.login_read() is False
    assert u.fault() == ("outbox", "outbox: locked")


def test_another_device_with_this_identity_is_said_once_a_while_and_shown_for_a_while():
    u = Uplink()
    assert u.clone(10.0) is True and u.clone(11.0) is False
    assert u.status(0, 0, 11.0 + CLONE_SHOWN - 0.01).clone
    assert not u.status(0, 0, 11.0 + CLONE_SHOWN).clone
    assert u.clone(10.0 + CLONE_SHOWN) is True


def test_a_session_taken_over_is_counted_each_time_shown_for_a_while_and_is_a_sign_of_a_clone():
    u = Uplink()
    assert u.status(0, 0, 1.0).taken == "" and u.status(0, 0, 1.0).takeovers == 0
    u.taken("Administrative action", 10.0)
    u.taken("Session taken over", 12.0)
    shown = u.status(0, 0, 12.0 + CLONE_SHOWN - 0.01)
    assert (shown.taken, shown.takeovers, shown.clone) == ("Session taken over", 2, True)
    later = u.status(0, 0, 12.0 + CLONE_SHOWN)
    assert (later.taken, later.takeovers, later.clone) == ("", 2, False)  # the count stays: each is a log record


def test_the_archives_word_counts_only_for_a_boot_this_run_sent_and_a_collector_online_resends():
    u = Uplink()
    u.sent_boots.add("0123456789ab")
    assert u.stored_seq({"boot": "0123456789ab", "seq": 7}) == 7
    assert u.stored_seq({"boot": "ffffffffffff", "seq": 7}) is None
    assert u.stored_seq({"boot": "0123456789ab", "seq": True}) is None and u.stored_seq("x") is None
    assert u.collector({"online": True}) is True and u.end_to_end
    assert u.collector({"online": False}) is False and u.end_to_end
    assert u.collector(None) is False and not u.end_to_end
