"""The rules of the next hand (core/rhythm.py): a level's rules and layers on top, counted hands, top-ups."""

from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from shotclock.config.loading import parse_config
from shotclock.core.engine import Engine
from shotclock.core import events as ev
from shotclock.core.rhythm import AUTO, NextHand, Rhythm, settings_for_hand, top_ups, with_rules
from shotclock.core.settings import LevelRule, Settings
from shotclock.errors import EventError

BASE = Settings(levels=(LevelRule(11, (("mode", "shot"), ("shot.preflop", 20))),
                        LevelRule(14, (("shot.preflop", 15),), top_up_chips=2),
                        LevelRule(10, (("clock.seconds", 40),), top_up_seconds=30)))


def test_a_level_takes_every_rule_up_to_it_later_levels_winning():
    assert settings_for_hand(BASE, None) is BASE
    assert settings_for_hand(BASE, 9) is BASE
    ten = settings_for_hand(BASE, 10)
    assert (ten.mode, ten.clock.seconds) == ("clock", 40)
    eleven = settings_for_hand(BASE, 11)
    assert (eleven.mode, eleven.shot.preflop, eleven.clock.seconds) == ("shot", 20, 40)
    assert settings_for_hand(BASE, 20).shot.preflop == 15
    assert settings_for_hand(BASE, 20).shot.flop == 30  # a key no level names keeps the base's value


def test_a_layer_goes_on_top_of_the_level_and_a_later_layer_wins():
    layers = (("bubble", (("shot.preflop", 30), ("shot.flop", 30))), ("staller", (("shot.flop", 10),)))
    hand = settings_for_hand(BASE, 14, layers)
    assert (hand.mode, hand.shot.preflop, hand.shot.flop) == ("shot", 30, 10)
    assert settings_for_hand(BASE, None, (("bubble", (("mode", "shot"),)),)).mode == "shot"


def test_with_rules_refuses_a_mode_that_does_not_exist():
    with pytest.raises(ValueError):
        with_rules(Settings(), {"mode": "turbo"})


def test_top_ups_are_given_for_each_level_passed_on_the_way_up_only():
    assert top_ups(BASE, 9, 10) == (None, 30)
    assert top_ups(BASE, 9, 14) == (2, 30)
    assert top_ups(BASE, 10, 10) == (None, None)
    assert top_ups(BASE, 14, 9) == (None, None)
    assert top_ups(BASE, None, 14) == (2, None)  # a first level set: its own top-up only
    assert top_ups(BASE, None, None) == (None, None)


def test_a_proposed_level_waits_for_the_next_hand_and_counts_from_one():
    rhythm = NextHand(BASE, level_max=100)
    rhythm.propose(lambda r: replace(r, level=11, hand=0, hands=3, by="floor-anna"))
    assert rhythm.current == Rhythm() and rhythm.settings is BASE  # nothing changes before the hand
    start = rhythm.at_hand()
    assert start.after == Rhythm(11, 1, 3, "floor-anna") and start.level_changed and start.retuned
    assert start.settings.mode == "shot"
    assert not rhythm.at_hand().retuned  # the same rules for the second hand
    third = rhythm.at_hand().after
    assert (third.hand, third.last_hand) == (3, True)
    fourth = rhythm.at_hand()  # its hands were played: the table moves one level up by itself
    assert fourth.after == Rhythm(12, 1, 3, AUTO) and fourth.level_changed


def test_the_floors_level_wins_over_the_tables_own_move():
    rhythm = NextHand(BASE, level_max=100)
    rhythm.restore(Rhythm(11, 3, 3, "floor"))
    rhythm.propose(lambda r: replace(r, level=11, hand=0, by="floor-ben"))  # the floor plays the level again
    assert rhythm.at_hand().after == Rhythm(11, 1, 3, "floor-ben")


def test_hands_per_level_set_mid_level_keeps_the_count():
    rhythm = NextHand(BASE, level_max=100)
    rhythm.restore(Rhythm(11, 5, 0, "floor"))
    rhythm.propose(lambda r: replace(r, hands=6))
    assert rhythm.at_hand().after == Rhythm(11, 6, 6, "floor")


def test_the_last_level_stays_after_its_hands():
    rhythm = NextHand(BASE, level_max=12)
    rhythm.restore(Rhythm(12, 2, 2, "floor"))
    assert rhythm.at_hand().after == Rhythm(12, 3, 2, "floor")


def test_no_level_set_counts_nothing():
    rhythm = NextHand(BASE, level_max=100)
    assert rhythm.at_hand().after == Rhythm()


@given(st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=8),
       st.integers(min_value=1, max_value=30))
def test_the_hands_settings_are_the_base_with_every_rule_up_to_the_level(levels, level):
    rules = tuple(LevelRule(n, (("clock.seconds", 10 + n),)) for n in levels)
    settings = settings_for_hand(Settings(levels=rules), level)
    named = [n for n in levels if n <= level]
    assert settings.clock.seconds == (10 + max(named) if named else 30)


def test_the_engine_is_retuned_only_between_hands():
    engine = Engine(Settings())
    engine.handle(ev.Call(0))
    with pytest.raises(EventError, match="only between hands"):
        engine.retune(settings_for_hand(BASE, 11))
    assert engine.mode == "clock"
    engine.handle(ev.Action(5))
    engine.handle(ev.Hand(6))
    engine.retune(settings_for_hand(BASE, 11))
    assert [o.TYPE for o in engine.handle(ev.Start(7))] == ["start"]
    assert engine.state.seconds == 20


def test_the_configuration_declares_levels_in_sections():
    config = parse_config('[levels.11]\nmode = "shot"\nshot.preflop = 20\n[levels.3]\nclock.seconds = 45\n')
    assert config.settings.levels == (LevelRule(3, (("clock.seconds", 45),)),
                                      LevelRule(11, (("mode", "shot"), ("shot.preflop", 20))))


@pytest.mark.parametrize("text, key, words", [
    ('[levels.0]\nmode = "shot"', "levels.0.mode", "must be a level from 1 to 100"),
    ('[levels.x]\nmode = "shot"', "levels.x.mode", "names no level"),
    ('[levels.11]\nseats.track = true', "levels.11.seats.track", "is not a key a level can change"),
    ('[levels.11]\nshot.prefop = 20', "levels.11.shot.prefop", "did you mean 'shot.preflop'"),
    ('[levels.11]\nshot.preflop = -1', "levels.11.shot.preflop", "must be greater than 0"),
    ('[levels.11]\nmode = "turbo"', "levels.11.mode", "must be one of"),
    ('[levels.11]\nclock.seconds = 3', "levels.11.clock.seconds", "countdown (5 s) longer than its clock (3 s)"),
    ('[levels.10]\ntop_up.seconds = 30', "levels.10.top_up.seconds", "needs seats.track"),
])
def test_a_bad_level_key_is_refused_under_its_own_name(text, key, words):
    from shotclock.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert words in caught.value.errors[key]


def test_config_check_says_at_which_levels_the_rules_change(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "c.toml"
    path.write_text('[levels.11]\nmode = "shot"\n[levels.3]\nclock.seconds = 45\n')
    proc = subprocess.run([sys.executable, "-m", "shotclock", "config", "--check", str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("(clock mode, table 'Tafel 1'; rules change at level 3, 11)")
    path.write_text('[levels.11]\nmode = "shot"\nshot.preflop = 0\n')
    proc = subprocess.run([sys.executable, "-m", "shotclock", "config", "--check", str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"shotclock: invalid configuration in {path}: 'levels.11.shot.preflop' must be "
                                   "greater than 0 and at most 3600 (got 0)")
