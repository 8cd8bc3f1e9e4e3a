"""A table following its tournament's clock (core/following.py), in pure code with virtual time: the table fed the
clock's news and the dealer's and the floor's buttons, its outputs and screen read back."""

from __future__ import annotations

from dataclasses import replace

from shotclock.core import events as ev
from shotclock.core.engine import IDLE, RUNNING
from shotclock.core.following import worth_taking
from shotclock.core.inputs import Command, Edge, TournamentNews
from shotclock.core.settings import SeatSettings, Settings, ShotSettings
from shotclock.core.table import Table
from shotclock.core.view import Display, view_at

CLOCK = Settings()


def news(t: float, seq: int, level: int | None = None, *, on_break: bool = False, left: float | None = None,
         paused: bool = False, hands: int = 0, name: str = "", gone: bool = False) -> TournamentNews:
    return TournamentNews(t, "main", seq, level, hands, on_break, left, paused, name, gone)


def press(table: Table, t: float, button: str, hold: float = 0.1):
    first = table.feed([Edge(t, button, True)], t)
    second = table.feed([Edge(t + hold, button, False)], t + hold)
    return first.outputs + second.outputs


def new_hand(table: Table, t: float):
    return press(table, t, "street", hold=2.5)


def test_the_clocks_level_is_taken_from_the_next_hand_and_a_table_that_boots_mid_level_takes_it_at_once():
    table = Table(CLOCK)
    taken = table.feed([news(1.0, 1, 3)], 1.0)
    assert [(o.TYPE, o.level, o.by) for o in taken.outputs] == [("level_set", 3, "tournament:main")]
    assert table.levels.next.current.level is None  # TDA Rule 23: from the next hand
    hand = new_hand(table, 5.0)
    assert [(o.TYPE, o.level) for o in hand if o.TYPE == "level"] == [("level", 3)]
    # The same level again (a heartbeat, a reconnect) changes nothing; an older message is not taken.
    assert table.feed([news(20.0, 2, 3)], 20.0).outputs == [] and table.feed([news(21.0, 1, 2)], 21.0).outputs == []
    assert [o.level for o in table.feed([news(30.0, 3, 4)], 30.0).outputs] == [4]


def test_a_level_that_ends_by_hands_is_counted_by_the_table_and_a_restarted_table_is_not_sent_back():
    table = Table(CLOCK)
    table.feed([news(1.0, 1, 5, hands=2)], 1.0)
    for t in (5.0, 10.0, 15.0):
        new_hand(table, t)
    assert table.levels.next.current.level == 6  # two hands of level 5, then the table moved on by its count
    # The clock still says level 5 (the floor has not said 'next'): a table that sees it first does not go back.
    fresh = Table(CLOCK)
    fresh.levels.restore(table.levels.next.current)
    assert fresh.feed([news(20.0, 9, 5, hands=2)], 20.0).outputs == []


def test_on_a_break_no_clock_can_be_called_or_started_until_its_time_is_up_on_the_tables_own_clock():
    table = Table(CLOCK)
    table.feed([news(1.0, 1, None, on_break=True, left=600.0, name="dinner")], 1.0)
    new_hand(table, 5.0)  # a hand dealt on the break
    blocked = press(table, 10.0, "floor")
    assert [(o.TYPE, o.reason) for o in blocked] == [("ignored", "break: no clock can start during the break")]
    call = table.feed([Command(20.0, "call", id="c1", sender="floor-anna")], 20.0)
    assert call.acks[0].ignored == "break: no clock can start during the break" and table.state.phase == IDLE
    screen = view_at(table.state, 20.5, Display(language="nl"))
    assert (screen.screen, screen.big, screen.title) == ("break", "9:41", "PAUZE · dinner")
    assert view_at(table.state, 20.5, Display(language="en")).title == "BREAK · dinner"
    assert [o.TYPE for o in press(table, 601.5, "floor")] == ["start"]  # the break's time is up


