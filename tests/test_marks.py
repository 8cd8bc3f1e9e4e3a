"""The floor's marks on a player (TDA 2024 Rules 70 and 71, RP-15): a warning, or their own clock on every decision.

Core with virtual time (the replay format and the table), the device with its real log (a power cut, the export's
replay), and the fields' one table (docs/rules.md, "Marks")."""

import pytest

from evidence import Bench, disagreements, logged_clocks
from shotclock.core import events as ev
from shotclock.core.inputs import Command
from shotclock.core.ledger import ledger
from shotclock.core.replay import parse_events, replay
from shotclock.core.seated import SeatedEngine
from shotclock.core.settings import ClockSettings, SeatSettings, Settings, ShotSettings
from shotclock.core.table import Table
from shotclock.core.view import Display, view_at

SHOT4 = Settings(mode="shot", shot=ShotSettings(preflop=20, flop=30), seats=SeatSettings(track=True, count=4))
CLOCK4 = Settings(clock=ClockSettings(seconds=30), seats=SeatSettings(track=True, count=4))


def run(settings, lines):
    return [o.record() for o in replay(parse_events(lines), settings)]


def starts(out):
    return [(r["t"], r["seat"], r["seconds"], r.get("mark")) for r in out if r["type"] == "start"]


def test_a_clock_mark_replaces_the_street_time_in_shot_mode():
    # 4 seats, button 1: seat 4 acts first pre-flop, then 1, 2, 3; seat 1 is on a 10 s clock.
    out = run(SHOT4, ['{"t":0,"event":"mark","seat":1,"mark":"clock","mark_seconds":10,"by":"floor-anna"}',
                      '{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":2,"event":"action"}',
                      '{"t":20,"event":"end"}'])
    assert out[0] == {"t": 0, "type": "mark", "seat": 1, "change": "marked", "mark": "clock", "mark_seconds": 10,
                      "by": "floor-anna"}
    assert starts(out) == [(1, 4, 20, None), (2, 1, 10, "clock")]
    # 10 s and the tie window: dead facing the blinds at 12.5, the turn moves on (no new clock in shot mode)
    assert {"t": 12.5, "type": "decision", "outcome": "hand_dead", "seat": 1} in out


def test_in_clock_mode_the_table_starts_a_marked_players_own_clock_as_the_turn_comes_to_them():
    out = run(CLOCK4, ['{"t":0,"event":"mark","seat":2,"mark":"clock","mark_seconds":10}',
                       '{"t":0,"event":"hand"}',      # seat 4 first: no clock, nobody called one
                       '{"t":3,"event":"action"}',    # seat 1: nothing
                       '{"t":4,"event":"action"}',    # seat 2's turn: their own clock starts, 10 s
                       '{"t":9,"event":"action"}',    # they act in time; seat 3 is not marked: no clock
                       '{"t":10,"event":"action"}', '{"t":11,"event":"action"}',  # seats 3, 4
                       '{"t":12,"event":"action"}',   # seat 1: seat 2's own clock again, ruled dead at 10 + 0.5
                       '{"t":30,"event":"end"}'])
    assert starts(out) == [(4, 2, 10, "clock"), (12, 2, 10, "clock")]
    decisions = [(r["t"], r["outcome"], r["seat"]) for r in out if r["type"] == "decision"]
    assert decisions == [(9, "acted", 2), (22.5, "hand_dead", 2)]
    # the ruling folds seat 2 and moves the turn to seat 3, who is not marked: no clock
    assert out[-1] == {"t": 22.5, "type": "turn", "seat": 3, "why": "ruling"}


def test_a_street_ends_an_own_clock_quietly_but_a_called_clock_still_refuses_it():
    out = run(CLOCK4, ['{"t":0,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}',
                       '{"t":0,"event":"hand"}',      # seat 4 first: their own clock
                       '{"t":2,"event":"street"}',    # the betting round is over: it ends quietly
                       '{"t":3,"event":"call"}',      # the floor calls a clock on seat 1 (30 s)
                       '{"t":4,"event":"street"}', '{"t":40,"event":"end"}'])
    assert {"t": 2, "type": "decision", "outcome": "cancelled", "by": "street", "seat": 4} in out
    assert (3, 2, 30, None) in starts(out)  # the turn after the street: left of the button
    assert {"t": 4, "type": "ignored", "event": "street",
            "reason": "a called clock ends with an action, a ruling or the floor's cancel, not with a new street"} in out


