"""Levels and hands per level at the table and in replay (core/levels.py), in virtual time."""

import json

from hypothesis import given, settings as hsettings, strategies as st

from shotclock.config.loading import parse_config
from shotclock.core import events as ev
from shotclock.core.inputs import Command, Edge
from shotclock.core.levels import LevelView, rhythm_from_records, restored_record
from shotclock.core.replay import parse_events, replay
from shotclock.core.rhythm import Rhythm
from shotclock.core.table import Table
from shotclock.core.view import Display, view_at

LEVELS = parse_config("""
[clock]
seconds = 30
[levels.11]
mode = "shot"
shot.preflop = 20
[levels.12]
clock.seconds = 45
""")


def hold(button, t, seconds=2.1):
    return [Edge(t, button, True), Edge(t + seconds, button, False)]


def level(t, n, hands=None, sender="floor-anna", id=None):
    return Command(t, "level", id=id or f"l{t}", sender=sender, level=n, hands=hands)


def new_hand(table, t):
    """The dealer holds the street button from ``t``: a new hand at ``t`` + 2 s (the hold)."""
    return table.feed(hold("street", t), now=t + 2.2)


def test_a_level_set_during_a_clock_changes_nothing_until_the_next_hand():
    table = Table(LEVELS.settings)
    table.feed([Command(1.0, "call", id="c1", sender="floor")], now=1.0)
    r = table.feed([level(2.0, 11)], now=2.0)
    [ack] = r.acks
    assert ack.caused == ["level_set"] and ack.outputs[0].record() == {
        "t": 2.0, "type": "level_set", "level": 11, "by": "floor-anna"}
    assert r.state.phase == "running" and r.state.mode == "clock" and r.state.deadline == 31.0  # the clock runs on
    assert r.state.level == LevelView(None, next_level=11)
    r = table.feed([Edge(10.0, "action", True), Edge(10.1, "action", False)], now=10.2)
    assert [o.record()["outcome"] for o in r.outputs if o.TYPE == "decision"] == ["acted"]
    r = new_hand(table, 11.0)
    assert [o.record() for o in r.outputs if o.TYPE == "level"] == [
        {"t": 13, "type": "level", "level": 11, "hand": 1, "by": "floor-anna", "changed": ("mode", "shot.preflop")}]
    assert r.state.mode == "shot" and r.state.level == LevelView(11, 1)
    r = table.feed([Edge(14.0, "action", True), Edge(14.1, "action", False)], now=14.2)
    assert [o.record() for o in r.outputs] == [{"t": 14, "type": "start", "seconds": 20, "street": "preflop"}]


def test_a_hand_refused_while_a_called_clock_runs_brings_no_level_in():
    table = Table(LEVELS.settings)
    table.feed([level(0.5, 11), Command(1.0, "call", id="c1", sender="floor")], now=1.0)
    r = new_hand(table, 2.0)  # clock mode: a called clock ends with an action, a ruling or a cancel
    assert [(o.TYPE, o.event) for o in r.outputs] == [("ignored", "street"), ("ignored", "hand")]
    assert r.state.mode == "clock"
    assert r.state.phase == "running" and r.state.level.next_level == 11


def test_hands_per_level_count_and_the_level_moves_up_after_the_last():
    table = Table(LEVELS.settings)
    table.feed([level(0.0, 11, hands=3)], now=0.0)
    views = []
    for n in range(4):
        r = new_hand(table, 1.0 + 3 * n)
        views.append(r.state.level)
    assert views == [LevelView(11, 1, 3), LevelView(11, 2, 3), LevelView(11, 3, 3), LevelView(12, 1, 3)]
    assert views[2].last_hand and not views[3].last_hand
    screen = view_at(table.state, 13.0, Display(language="en"))
    assert "Level 12 · hand 1 of 3" in screen.info
    assert [o.record()["by"] for o in r.outputs if o.TYPE == "level"] == ["hands"]


def test_the_screen_says_hand_7_of_12_and_the_last_hand_in_both_languages():
    from dataclasses import replace

    state = Table(LEVELS.settings).state
    en = view_at(replace(state, level=LevelView(11, 7, 12)), 0.0, Display(language="en")).info
    nl = view_at(replace(state, level=LevelView(11, 12, 12)), 0.0, Display(language="nl")).info
    assert en.startswith("Level 11 · hand 7 of 12")
    assert nl.startswith("Niveau 11 · hand 12 van 12 · laatste hand van het niveau")


