"""Hand-for-hand (TDA RP-8) and the house's named rule sets on one table, in pure code with virtual time: the table
fed the floor's commands and the dealer's buttons, its outputs, screen, state message and log records read back."""

from __future__ import annotations

import msgspec
import pytest

from shotclock.config.loading import parse_config
from shotclock.core import events as ev
from shotclock.core.engine import IDLE, RUNNING
from shotclock.core.handforhand import HandForHandState, time_off
from shotclock.core.inputs import Command, Edge
from shotclock.core.records import RecordBuilder
from shotclock.core.table import Table
from shotclock.core.view import Display, view_at
from shotclock.core.wire import state_message

CLOCK = parse_config("").settings
SHOT_CONFIG = parse_config('preset = "shot-15-20-30"\n[rule_sets.bubble]\nshot.preflop = 30\nshot.flop = 30\n'
                           '[rule_sets.fast]\nshot.preflop = 10\nshot.flop = 10\nshot.turn = 10\nshot.river = 10\n')


def command(t: float, name: str, **fields) -> Command:
    return Command(t, name, id=f"{name}-{t}", sender="floor-anna", **fields)


def press(table: Table, t: float, button: str, hold: float = 0.1):
    """A tap (or, with ``hold`` past the hold time, a hold) of ``button`` at ``t``: the rounds' outputs."""
    first = table.feed([Edge(t, button, True)], t)
    second = table.feed([Edge(t + hold, button, False)], t + hold)
    return first.outputs + second.outputs


def new_hand(table: Table, t: float):
    """The dealer's new hand: the street button held past the hold time."""
    return press(table, t, "street", hold=2.5)


def types(outputs) -> list[str]:
    return [o.TYPE for o in outputs]


def test_a_table_plays_its_hand_then_waits_and_no_clock_starts_until_the_release():
    table = Table(CLOCK)
    start = table.feed([command(1.0, "hand_for_hand")], 1.0)
    assert start.acks[0].ignored is None and table.state.hand_for_hand.waiting is False
    assert types(press(table, 2.0, "floor")) == ["start"]  # the hand in play: a clock is called as ever
    table.feed([command(5.0, "cancel")], 5.0)
    done = new_hand(table, 10.0)
    assert [(o.TYPE, o.why, o.waiting) for o in done if o.TYPE == "hand_for_hand"] == [("hand_for_hand", "done", True)]
    blocked = press(table, 14.0, "floor")
    assert [(o.TYPE, o.reason) for o in blocked] == [("ignored", "hand-for-hand: wait for the floor")]
    call = table.feed([command(15.0, "call")], 15.0)
    assert call.acks[0].ignored == "hand-for-hand: wait for the floor" and table.state.phase == IDLE
    released = table.feed([command(20.0, "release_hand")], 20.0)
    assert [(o.why, o.hands, o.waiting) for o in released.outputs if o.TYPE == "hand_for_hand"] == [("released", 1, False)]
    assert types(press(table, 21.0, "floor")) == ["start"]


def test_hand_for_hand_never_stops_a_running_clock():
    table = Table(CLOCK)
    press(table, 1.0, "floor")
    for name in ("hand_for_hand", "release_hand", "end_hand_for_hand"):
        table.feed([command(3.0, name)], 3.0)
        assert table.state.phase == RUNNING
    table.feed([command(4.0, "hand_for_hand")], 4.0)
    assert table.feed([], 40.0).outputs[-1].TYPE == "decision"  # it ran to its ruling, as without hand-for-hand
    assert table.state.hand_for_hand.waiting is False


def test_shot_mode_waits_at_the_new_hand_and_the_dealer_cannot_start_the_shot_clock():
    table = Table(SHOT_CONFIG.settings)
    table.feed([command(1.0, "hand_for_hand", minutes=3)], 1.0)
    assert types(press(table, 2.0, "action")) == ["start"]
    outputs = new_hand(table, 5.0)  # the new hand ends the running shot clock as it always does
    assert "decision" in types(outputs) and table.state.hand_for_hand.waiting
    assert [o.reason for o in press(table, 9.0, "action") if o.TYPE == "ignored"] == ["hand-for-hand: wait for the floor"]
    assert table.state.phase == IDLE


