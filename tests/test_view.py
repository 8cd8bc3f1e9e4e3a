"""The view model: what the screen says in every state, in Dutch and English, and when it changes."""

import pytest

from shotclock.core.engine import Engine
from shotclock.core.events import Action, Bet, Call, Cancel, Extend, Pause, Start, Street
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
    assert (v.screen, v.big, v.title, v.sub, v.info) == ("idle", "Feature 1", "Klok · regel 29", "Klaar", "Geen inzet")
    v = view_at(clock(Bet(0, True)).state, 1, EN)
    assert (v.title, v.sub, v.info) == ("Clock · rule 29", "Ready", "Facing a bet")


def test_running_shows_whole_seconds_and_consequence_in_both_languages():
    e = clock(Call(0, facing_bet=True))
    v = view_at(e.state, 2.3, NL)
    assert (v.screen, v.big, v.sub, v.tone) == ("running", "28", "Bij 0: HAND DOOD", "calm")
    assert view_at(e.state, 2.3, EN).sub == "At 0: HAND DEAD"
    assert view_at(clock(Call(0)).state, 1, NL).sub == "Bij 0: CHECK"


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
    assert (v.screen, v.title, v.sub) == ("interrupted", "INTERRUPTED", "Power cut · 12.5 s left")
    assert "press = resume" in v.info
    assert view_at(engine.state, 6, NL).sub == "Stroomonderbreking · nog 12,5 s"


@pytest.mark.parametrize("events, at, nl, en, tone", [
    ([Call(0, facing_bet=True)], 31, ("HAND DOOD", "geen actie tegen een inzet"), ("HAND DEAD", "no action facing a bet"), "dead"),
    ([Call(0)], 31, ("CHECK", "geen actie, geen inzet"), ("CHECK", "no action, no bet"), "warn"),
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
    assert view_at(e.state, 30.5 + RULING_SECONDS + 1, NL).sub == "Laatste beslissing: HAND DOOD"
    assert view_at(e.state, 30.5 + 61, NL).sub == "Klaar"


def test_shot_mode_shows_street_and_extensions():
    e = clock(Street(0), Start(1), Extend(2), Extend(3), mode="shot")
    v = view_at(e.state, 4, NL)
    assert (v.title, v.info) == ("Shotclock", "Flop · Extensies: 2")
    assert view_at(e.state, 4, EN).info == "Flop · Extensions: 2"


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