def test_hands_without_a_level_is_ignored_with_the_reason():
    table = Table(LEVELS.settings)
    r = table.feed([Command(1.0, "hands", id="h1", sender="floor", hands=12)], now=1.0)
    assert "no level is set" in r.acks[0].ignored and r.state.level is None


def test_a_table_with_no_level_set_writes_what_it_wrote_before_levels():
    table = Table(LEVELS.settings)
    r = new_hand(table, 1.0)
    assert [o.TYPE for o in r.outputs] == [] and r.state.level is None


def test_a_top_up_at_a_level_goes_to_every_seated_player_once():
    config = parse_config('preset = "tempo"\n[levels.10]\ntop_up.seconds = 30\n')
    table = Table(config.settings)
    table.feed([level(0.0, 9)], now=0.0)
    new_hand(table, 1.0)
    assert table.state.seats.bank(1) == 300
    table.feed([level(4.0, 10)], now=4.0)
    r = new_hand(table, 5.0)
    assert [o.record() for o in r.outputs if o.TYPE == "top_up"] == [{"t": 7, "type": "top_up", "seconds": 30}]
    assert table.state.seats.bank(1) == 330
    new_hand(table, 8.0)
    assert table.state.seats.bank(1) == 330  # once, at the level's first hand


def test_the_input_record_keeps_the_level_for_the_log():
    table = Table(LEVELS.settings)
    r = table.feed([level(1.0, 11, hands=12)], now=1.0)
    assert r.inputs[0].record() == {"t": 1.0, "type": "input", "event": "level", "command": "level", "id": "l1.0",
                                    "sender": "floor-anna", "by": "floor-anna", "level": 11, "hands": 12}


def test_replay_takes_the_level_from_the_next_hand_as_the_table_does():
    lines = ['{"t":0,"event":"call"}', '{"t":1,"event":"level","level":11,"by":"floor-anna"}',
             '{"t":5,"event":"action"}', '{"t":6,"event":"hand"}', '{"t":7,"event":"start"}', '{"t":30,"event":"end"}']
    out = [o.record() for o in replay(parse_events(lines), LEVELS.settings)]
    assert out[:5] == [
        {"t": 0, "type": "start", "seconds": 30},
        {"t": 1, "type": "level_set", "level": 11, "by": "floor-anna"},
        {"t": 5, "type": "decision", "outcome": "acted", "remaining": 25, "at_zero": False},
        {"t": 6, "type": "level", "level": 11, "hand": 1, "by": "floor-anna", "changed": ("mode", "shot.preflop")},
        {"t": 7, "type": "start", "seconds": 20, "street": "preflop"},
    ]
    assert out[-1] == {"t": 27.5, "type": "decision", "outcome": "hand_dead"}


def test_replay_names_a_bad_level_line():
    import pytest
    from shotclock.errors import ReplayFormatError

    for line, words in (('{"t":0,"event":"level","level":0}', "'level' must be a tournament level from 1 to 100"),
                        ('{"t":0,"event":"level"}', "needs 'level'"),
                        ('{"t":0,"event":"hands","hands":101}', "'hands' must be a number of hands from 0 to 100")):
        with pytest.raises(ReplayFormatError, match=words):
            parse_events([line])


# The table and the replay of its inputs rule alike, whatever the order of levels, hands and clocks.
STEP = st.sampled_from(["call", "action", "hand", "start", "street", "level", "hands", "wait"])


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(STEP, st.integers(min_value=1, max_value=14), st.integers(min_value=0, max_value=3)),
                max_size=25))
def test_the_table_and_the_replay_of_its_inputs_give_the_same_outputs(steps):
    table = Table(LEVELS.settings)
    t, lines, outputs = 0.0, [], []
    for n, (step, number, hands) in enumerate(steps):
        t += 3.0 if step == "wait" else 0.5
        if step == "wait":
            continue
        if step in ("level", "hands"):
            fields = {"level": number, "hands": hands} if step == "level" else {"hands": hands}
            command = Command(t, step, id=f"c{n}", sender="floor", **fields)
        else:
            command = Command(t, step if step != "hand" else "call", id=f"c{n}", sender="floor")
        if step == "hand":
            r = new_hand(table, t)
            t += 2.2
        elif step in ("level", "hands", "call"):
            r = table.feed([command], now=t)
        else:
            r = table.feed([Edge(t, "action" if step in ("action", "start") else "street", True),
                            Edge(t + 0.1, "action" if step in ("action", "start") else "street", False)], now=t + 0.2)
            t += 0.2
        outputs += [o.record() for o in r.outputs]
        lines += [json.dumps({**{k: v for k, v in i.record().items() if k in ("t", "event", "level", "hands")},
                              **({"by": "floor"} if i.event.NAME in ("level", "hands") else {})}) for i in r.inputs]
    end = table.feed([], now=t + 60)
    outputs += [o.record() for o in end.outputs]
    lines.append(json.dumps({"t": t + 60, "event": "end"}))
    assert [o.record() for o in replay(parse_events(lines), LEVELS.settings)] == outputs