def test_the_hand_in_play_when_the_break_begins_is_played_out_with_its_clocks_and_the_next_takes_none():
    # TDA 2024 Rule 23, as for a level: the break is the table's from its next hand. The shot clock keeps ruling the
    # hand in play (a later street's clock starts), and the floor may still call a clock in it.
    table = Table(Settings(mode="shot", shot=ShotSettings(preflop=20, flop=20), seats=SeatSettings(track=True, count=6)))
    new_hand(table, 1.0)
    table.feed([news(5.0, 1, None, on_break=True, left=600.0)], 5.0)
    assert [o.TYPE for o in press(table, 10.0, "action")] == ["start"]  # the hand in play: its next clock
    assert table.state.phase == RUNNING
    new_hand(table, 15.0)  # the dealer deals on the break: from it on, no clock
    assert [o.TYPE for o in press(table, 20.0, "action")] == ["ignored"] and table.state.on_clock is None


def test_a_clock_that_runs_when_the_break_begins_runs_on_to_its_ruling():
    table = Table(CLOCK)
    assert [o.TYPE for o in press(table, 1.0, "floor")] == ["start"]
    table.feed([news(5.0, 1, None, on_break=True, left=600.0)], 5.0)
    assert table.state.phase == RUNNING
    ruled = table.feed([], 40.0).outputs
    assert [o.outcome for o in ruled if o.TYPE == "decision"] == ["check"]  # no bet faced: a check at 0


def test_a_paused_break_stands_still_and_ends_when_the_clock_says_so():
    table = Table(CLOCK)
    table.feed([news(1.0, 1, None, on_break=True, left=300.0, paused=True)], 1.0)
    new_hand(table, 2.0)
    screen = view_at(table.state, 5000.0, Display(language="en"))
    assert (screen.big, screen.sub) == ("BREAK", "break: the tournament clock is stopped")
    assert [o.TYPE for o in press(table, 5000.0, "floor")] == ["ignored"]  # stood still: still the break
    table.feed([news(5001.0, 2, 4)], 5001.0)  # the floor ended the break: level 4
    assert table.state.tournament_break is None and [o.TYPE for o in press(table, 5002.0, "floor")] == ["start"]


def test_a_tournament_that_no_longer_covers_the_table_ends_its_break_and_leaves_its_level():
    table = Table(CLOCK)
    table.feed([news(1.0, 1, 3)], 1.0)
    new_hand(table, 2.0)
    table.feed([news(10.0, 2, None, on_break=True, left=900.0)], 10.0)
    assert table.state.tournament_break is not None
    table.feed([news(20.0, 2, None, on_break=True, left=900.0, gone=True)], 20.0)
    assert table.state.tournament_break is None and table.levels.next.current.level == 3
    assert [o.TYPE for o in press(table, 21.0, "floor")] == ["start"]


def test_in_shot_mode_the_dealer_cannot_start_a_players_clock_on_a_break_so_the_ledger_counts_none_of_it():
    table = Table(Settings(mode="shot", shot=ShotSettings(preflop=20), seats=SeatSettings(track=True, count=6)))
    table.feed([news(5.0, 1, None, on_break=True, left=600.0)], 5.0)
    new_hand(table, 6.0)  # a hand dealt on the break
    outputs = press(table, 10.0, "action")  # the dealer's start: refused, no clock runs on anyone
    assert [o.TYPE for o in outputs] == ["ignored"] and table.state.on_clock is None
    assert not [o for o in table.feed([], 700.0).outputs if o.TYPE in ("start", "decision")]


def test_a_heartbeat_that_changes_nothing_is_not_taken_and_a_moved_break_is():
    first = news(10.0, 4, None, on_break=True, left=600.0)
    assert not worth_taking(first, replace(first, t=15.0, seq=5, break_left=595.0))
    assert worth_taking(first, replace(first, t=15.0, seq=5, break_left=655.0))  # the floor added a minute
    assert worth_taking(first, replace(first, t=15.0, seq=5, paused=True))
    assert worth_taking(first, replace(first, gone=True)) and worth_taking(None, first)
    assert not worth_taking(news(1.0, 1, 3), news(6.0, 2, 3))
    assert worth_taking(news(1.0, 1, 3), news(6.0, 2, 4))