def test_an_own_clock_is_no_clock_called():
    out = run(CLOCK4, ['{"t":0,"event":"seat","seat":4,"name":"Ana"}', '{"t":0,"event":"mark","seat":4,'
                       '"mark":"clock","mark_seconds":10}', '{"t":0,"event":"hand"}', '{"t":3,"event":"action"}',
                       '{"t":5,"event":"end"}'])
    rows = [dict(r, id=i, clock=1 if r["type"] in ("start", "decision") else None) for i, r in enumerate(out)]
    (ana,) = [e for e in ledger(rows) if e.player == "Ana"]
    assert (ana.decisions, ana.clocks_called, ana.times) == (1, 0, [3.0])


def test_a_mark_or_unmark_never_changes_a_running_clock():
    out = run(SHOT4, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}',  # seat 4, 20 s
                      '{"t":2,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}',
                      '{"t":15,"event":"action"}',  # 14 s taken: still in time on the table's clock
                      '{"t":16,"event":"action"}', '{"t":17,"event":"action"}',
                      '{"t":18,"event":"unmark","seat":4}',  # on their next clock...
                      '{"t":18,"event":"action"}',           # ...which starts now: the table's 20 s again
                      '{"t":19,"event":"action"}', '{"t":20,"event":"end"}'])
    assert {"t": 15, "type": "decision", "outcome": "acted", "remaining": 6, "at_zero": False, "seat": 4} in out
    assert starts(out)[-2:] == [(18, 4, 20, None), (19, 1, 20, None)]
    engine = SeatedEngine(SHOT4)
    for e in parse_events(['{"t":0,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}',
                           '{"t":0,"event":"hand"}', '{"t":1,"event":"start"}']):
        engine.handle(e)
    engine.handle(ev.Unmark(2, 4))  # during their own clock: it keeps its 10 s
    assert engine.next_wake() == 6.0  # the countdown's first beep at 11 - 5


def test_the_mark_follows_the_player_through_a_table_move():
    here, there = SeatedEngine(SHOT4), SeatedEngine(SHOT4)
    here.handle(ev.SeatPlayer(0, 2, "Ana"))
    here.handle(ev.Mark(1, 2, "clock", 10, "td"))
    (left,) = [o for o in here.handle(ev.EmptySeat(2, 2)) if o.TYPE == "seat"]
    assert (left.change, left.mark, left.mark_seconds) == ("emptied", "clock", 10)
    assert here.state.seats.marks == ()
    seated = there.handle(ev.SeatPlayer(3, 1, "Ana", mark=left.mark, mark_seconds=left.mark_seconds))
    assert seated[0].record()["mark"] == "clock"
    assert there.state.seats.mark(1) == ("clock", 10)
    # A seating that keeps Ana in her seat keeps her mark; the player who leaves takes theirs.
    there.handle(ev.SeatPlayer(4, 3, "Ben"))
    there.handle(ev.Mark(5, 3, "warning"))
    there.handle(ev.Seating(6, ((1, "Ana"), (3, "Carl"))))
    assert there.state.seats.marks == ((1, "clock", 10),)


def test_a_mark_without_seat_tracking_is_refused_with_one_reason():
    table = Table(Settings())
    r = table.feed([Command(1.0, "mark", id="c1", sender="floor-anna", seat=3, mark="warning")], now=1.0)
    assert r.acks[0].ignored == ("'mark' needs seat tracking (seats.track): without it the table does not know "
                                 "whose turn it is, so it cannot mark a player")


