"""The view model: what the screen says in every state, in Dutch and English, and when it changes."""

import pytest

from shotclock.core.engine import Engine
from shotclock.core.events import Action, Bet, Call, Cancel, Extend, Hand, Pause, Start, Stop, Street
from shotclock.core.settings import Settings
from shotclock.core.faults import LOG_WRITE_FAILED, LogFault, NoSound, StuckButton
from shotclock.core.view import RULING_SECONDS, Display, next_change, view_at

NL, EN = Display(table="Feature 1"), Display(table="Feature 1", language="en")


def clock(*events, mode="clock"):
    engine = Engine(Settings(mode=mode))
    for e in events:
        engine.handle(e)
    return engine


def test_idle_shows_table_mode_and_bet_state():
    v = view_at(clock().state, 0, NL)
    assert (v.screen, v.big, v.title, v.sub, v.info) == ("idle", "Feature 1", "Klok · regel 29",
                                                         "Geen inzet · bij 0: CHECK", "Klaar")
    v = view_at(clock(Bet(0, True)).state, 1, EN)
    assert (v.title, v.sub, v.info) == ("Clock · rule 29", "Facing a bet · at 0: HAND DEAD", "Ready")


def test_the_rule_label_comes_from_the_config():
    v = view_at(clock().state, 0, Display(label="TDA 29", language="en"))
    assert v.title == "Clock · TDA 29"
    assert view_at(clock(mode="shot").state, 0, Display(label="WPT")).title == "Shotclock · WPT"
    assert view_at(clock(mode="shot").state, 0, NL).title == "Shotclock"


def test_running_shows_whole_seconds_and_consequence_in_both_languages():
    e = clock(Call(0, facing_bet=True))
    v = view_at(e.state, 2.3, NL)
    assert (v.screen, v.big, v.sub, v.tone) == ("running", "28", "Tegen inzet · bij 0: HAND DOOD", "calm")
    assert view_at(e.state, 2.3, EN).sub == "Facing a bet · at 0: HAND DEAD"
    assert view_at(clock(Call(0)).state, 1, NL).sub == "Geen inzet · bij 0: CHECK"


def test_urgency_moves_from_calm_to_warn_to_countdown():
    e = clock(Call(0))
    tones = [view_at(e.state, t, NL).tone for t in (1, 16, 26)]
    assert tones == ["calm", "warn", "urgent"]
    assert view_at(e.state, 26, NL).screen == "countdown"
    assert view_at(e.state, 29.5, NL).big == "1"
    assert view_at(e.state, 30.2, NL).big == "0"  # inside the tie window: 0 until the ruling


def test_progress_falls_with_time():
    e = clock(Call(0))
    assert [view_at(e.state, t, NL).progress for t in (0, 15, 29.9)] == [1.0, 0.5, pytest.approx(0.25 / 30)]


def test_paused_and_interrupted():
    e = clock(Call(0), Pause(10))
    v = view_at(e.state, 50, NL)
    assert (v.screen, v.big, v.title, v.tone) == ("paused", "20", "GEPAUZEERD", "paused")
    engine = Engine(Settings())
    engine.restore_paused(5, remaining=12.5, facing_bet=True, street=None)
    v = view_at(engine.state, 6, EN)
    assert (v.screen, v.title, v.sub, v.info) == ("interrupted", "INTERRUPTED", "Floor presses: RESUME",
                                                  "Time at the stop · Floor holds: cancel")
    assert view_at(engine.state, 6, NL).sub == "Floor drukt: HERVAT"


@pytest.mark.parametrize("events, at, nl, en, tone", [
    ([Call(0, facing_bet=True)], 31, ("HAND DOOD", "geen actie tegen een inzet"), ("HAND DEAD", "no action facing a bet"), "dead"),
    ([Call(0)], 31, ("CHECK", "geen actie, geen inzet"), ("CHECK", "no action, no bet"), "check"),
    ([Call(0), Action(17.66)], 18, ("ACTIE OP TIJD", "nog 12,3 s over"), ("ACTION IN TIME", "12.3 s left"), "good"),
    ([Call(0), Action(30.2)], 31, ("ACTIE OP 0", "SPELER IN HET VOORDEEL"), ("ACTION AT 0", "PLAYER GETS THE BENEFIT"), "good"),
    ([Call(0), Cancel(3)], 4, ("GEANNULEERD", "geen beslissing"), ("CANCELLED", "no ruling"), "neutral"),
])
def test_rulings(events, at, nl, en, tone):
    e = clock(*events)
    e.advance(at)
    v = view_at(e.state, at, NL)
    assert (v.big, v.sub, v.tone) == (*nl, tone)
    assert (view_at(e.state, at, EN).big, view_at(e.state, at, EN).sub) == en


def test_ruling_gives_way_to_idle_with_last_ruling_then_plain_idle():
    e = clock(Call(0, facing_bet=True))
    e.advance(31)
    assert view_at(e.state, 30.5 + RULING_SECONDS + 1, NL).info == "Laatste beslissing: HAND DOOD"
    assert view_at(e.state, 30.5 + 61, NL).info == "Klaar"