def test_a_restart_brings_the_level_count_and_a_waiting_level_back():
    records = [{"type": "level", "level": 11, "hand": 1, "hands": 12, "by": "floor-anna"},
               {"type": "level", "level": 11, "hand": 7, "hands": 12},
               {"type": "level_set", "level": 12, "by": "floor-ben"}]
    current, pending = rhythm_from_records(records)
    assert current == Rhythm(11, 7, 12, "floor-anna") and pending == Rhythm(12, 0, 12, "floor-ben")
    table = Table(LEVELS.settings)
    assert table.restore_levels(restored_record(current, pending))
    assert table.state.level == LevelView(11, 7, 12, next_level=12) and table.state.mode == "shot"
    r = new_hand(table, 1.0)
    assert r.state.level == LevelView(12, 1, 12) and r.state.mode == "shot"
    assert rhythm_from_records([dict(restored_record(current, pending), type="level_restored")]) == (current, pending)


def test_a_layer_without_a_level_retunes_the_next_hand_and_counts_nothing():
    from dataclasses import replace

    table = Table(LEVELS.settings)
    table.levels.propose(lambda r: replace(r, layers=(("bubble", (("mode", "shot"), ("shot.preflop", 30))),)))
    r = new_hand(table, 1.0)
    # No level output (nothing counted); the layer's name is recorded, as a named rule set's (core/rulesets.py).
    assert [o.TYPE for o in r.outputs] == ["rule_set"] and r.state.mode == "shot"
    r = table.feed([Edge(4.0, "action", True), Edge(4.1, "action", False)], now=4.2)
    assert [o.record() for o in r.outputs] == [{"t": 4, "type": "start", "seconds": 30, "street": "preflop"}]
    new_hand(table, 5.0)
    assert table.engine.mode == "shot"  # the layer stays on from hand to hand


TOP_UP_AT_3 = parse_config('preset = "tempo"\n[levels.3]\ntop_up.seconds = 30\n[levels.5]\ntop_up.seconds = 15\n')


def test_a_correction_never_gives_a_levels_top_up_twice():
    # Issue 36, 4: the floor sends level 3, then level 2 (a correction), then level 3 again.
    table = Table(TOP_UP_AT_3.settings)
    given = []
    for t, n in ((0.0, 2), (10.0, 3), (20.0, 2), (30.0, 3)):
        table.feed([level(t, n)], now=t)
        r = new_hand(table, t + 1)
        given += [(n, o.seconds) for o in r.outputs if o.TYPE == "top_up"]
    assert given == [(3, 30)] and table.state.seats.bank(1) == 330
    # Passing level 3 again on the way up to 5 gives level 5's only.
    table.feed([level(40.0, 5)], now=40.0)
    r = new_hand(table, 41.0)
    assert [o.seconds for o in r.outputs if o.TYPE == "top_up"] == [15] and table.state.seats.bank(1) == 345


def test_level_1_begins_a_new_tournament_whose_top_ups_are_given_again():
    table = Table(TOP_UP_AT_3.settings)
    given = []
    for t, n in ((0.0, 1), (10.0, 3), (20.0, 1), (30.0, 4)):  # the next event on the same table starts at 1
        table.feed([level(t, n)], now=t)
        r = new_hand(table, t + 1)
        given += [(n, o.seconds) for o in r.outputs if o.TYPE == "top_up"]
    assert given == [(3, 30), (4, 30)] and table.state.seats.bank(1) == 360  # (level 3 passed on the way to 4)


def test_the_levels_given_are_in_the_level_record_and_come_back_after_a_restart():
    table = Table(TOP_UP_AT_3.settings)
    table.feed([level(0.0, 3)], now=0.0)
    r = new_hand(table, 1.0)
    [record] = [o.record() for o in r.outputs if o.TYPE == "level"]
    assert record["topped_up"] == (3,)
    table.feed([level(5.0, 2)], now=5.0)
    r = new_hand(table, 6.0)
    records = [o.record() for o in r.outputs if o.TYPE == "level"]
    current, pending = rhythm_from_records(json.loads(json.dumps(records)))
    assert (current.level, current.topped_up, pending) == (2, (3,), None)
    again = Table(TOP_UP_AT_3.settings)  # a restart: the level and the levels given come back from the log
    assert again.restore_levels(restored_record(current, pending))
    assert restored_record(current, pending)["current"]["topped_up"] == [3]
    again.feed([level(10.0, 3)], now=10.0)
    r = new_hand(again, 11.0)
    assert [o.TYPE for o in r.outputs if o.TYPE == "top_up"] == []