@pytest.mark.parametrize("event, reason", [
    (ev.Mark(0, 2, "clock"), "a clock mark needs 'mark_seconds' (the player's own clock, 5 to 300 s)"),
    (ev.Mark(0, 2, "warning", 10), "a warning takes no 'mark_seconds' (only a clock mark has its own clock)"),
    (ev.Unmark(0, 2), "seat 2 has no mark"),
    (ev.SeatPlayer(0, 2, "Ana", mark="clock"), "a clock mark needs 'mark_seconds' (the player's own clock, 5 to 300 s)"),
])
def test_bad_marks_are_refused_with_the_reason(event, reason):
    engine = SeatedEngine(SHOT4)
    if event.NAME == "seat":
        engine.handle(ev.EmptySeat(0, 2))
    assert [o.record() for o in engine.handle(event)][-1] == {"t": 0, "type": "ignored", "event": event.NAME,
                                                              "reason": reason}
    engine.handle(ev.EmptySeat(0, 3))
    assert engine.handle(ev.Mark(0, 3, "warning"))[0].reason == "seat 3 is empty"
    assert engine.state.seats.marks == ()


def test_a_mark_from_the_network_is_checked_by_the_table_of_fields():
    from shotclock.core.wire import command_problem

    head = {"id": "1", "name": "mark", "sender": "floor", "sent_ms": 1, "seat": 3}
    assert command_problem({**head, "mark": "clock", "mark_seconds": 10}) is None
    assert command_problem({**head, "mark": "yellow"}) == "'mark' must be one of warning, clock, not \"yellow\""
    assert command_problem({**head, "mark": "clock", "mark_seconds": 2}) == \
        "'mark_seconds' must be a number of seconds from 5 to 300, not 2"
    assert command_problem({**head, "mark": "warning", "by": "me"}) == "unexpected field 'by'"  # the sender is proved


def test_the_screen_shows_the_mark_of_the_player_on_turn():
    engine = SeatedEngine(SHOT4)
    engine.handle(ev.SeatPlayer(0, 4, "Ana"))
    engine.handle(ev.Mark(0, 4, "warning", by="floor"))
    engine.handle(ev.Mark(0, 1, "clock", 10, by="floor"))
    engine.handle(ev.Hand(0))
    idle = view_at(engine.state, 0.5, Display(language="en"))
    assert idle.info.startswith("WARNING · To act: seat 4")
    engine.handle(ev.Start(1))
    assert view_at(engine.state, 2, Display()).info.startswith("WAARSCHUWING · Preflop")
    engine.handle(ev.Action(3))  # seat 1's own clock
    running = view_at(engine.state, 4, Display(language="en"))
    assert (running.big, running.info.split(" · ")[0]) == ("9", "OWN CLOCK 10 s")
    engine.handle(ev.Action(5))  # seat 2: no mark
    assert "CLOCK" not in view_at(engine.state, 6, Display(language="en")).info


def test_a_mark_survives_a_restart_and_the_log_records_who_made_it(vclock, tmp_path):
    config = 'mode = "shot"\n[shot]\npreflop = 20\ncountdown = 2\n[seats]\ntrack = true\ncount = 4\n'
    bench = Bench(vclock, tmp_path / "state", config)
    try:
        bench.device.loop.post(Command(vclock.now, "mark", id="m1", sender="floor-anna", seat=4, mark="clock",
                                       mark_seconds=8))
        vclock.now += 0.01
        bench.device.loop.run_once()
        bench.crash()
        assert bench.device.table.state.seats.mark(4) == ("clock", 8)
        bench.press("street", hold=2.1)  # a new hand: seat 4 first
        bench.press("action")            # their own clock: 8 s
        (start, _), = logged_clocks(bench.rows())
        assert (start["seat"], start["seconds"], start["mark"]) == (4, 8, "clock")
        (mark,) = [r for r in bench.rows() if r["type"] == "mark"]
        assert (mark["by"], mark["change"], mark["mark_seconds"]) == ("floor-anna", "marked", 8)
    finally:
        bench.close()