def test_the_floor_commands_that_do_not_fit_are_answered_with_the_reason():
    table = Table(CLOCK)
    assert table.feed([command(1.0, "release_hand")], 1.0).acks[0].ignored == "this table is not in hand-for-hand"
    assert table.feed([command(1.5, "end_hand_for_hand")], 1.5).acks[0].ignored == "this table is not in hand-for-hand"
    table.feed([command(2.0, "hand_for_hand")], 2.0)
    assert table.feed([command(3.0, "hand_for_hand")], 3.0).acks[0].ignored == "this table already plays hand-for-hand"
    assert table.feed([command(4.0, "release_hand")], 4.0).acks[0].ignored == "this table is still playing its hand"
    new_hand(table, 5.0)
    ended = table.feed([command(9.0, "end_hand_for_hand")], 9.0)
    assert ended.acks[0].ignored is None and table.state.hand_for_hand is None
    assert types(press(table, 10.0, "floor")) == ["start"]


def test_the_hands_and_the_time_rp8_takes_off_are_counted_by_the_releases():
    table = Table(CLOCK)
    table.feed([command(1.0, "hand_for_hand")], 1.0)
    for n in range(3):
        new_hand(table, 10.0 + 20 * n)
        table.feed([command(20.0 + 20 * n, "release_hand")], 20.0 + 20 * n)
    state = table.state.hand_for_hand
    assert (state.hands, state.minutes) == (3, 2)
    assert msgspec.to_builtins(state) == {"waiting": False, "hands": 3, "minutes": 2, "time_off_s": 360}
    assert time_off(5, 3) == 900


def test_the_screen_says_why_no_clock_starts():
    table = Table(CLOCK)
    table.feed([command(1.0, "hand_for_hand")], 1.0)
    assert "Hand-for-hand" in view_at(table.state, 2.0, Display(language="en")).info  # playing its hand
    new_hand(table, 3.0)
    dutch = view_at(table.state, 6.0)
    assert (dutch.screen, dutch.big, dutch.sub) == ("hand_for_hand", "WACHT", "hand-for-hand: wacht op de floor")
    english = view_at(table.state, 6.0, Display(language="en"))
    assert (english.big, english.sub) == ("WAIT", "hand-for-hand: wait for the floor")


def test_the_state_message_carries_hand_for_hand_and_the_rule_set():
    table = Table(SHOT_CONFIG.settings, rule_sets=SHOT_CONFIG.rule_sets)
    assert "hand_for_hand" not in state_message(table.state, 1.0, "7", "0" * 12, 1, "Tafel 7", (), {"outbox": 0})
    table.feed([command(1.0, "hand_for_hand"), command(1.5, "rule_set", rule_set="bubble")], 2.0)
    message = state_message(table.state, 2.0, "7", "0" * 12, 1, "Tafel 7", (), {"outbox": 0})
    sent = msgspec.to_builtins(message)  # as the state message carries it
    assert sent["hand_for_hand"] == {"waiting": False, "hands": 0, "minutes": 2, "time_off_s": 0}
    assert sent["rule_set"] == {"name": "", "next": "bubble"}


def test_a_rule_set_takes_effect_at_the_next_hand_never_during_a_clock():
    table = Table(SHOT_CONFIG.settings, rule_sets=SHOT_CONFIG.rule_sets)
    press(table, 1.0, "action")  # a 15 s preflop clock (shot-15-20-30)
    chosen = table.feed([command(2.0, "rule_set", rule_set="bubble")], 2.0)
    assert chosen.acks[0].ignored is None and table.state.rule_set.next == "bubble"
    assert [o.seconds for o in press(table, 3.0, "action") if o.TYPE == "start"] == [15]  # still the table's own
    applied = new_hand(table, 5.0)
    assert [(o.why, o.rule_set) for o in applied if o.TYPE == "rule_set"] == [("applied", "bubble")]
    assert [o.seconds for o in press(table, 9.0, "action") if o.TYPE == "start"] == [30]  # bubble: 30 s a decision
    table.feed([command(10.0, "rule_set", rule_set="")], 10.0)  # and back, from the next hand
    new_hand(table, 12.0)
    assert [o.seconds for o in press(table, 16.0, "action") if o.TYPE == "start"] == [15]
    assert table.state.rule_set is None


def test_an_unknown_rule_set_is_refused_with_the_ones_the_table_knows():
    table = Table(SHOT_CONFIG.settings, rule_sets=SHOT_CONFIG.rule_sets)
    ack = table.feed([command(1.0, "rule_set", rule_set="final")], 1.0).acks[0]
    assert ack.ignored == "this table has no rule set 'final' (it has: bubble, fast)"
    assert Table(CLOCK).feed([command(1.0, "rule_set", rule_set="bubble")], 1.0).acks[0].ignored == \
        "this table has no rule set 'bubble' (it has: none)"
    table.feed([command(2.0, "rule_set", rule_set="fast")], 2.0)
    assert table.feed([command(3.0, "rule_set", rule_set="fast")], 3.0).acks[0].ignored == \
        "this table already runs rule set 'fast'"