def test_replay_gives_a_levels_top_up_once_as_the_table_does():
    lines = ['{"t":0,"event":"seat","seat":1,"name":"Ana"}', '{"t":1,"event":"level","level":3,"by":"floor"}',
             '{"t":2,"event":"hand"}', '{"t":3,"event":"level","level":2,"by":"floor"}', '{"t":4,"event":"hand"}',
             '{"t":5,"event":"level","level":3,"by":"floor"}', '{"t":6,"event":"hand"}', '{"t":7,"event":"end"}']
    out = [o.record() for o in replay(parse_events(lines), TOP_UP_AT_3.settings)]
    assert [(o["t"], o.get("seconds")) for o in out if o["type"] == "top_up"] == [(2, 30)]


STAGES = parse_config('preset = "shot-30"\n[seats]\ntrack = true\n[shot]\nallowance = 10\n'
                      '[levels.5]\nshot.allowance = 6\nchips.reset = true\n'
                      '[rule_sets.final]\nshot.allowance = 8\nchips.reset = true\n')


def chips_left_after(lines: list[str], settings=STAGES.settings) -> list[int]:
    """The chips left each extension says, replaying ``lines``."""
    return [o.record()["chips_left"] for o in replay(parse_events(lines), settings) if o.TYPE == "extended"]


def test_a_stage_resets_every_players_chips_to_exactly_its_number_once():
    # WPT: ten chips from the start, exactly six from level 5 (24 players), whatever each player had used or had left.
    head = ['{"t":0,"event":"seat","seat":1}', '{"t":0,"event":"seat","seat":2}', '{"t":1,"event":"start"}',
            '{"t":2,"event":"extend","seat":1}', '{"t":3,"event":"extend","seat":1}', '{"t":4,"event":"action"}']
    assert chips_left_after(head) == [9, 8]
    level5 = ['{"t":5,"event":"level","level":5,"by":"floor"}', '{"t":6,"event":"hand"}', '{"t":7,"event":"start"}',
              '{"t":8,"event":"extend","seat":1}', '{"t":9,"event":"action"}']
    assert chips_left_after(head + level5) == [9, 8, 5]  # reset to 6, one used
    # A correction (level 4, then 5 again) does not reset again: the stage's chips are given once.
    again = ['{"t":40,"event":"level","level":4,"by":"floor"}', '{"t":41,"event":"hand"}',
             '{"t":42,"event":"level","level":5,"by":"floor"}', '{"t":43,"event":"hand"}',
             '{"t":44,"event":"start"}', '{"t":45,"event":"extend","seat":1}', '{"t":46,"event":"action"}']
    assert chips_left_after(head + level5 + again) == [9, 8, 5, 4]


def test_a_rule_set_for_a_stage_resets_the_chips_at_its_first_hand():
    # The final table, one floor action: `send --all rule_set --rule-set final`: exactly eight chips each.
    table = Table(STAGES.settings, rule_sets=STAGES.rule_sets)
    table.feed([Command(0.0, "seat", id="s1", sender="floor", seat=1), Command(0.0, "seat", id="s2", sender="floor",
                                                                             seat=2)], now=0.0)
    used = table.feed([Command(0.1, "start", id="a0", sender="floor"),
                       Command(0.2, "extend", id="e0", sender="floor", seat=1),
                       Command(0.3, "action", id="x0", sender="floor")], now=0.3)
    assert [o.record().get("chips_left") for o in used.outputs if o.TYPE == "extended"] == [9]
    table.feed([Command(0.5, "rule_set", id="r", sender="floor", rule_set="final")], now=0.5)
    r = new_hand(table, 1.0)
    assert "chips_reset" in [o.TYPE for o in r.outputs]
    r = table.feed([Command(4.0, "start", id="a", sender="floor"), Command(5.0, "extend", id="e", sender="floor",
                                                                            seat=1)], now=5.0)
    assert [o.record().get("chips_left") for o in r.outputs if o.TYPE == "extended"] == [7]