def test_the_log_the_replay_and_the_ledger_agree_on_a_marked_players_clock(vclock, tmp_path):
    config = 'mode = "clock"\n[clock]\nseconds = 30\ncountdown = 2\n[seats]\ntrack = true\ncount = 4\n'
    bench = Bench(vclock, tmp_path / "state", config)
    try:
        bench.command("seat", seat=1, player="Ana")
        bench.command("mark", seat=1, mark="clock", mark_seconds=6)
        bench.command("mark", seat=2, mark="clock", mark_seconds=5)
        bench.press("street", hold=2.1)  # a new hand: seat 4 first, no clock
        bench.press("action")            # seat 1: their own clock starts
        bench.wait(8)                    # ruled dead at 6.5 s: the turn, and seat 2's own clock, start from the ruling
        bench.wait(2)
        bench.press("action")            # seat 2 in time
        clocks = logged_clocks(bench.rows())
        assert [(s["seat"], s["seconds"], s["mark"], d["outcome"]) for s, d in clocks] == [
            (1, 6, "clock", "hand_dead"), (2, 5, "clock", "acted")]
        assert disagreements(bench) == []
        export = bench.export(2)
        assert '"event":"mark","seat":2,"mark":"clock","mark_seconds":5' in export.replace(" ", "")
    finally:
        bench.close()


def test_an_own_clock_follows_a_turn_correction_and_ends_with_the_hand_won():
    # Seat 4 (first) and seat 2 marked; seat 1 not. A correction from seat 4's own clock to seat 1 ends it,
    # charged to nobody, and starts no clock for seat 1 (nobody called one); a correction to seat 2 is theirs.
    out = run(CLOCK4, ['{"t":0,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}',
                       '{"t":0,"event":"mark","seat":2,"mark":"clock","mark_seconds":8}',
                       '{"t":0,"event":"hand"}', '{"t":1,"event":"turn_forward"}', '{"t":2,"event":"turn_forward"}',
                       '{"t":3,"event":"street"}', '{"t":40,"event":"end"}'])
    assert {"t": 1, "type": "decision", "outcome": "cancelled", "by": "turn", "seat": 4} in out
    # The street ends seat 2's own clock quietly (still hers after the correction), and the flop's first to act,
    # left of the button, is seat 2 again: her own clock starts anew.
    assert starts(out) == [(0, 4, 10, "clock"), (2, 2, 8, "clock"), (3, 2, 8, "clock")]
    assert {"t": 3, "type": "decision", "outcome": "cancelled", "by": "street", "seat": 2} in out
    # Everyone else folds to the marked player on her own clock: it ends with the hand, no ruling on a won hand.
    out = run(CLOCK4, ['{"t":0,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}', '{"t":0,"event":"hand"}',
                       '{"t":1,"event":"fold","seat":1}', '{"t":2,"event":"fold","seat":2}',
                       '{"t":3,"event":"fold","seat":3}', '{"t":40,"event":"end"}'])
    assert {"t": 3, "type": "hand_over", "seat": 4} in out
    assert [r for r in out if r["type"] == "decision"] == [{"t": 3, "type": "decision", "outcome": "cancelled",
                                                             "by": "hand", "seat": 4}]


def test_in_clock_mode_an_unmark_lets_the_own_clock_run_and_starts_none_at_the_next_turn():
    out = run(CLOCK4, ['{"t":0,"event":"mark","seat":4,"mark":"clock","mark_seconds":10}', '{"t":0,"event":"hand"}',
                       '{"t":2,"event":"unmark","seat":4}',   # during her own clock: it keeps its 10 s
                       '{"t":9,"event":"action"}', '{"t":10,"event":"action"}', '{"t":11,"event":"action"}',
                       '{"t":12,"event":"action"}',           # seat 4 on turn again: no clock now
                       '{"t":40,"event":"end"}'])
    assert starts(out) == [(0, 4, 10, "clock")]
    assert {"t": 9, "type": "decision", "outcome": "acted", "remaining": 1, "at_zero": False, "seat": 4} in out
    assert out[-1] == {"t": 12, "type": "turn", "seat": 4, "why": "action"}