def test_restored_from_the_log_a_waiting_table_waits_on():
    table, builder = Table(CLOCK), RecordBuilder()
    records = builder.round(table.feed([command(1.0, "hand_for_hand", minutes=2.5)], 1.0), lambda t: "")
    table.feed([command(2.0, "release_hand")], 2.0)  # (ignored: still playing)
    for t in (3.0,):
        r1 = table.feed([Edge(t, "street", True)], t)
        r2 = table.feed([Edge(t + 2.5, "street", False)], t + 2.5)
        records += builder.round(r1, lambda t: "") + builder.round(r2, lambda t: "")
    last = [m for m in records if getattr(m, "type", None) == "hand_for_hand"][-1]
    assert last.data == {"why": "done", "on": True, "waiting": True, "hands": 0, "minutes": 2.5}
    restarted = Table(CLOCK)
    assert [o.why for o in restarted.restore_hand_for_hand(last.data, 0.0)] == ["restored"]
    assert restarted.state.hand_for_hand.waiting and restarted.state.hand_for_hand.minutes == 2.5
    assert types(press(restarted, 1.0, "floor")) == ["ignored"]


@pytest.mark.parametrize("record", [{}, {"on": False}, {"on": True, "waiting": "yes", "hands": 0, "minutes": 2},
                                    {"on": True, "waiting": True, "hands": -1, "minutes": 2},
                                    {"on": True, "waiting": True, "hands": 1, "minutes": 9}])
def test_a_record_that_is_off_or_not_sound_restores_nothing(record):
    state = HandForHandState()
    assert state.restore(record, 0.0) == [] and state.view is None


def test_a_rule_set_comes_back_after_a_restart_and_rules_at_once():
    table = Table(SHOT_CONFIG.settings, rule_sets=SHOT_CONFIG.rule_sets)
    assert types(table.restore_rule_set({"rule_set": "fast", "next": None}, 0.0)) == ["rule_set"]
    assert [o.seconds for o in press(table, 1.0, "action") if o.TYPE == "start"] == [10]
    assert Table(SHOT_CONFIG.settings, rule_sets={}).restore_rule_set({"rule_set": "fast"}, 0.0) == []


def test_the_commands_are_logged_with_who_sent_them():
    table, builder = Table(CLOCK), RecordBuilder()
    messages = builder.round(table.feed([command(1.0, "hand_for_hand", minutes=3)], 1.0), lambda t: "")
    logged = {m["type"]: m["data"] for m in map(msgspec.to_builtins, messages) if "type" in m}
    assert logged["command"]["sender"] == "floor-anna"
    assert logged["command"]["minutes"] == 3
    assert logged["input"]["event"] == "hand_for_hand" and logged["input"]["minutes"] == 3
    assert logged["hand_for_hand"] == {"why": "started", "on": True, "waiting": False, "hands": 0, "minutes": 3}


@pytest.mark.parametrize("line", ['{"t": 1, "event": "hand_for_hand", "minutes": 2}', '{"t":1,"event":"release_hand"}',
                                  '{"t": 1, "event": "rule_set", "rule_set": "bubble"}'])
def test_the_tournament_commands_are_no_replay_lines(line):
    from shotclock.core.replay import parse_events
    from shotclock.errors import ReplayFormatError

    with pytest.raises(ReplayFormatError, match="unknown event"):
        parse_events([line])


def test_a_screenshot_draws_a_table_waiting_for_the_floor_and_refuses_one_with_a_clock_on(tmp_path, capsys):
    from pathlib import Path

    from shotclock.cli import main

    scenario = str(Path(__file__).parent.parent / "docs" / "examples" / "clock-dead-hand.events.jsonl")
    out = tmp_path / "waiting.png"
    assert main(["screenshot", str(out), "--scenario", scenario, "--at", "40", "--hand-for-hand", "3"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["screenshot", str(out), "--scenario", scenario, "--at", "8", "--hand-for-hand", "3"]) == 2
    assert capsys.readouterr().err == ("shotclock: --hand-for-hand: a clock is running at --at; a table waits for the "
                                       "floor only between clocks\n")