def test_shot_mode_shows_street_and_extensions():
    e = clock(Street(0), Start(1), Extend(2), Extend(3), mode="shot")
    v = view_at(e.state, 4, NL)
    assert (v.title, v.info) == ("Shotclock", "Flop · Extensies: 2 van 4")
    assert view_at(e.state, 4, EN).info == "Flop · Extensions: 2 of 4"


def test_the_idle_screen_after_a_street_no_longer_shows_the_last_decisions_extensions():
    # QA finding 7: "Flop · Extensies: 1 van 4 · Klaar" after 2 extensions, an undo and the street.
    from shotclock.core.events import Undo

    e = clock(Start(0), Extend(1), Extend(2), Undo(3), Street(4), mode="shot")
    assert view_at(e.state, 5, NL).info == "Flop · Klaar"
    e.handle(Start(6))
    assert view_at(e.state, 7, NL).info == "Flop"  # the new decision has its own count (none yet)


def test_street_hand_and_stop_end_a_clock_quietly_but_the_floors_cancel_shows():
    for end in (Street(5), Hand(5), Stop(5)):
        e = clock(Start(0), end, mode="shot")
        v = view_at(e.state, 6, NL)
        assert v.screen == "idle" and "GEANNULEERD" not in (v.big, v.sub, v.info)
        assert next_change(e.state, 6, NL) is None  # nothing waits to fade
    e = clock(Start(0), Cancel(5), mode="shot")
    assert (view_at(e.state, 6, NL).screen, view_at(e.state, 6, NL).big) == ("cancelled", "GEANNULEERD")


def test_extension_limit_and_chips_left_are_shown():
    from shotclock.core.settings import ShotSettings

    engine = Engine(Settings(mode="shot", shot=ShotSettings(allowance=3, extension_limit=0)))
    for event in (Start(0), Extend(1, seat=4)):
        engine.handle(event)
    assert view_at(engine.state, 2, NL).info == "Preflop · Extensies: 1 · nog 2 chips"
    assert view_at(engine.state, 2, EN).info == "Preflop · Extensions: 1 · 2 chips left"
    engine.handle(Extend(3, seat=4))
    assert view_at(engine.state, 4, EN).info == "Preflop · Extensions: 2 · 1 chip left"


def test_faults_are_named():
    v = view_at(clock().state, 0, NL, (StuckButton("action", 3.0), NoSound("no device")))
    assert v.faults == ("Geen geluid", "Knop 'actie' zit vast · genegeerd")
    assert view_at(clock().state, 0, EN, [StuckButton("bet", 1.0)]).faults == ("Button 'bet' stuck · ignored",)
    assert view_at(clock().state, 0, EN, [LogFault(LOG_WRITE_FAILED, "disk full")]).faults == ("Log: cannot write",)


def test_next_change_is_exactly_when_the_view_changes():
    e = clock(Call(0))
    t, changes = 0.0, []
    while (n := next_change(e.state, t)) is not None and n <= 30:
        assert view_at(e.state, n, NL) != view_at(e.state, t, NL)
        assert view_at(e.state, (t + n) / 2, NL) == view_at(e.state, t, NL)
        changes.append(n)
        t = n
    assert len(changes) == 30 * 4  # a quarter-second ring: four frames a second, no more


def test_nothing_changes_while_idle_or_paused():
    assert next_change(clock().state, 5) is None
    assert next_change(clock(Call(0), Pause(3)).state, 5) is None


def test_a_held_button_shows_what_its_hold_will_do_filling_up():
    from shotclock.core.gestures import Hold

    e = clock(Call(0), Pause(5))
    hold = Hold("floor", 9.0, 2.0, "cancel")
    v = view_at(e.state, 10.0, NL, holds=[hold])
    assert (v.hold, v.hold_progress) == ("Vasthouden: ANNULEREN", 0.5)
    assert view_at(e.state, 10.0, EN, holds=[hold]).hold == "Hold: CANCEL"
    assert view_at(e.state, 10.0, NL).hold == ""
    # the bar moves in twentieths of the hold, and nothing else changes on a paused clock
    assert next_change(e.state, 10.0, NL, holds=[hold]) == pytest.approx(10.1)
    assert next_change(e.state, 11.0, NL, holds=[hold]) is None


def test_every_hold_the_gesture_map_can_give_has_words_in_both_languages():
    from shotclock.core import texts
    from shotclock.core.gestures import GESTURES, HOLD

    events = {make(0, clock().state).NAME for (button, kind), row in GESTURES.items() if kind == HOLD
              for make in row.values()}
    assert events == {"cancel", "reset_chips", "stop", "pause", "resume", "undo", "hand"}
    for language in texts.LANGUAGES:
        for name in events:
            assert texts.text(language, f"hold.{name}")


def test_a_quiet_end_after_a_ruling_keeps_the_last_ruling_on_the_idle_screen():
    e = clock(Start(0), mode="shot")
    e.advance(40)  # hand dead at 30.5
    e.handle(Start(42))
    e.handle(Stop(43))  # the dealer's "no more action" ends the new clock quietly
    assert view_at(e.state, 50, NL).info == "Preflop · Laatste beslissing: HAND DOOD"


@pytest.mark.parametrize("end", [Street, Hand])
def test_a_street_or_a_new_hand_soon_after_an_action_never_shows_the_earlier_ruling(end):
    # Issue 17: a street 3 s after an action filled the screen with "ACTIE OP TIJD · nog 25,0 s over",
    # the action that had started the clock the street ended.
    e = clock(Start(0), Action(5), end(8), mode="shot")
    for now in (8, 9, 14.9, 20, 80):
        v = view_at(e.state, now, NL)
        assert (v.screen, v.big) == ("idle", "Feature 1"), now
        assert "ACTIE OP TIJD" not in v.info and v.info.endswith("Klaar"), now
    assert next_change(e.state, 8, NL) is None  # nothing waits to fade


@pytest.mark.parametrize("end", [Street, Hand])
def test_a_street_or_a_new_hand_ends_what_the_screen_shows_of_the_last_decision(end):
    from shotclock.core.events import LastAction

    e = clock(Start(0), LastAction(5), mode="shot")  # a ruling: ACTIE OP TIJD fills the screen for 10 s
    assert view_at(e.state, 6, NL).big == "ACTIE OP TIJD"
    e.handle(end(7))  # the dealer moves the hand on
    v = view_at(e.state, 7.5, NL)
    assert (v.screen, v.info.split(" · ")[-1]) == ("idle", "Klaar")
    e = clock(Call(0, facing_bet=True))  # clock mode too
    e.advance(31)  # hand dead at 30.5
    e.handle(end(32))
    v = view_at(e.state, 33, NL)
    assert (v.screen, v.info.split(" · ")[-1]) == ("idle", "Klaar")
    assert e.state.last.outcome == "hand_dead"  # the log and the floor's messages still know it


def test_the_dealers_stop_soon_after_an_action_shows_no_ruling_full_screen():
    e = clock(Start(0), Action(5), Stop(8), mode="shot")
    v = view_at(e.state, 9, NL)
    assert v.screen == "idle" and v.info == "Preflop · Laatste beslissing: ACTIE OP TIJD"


def tempo(*events, bank=60):
    """A Tempo table (shot mode, 30 s a decision, a 60 s bank each, seats tracked): its engine after ``events``."""
    from shotclock.core.seated import SeatedEngine
    from shotclock.core.settings import SeatSettings

    engine = SeatedEngine(Settings(mode="shot", seats=SeatSettings(track=True, count=6, bank=bank)))
    outputs = []
    for e in events:
        outputs += engine.handle(e)
    return engine, outputs


def test_the_moment_the_bank_starts_is_marked_in_colour_and_words():
    from shotclock.core.events import SeatPlayer

    engine, _ = tempo(SeatPlayer(0, seat=4, name="Ana"), Hand(0), Start(1))
    before = view_at(engine.state, 30.5, Display(language="en"))  # 90 s on the clock: base, then the bank
    assert before.big == "61" and before.tone in ("calm", "warn") and "Bank: 60 s" in before.info
    assert next_change(engine.state, 30.5) == pytest.approx(30.75)  # a ring step first
    assert next_change(engine.state, 30.95) == pytest.approx(31.0)  # then the bank's start itself
    outputs = engine.advance(31.0)
    assert [o.TYPE for o in outputs] == ["bank"]  # the core's cue and the screen's mark at one moment
    during = view_at(engine.state, 31.0, Display(language="nl"))
    assert during.big == "60" and during.tone == "bank" and "TIJDBANK: 60 s" in during.info
    assert view_at(engine.state, 88, Display(language="en")).tone == "urgent"  # the countdown keeps its red


def test_a_fold_names_the_seat_and_player_for_a_few_seconds():
    from shotclock.core.events import Fold, SeatPlayer
    from shotclock.core.view import FOLD_SECONDS, last_fold

    engine, outputs = tempo(SeatPlayer(0, seat=4, name="Ana Costa"), Hand(0), Start(1), Fold(6))
    fold = last_fold(outputs)
    assert fold is not None and fold.seat == 4 and fold.t == 6
    shown = view_at(engine.state, 7, Display(language="en"), fold=fold)
    assert shown.info.startswith("Ana Costa (seat 4) folded")
    assert next_change(engine.state, 7, fold=fold) <= 6 + FOLD_SECONDS
    assert "folded" not in view_at(engine.state, 6 + FOLD_SECONDS, Display(language="en"), fold=fold).info
    assert view_at(engine.state, 7, Display(language="nl"), fold=fold).info.startswith("Ana Costa (stoel 4) fold")
