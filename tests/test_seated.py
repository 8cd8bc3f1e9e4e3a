"""Seat tracking at the table: the engine that knows whose decision it is, the dealer's gestures, and off = as before."""

import json
from pathlib import Path

from shotclock.core import events as ev
from shotclock.core.inputs import Command, Edge
from shotclock.core.replay import parse_events, replay
from shotclock.core.seated import SeatedEngine, make_engine
from shotclock.core.engine import PAUSED, Engine
from shotclock.core.settings import ClockSettings, SeatSettings, Settings, ShotSettings
from shotclock.core.table import Table
from shotclock.errors import ReplayFormatError

import pytest

SHOT6 = Settings(mode="shot", shot=ShotSettings(preflop=20, flop=30, allowance=2),
                 seats=SeatSettings(track=True, count=6))
CLOCK4 = Settings(seats=SeatSettings(track=True, count=4))


def tap(button, t, hold=0.1):
    return [Edge(t, button, True), Edge(t + hold, button, False)]


def records(outputs):
    return [o.record() for o in outputs]


def run(settings, lines):
    return [o.record() for o in replay(parse_events(lines), settings)]


def test_off_the_table_runs_the_bare_engine_and_seat_events_are_ignored_with_the_reason():
    assert type(make_engine(Settings())) is Engine
    out = run(Settings(), ['{"t":0,"event":"fold"}', '{"t":1,"event":"seat","seat":2,"name":"Ana"}'])
    assert out[0] == {"t": 0, "type": "ignored", "event": "fold",
                      "reason": "'fold' needs seat tracking, which is off on this table (seats.track)"}
    assert len(out) == 2


def test_a_shot_hand_names_the_seat_of_every_clock_and_skips_folded_and_all_in_seats():
    out = run(SHOT6, ['{"t":0,"event":"button","seat":6}', '{"t":1,"event":"hand"}', '{"t":2,"event":"start"}',
                      '{"t":3,"event":"fold"}', '{"t":4,"event":"all_in"}', '{"t":5,"event":"action"}',
                      '{"t":6,"event":"end"}'])
    starts = [(r["t"], r["seat"]) for r in out if r["type"] == "start"]
    decisions = [(r["t"], r["seat"]) for r in out if r["type"] == "decision"]
    assert starts == [(2, 3), (3, 4), (4, 5), (5, 6)]
    assert decisions == [(3, 3), (4, 4), (5, 5)]


def test_everyone_folding_to_one_player_ends_the_hand_and_its_clock():
    settings = Settings(mode="shot", seats=SeatSettings(track=True, count=3))
    out = run(settings, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":2,"event":"fold"}',
                         '{"t":3,"event":"fold"}', '{"t":10,"event":"end"}'])
    assert {"t": 3, "type": "hand_over", "seat": 3} in out
    assert [r for r in out if r["type"] == "start"][-1]["t"] == 2  # no clock after the hand is won


def test_nobody_left_to_act_starts_no_next_clock():
    settings = Settings(mode="shot", seats=SeatSettings(track=True, count=2))
    # Heads-up: the button (seat 1) is the small blind and acts first; it goes all-in, seat 2 calls.
    out = run(settings, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":2,"event":"all_in"}',
                         '{"t":3,"event":"action"}', '{"t":40,"event":"end"}'])
    assert [(r["t"], r["seat"]) for r in out if r["type"] == "start"] == [(1, 1), (2, 2)]
    assert out[-1] == {"t": 3, "type": "turn", "why": "action"}  # no seat: nobody can act


def test_an_extension_is_charged_to_the_seat_on_the_clock_and_refused_when_it_has_none():
    settings = Settings(mode="shot", shot=ShotSettings(allowance=1), seats=SeatSettings(track=True, count=3))
    out = run(settings, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":2,"event":"extend"}',
                         '{"t":3,"event":"undo"}', '{"t":4,"event":"extend"}', '{"t":5,"event":"action"}',
                         '{"t":6,"event":"extend"}', '{"t":7,"event":"turn_back"}', '{"t":8,"event":"extend"}',
                         '{"t":9,"event":"end"}'])
    extended = [(r["t"], r["seat"], r["chips_left"]) for r in out if r["type"] == "extended"]
    assert extended == [(2, 1, 0), (4, 1, 0), (6, 2, 0)]
    assert {"t": 8, "type": "ignored", "event": "extend",
            "reason": "seat 1 has used all 1 of its extension chips"} in out


def test_a_ruling_at_zero_folds_a_dead_hand_and_moves_the_turn_on():
    out = run(CLOCK4, ['{"t":0,"event":"hand"}', '{"t":1,"event":"call","facing_bet":true}', '{"t":40,"event":"end"}'])
    assert out[-3:] == [{"t": 31.5, "type": "decision", "outcome": "hand_dead", "seat": 4},
                        {"t": 31.5, "type": "seat", "seat": 4, "change": "folded"},
                        {"t": 31.5, "type": "turn", "seat": 1, "why": "ruling"}]


def test_floor_seat_events_are_refused_with_the_reason():
    out = run(SHOT6, ['{"t":0,"event":"seat","seat":2,"name":"Ana"}', '{"t":1,"event":"seat","seat":2,"name":"Bo"}',
                      '{"t":2,"event":"empty","seat":2}', '{"t":3,"event":"empty","seat":2}',
                      '{"t":4,"event":"button","seat":2}', '{"t":5,"event":"seat","seat":7}'])
    reasons = [r["reason"] for r in out if r["type"] == "ignored"]
    assert reasons == ["seat 2 is taken by Ana: empty it first", "seat 2 is empty", "seat 2 is empty",
                       "seat must be a number from 1 to 6, not 7"]


def test_the_replay_format_checks_seat_events():
    with pytest.raises(ReplayFormatError, match="the 'seat' event needs 'seat' \\(a seat number from 1 to 10\\)"):
        parse_events(['{"t":0,"event":"seat"}'])
    with pytest.raises(ReplayFormatError, match="at most 40 characters"):
        parse_events(['{"t":0,"event":"seat","seat":1,"name":"%s"}' % ("x" * 41)])
    with pytest.raises(ReplayFormatError, match="takes no field 'name'"):
        parse_events(['{"t":0,"event":"fold","name":"x"}'])
    assert parse_events(['{"t":0,"event":"fold","seat":3}']) == [ev.Fold(0, 3)]


# -- the dealer's buttons --------------------------------------------------------------


def shot_table(count=6):
    table = Table(Settings(mode="shot", seats=SeatSettings(track=True, count=count)))
    table.feed([Command(0, "call", id="x", sender="f")], now=0)  # nothing: a shot table takes no call
    table.feed([Edge(0.5, "street", True)], now=2.6)  # hold: a new hand
    table.feed([Edge(2.7, "street", False)], now=2.7)
    return table


def test_the_dealer_marks_fold_by_holding_the_action_button_after_its_press():
    table = shot_table()
    assert table.state.seats.turn == 4  # button 1, blinds 2 and 3
    table.feed(tap("action", 3.0), now=3.2)  # start: seat 4 on the clock
    r = table.feed([Edge(5.0, "action", True)], now=5.5)  # press: seat 4 acted, seat 5 on the clock
    assert table.state.on_clock == 5
    assert [h.event for h in r.holds] == ["fold"]  # the screen shows what the hold will do
    r = table.feed([Edge(7.1, "action", False)], now=7.1)
    assert [i.event for i in r.inputs] == [ev.Fold(7.0, 4)]
    assert 4 not in table.state.seats.in_hand and table.state.on_clock == 5


def test_the_dealer_marks_all_in_by_pressing_action_while_holding_bet_and_the_bet_toggle_is_dropped():
    table = shot_table()
    table.feed(tap("action", 3.0), now=3.2)
    bet = table.state.facing_bet
    r = table.feed([Edge(5.0, "bet", True), Edge(5.2, "action", True), Edge(5.3, "action", False),
                    Edge(5.4, "bet", False)], now=5.5)
    assert [i.event.NAME for i in r.inputs] == ["all_in"]
    assert table.state.facing_bet == bet
    assert table.state.seats.all_in == {4} and table.state.on_clock == 5


def test_the_dealer_corrects_the_turn_back_and_forward_with_bet_held():
    table = shot_table()
    table.feed(tap("action", 3.0), now=3.2)
    r = table.feed([Edge(5.0, "bet", True), Edge(5.2, "street", True), Edge(5.3, "street", False),
                    Edge(5.4, "extend", True), Edge(5.5, "extend", False), Edge(5.6, "extend", True),
                    Edge(5.7, "extend", False), Edge(5.8, "bet", False)], now=6)
    assert [i.event.NAME for i in r.inputs] == ["turn_back", "turn_forward", "turn_forward"]
    assert table.state.on_clock == 5 and table.state.street == "preflop"  # no street, no chip
    assert table.state.extensions == 0


def test_off_the_action_hold_still_stops_and_a_chord_is_two_plain_gestures():
    table = Table(Settings(mode="shot"))
    table.feed(tap("action", 1.0), now=1.2)
    r = table.feed([Edge(2.0, "bet", True), Edge(2.2, "action", True), Edge(2.3, "action", False),
                    Edge(2.4, "bet", False)], now=2.5)
    assert [i.event.NAME for i in r.inputs] == ["action", "bet"]
    r = table.feed([Edge(3.0, "action", True), Edge(5.1, "action", False)], now=5.2)
    assert [i.event.NAME for i in r.inputs] == ["action", "stop"]


def test_the_bundled_seat_examples_exist_and_replay_with_seats():
    root = Path(__file__).parent.parent / "docs" / "examples"
    for name in ("seats-6-handed", "clock-seat-called"):
        expected = (root / f"{name}.expected.jsonl").read_text().splitlines()
        assert any('"seat"' in line for line in expected)
        assert all(json.loads(line) for line in expected)


# -- per-player time ---------------------------------------------------------------------

BANK = Settings(mode="shot", shot=ShotSettings(preflop=10, countdown=2, allowance=2),
                seats=SeatSettings(track=True, count=3, bank=20))


def test_the_time_bank_runs_after_the_base_time_with_its_own_cue_and_what_was_used_is_deducted():
    out = run(BANK, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":16,"event":"action"}',
                     '{"t":17,"event":"end"}'])
    assert {"t": 1, "type": "start", "seconds": 30, "street": "preflop", "seat": 1, "bank": 20} in out
    assert {"t": 11, "type": "bank", "seat": 1, "bank": 20} in out
    decision = next(r for r in out if r["type"] == "decision")
    assert (decision["bank_used"], decision["bank_left"]) == (5, 15)
    assert [r for r in out if r["type"] == "start"][-1]["bank"] == 20  # seat 2's own bank


def test_a_spent_bank_ends_in_the_usual_ruling_and_a_pause_moves_the_cue():
    out = run(BANK, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":5,"event":"pause"}',
                     '{"t":9,"event":"resume"}', '{"t":60,"event":"end"}'])
    assert {"t": 15, "type": "bank", "seat": 1, "bank": 20} in out
    assert {"t": 35.5, "type": "decision", "outcome": "hand_dead", "seat": 1, "bank_used": 20, "bank_left": 0} in out
    beeps = [r["t"] for r in out if r["type"] == "beep"]
    assert beeps == [33, 34, 35]  # the countdown is the bank's end, not the base time's


def restarted(before: SeatedEngine, t: float, remaining: float) -> SeatedEngine:
    """A new engine brought back as the device brings it back after a stop at ``t`` with ``remaining`` left:
    the clock paused first, then the seats (and banks) the log kept."""
    after = SeatedEngine(BANK, t)
    after.restore_paused(t, remaining, False, "preflop", 0, 30)
    after.restore_seats(before.state.seats)
    return after


def test_a_restored_clock_deducts_the_bank_time_used_never_the_time_the_device_was_down():
    engine = SeatedEngine(BANK)
    for event in (ev.Hand(0), ev.Start(1)):
        engine.handle(event)
    engine.advance(15)  # 4 s into seat 1's bank of 20; the device stops here with 16 s left
    after = restarted(engine, 100, 16)  # down for 85 s
    assert after.state.on_clock == 1 and after.state.phase == PAUSED
    out = after.handle(ev.Resume(200)) + after.handle(ev.Action(206))  # 6 s more of the bank
    assert not [o for o in out if o.TYPE == "bank"]  # its cue had sounded before the stop
    decision = next(o for o in out if o.TYPE == "decision")
    assert (decision.seat, decision.remaining, decision.bank_used, decision.bank_left) == (1, 10, 10, 10)


def test_a_clock_restored_before_its_bank_sounds_the_cue_when_the_base_time_is_up():
    engine = SeatedEngine(BANK)
    for event in (ev.Hand(0), ev.Start(1)):
        engine.handle(event)
    after = restarted(engine, 50, 27)  # stopped 3 s into the 10 s base time
    out = after.handle(ev.Resume(60)) + after.advance(68)
    assert [o.record() for o in out if o.TYPE == "bank"] == [{"t": 67, "type": "bank", "seat": 1, "bank": 20}]
    decision = next(o for o in after.handle(ev.Action(70)) if o.TYPE == "decision")
    assert (decision.bank_used, decision.bank_left) == (3, 17)


def test_an_action_at_the_cue_itself_uses_no_bank():
    out = run(BANK, ['{"t":0,"event":"hand"}', '{"t":1,"event":"start"}', '{"t":11,"event":"action"}',
                     '{"t":12,"event":"end"}'])
    assert not [r for r in out if r["type"] == "bank"]
    assert next(r for r in out if r["type"] == "decision")["bank_used"] == 0


def test_the_floor_tops_up_chips_and_banks_for_every_seated_player():
    out = run(BANK, ['{"t":0,"event":"top_up","chips":4,"seconds":30}', '{"t":1,"event":"hand"}',
                     '{"t":2,"event":"start"}', '{"t":3,"event":"extend"}', '{"t":4,"event":"end"}'])
    assert {"t": 0, "type": "top_up", "chips": 4, "seconds": 30} in out
    assert [r for r in out if r["type"] == "start"][0]["bank"] == 50
    assert [r for r in out if r["type"] == "extended"][0]["chips_left"] == 5


def test_a_player_moved_in_brings_their_chips_and_bank_and_leaves_with_them():
    out = run(BANK, ['{"t":0,"event":"empty","seat":2}', '{"t":1,"event":"seat","seat":2,"name":"Bo","bank":7,"chips":1}',
                     '{"t":2,"event":"empty","seat":2}'])
    assert out[0] == {"t": 0, "type": "seat", "seat": 2, "change": "emptied", "bank": 20, "chips": 2}
    assert out[1] == {"t": 1, "type": "seat", "seat": 2, "change": "seated", "name": "Bo", "bank": 7, "chips": 1}
    assert out[2] == {"t": 2, "type": "seat", "seat": 2, "change": "emptied", "name": "Bo", "bank": 7, "chips": 1}


def test_top_ups_that_do_not_apply_are_refused_with_the_reason():
    out = run(SHOT6, ['{"t":0,"event":"top_up","seconds":30}', '{"t":1,"event":"top_up"}'])
    assert [r["reason"] for r in out] == ["this table runs no time bank (seats.bank)", "a top-up needs chips or seconds"]


def test_the_tempo_preset_is_a_seat_aware_time_bank():
    from shotclock.config.loading import parse_config

    config = parse_config('preset = "tempo"\n')
    settings = config.settings
    assert settings.mode == "shot" and settings.seats.track and settings.seats.bank == 300
    assert settings.shot.preflop == 30 and settings.shot.allowance == 0


def test_a_time_bank_without_seat_tracking_is_a_config_error():
    from shotclock.config.loading import parse_config
    from shotclock.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_config('mode = "shot"\n[seats]\nbank = 60\n')
    assert "seats.track" in caught.value.errors["seats.bank"]


# -- the floor ----------------------------------------------------------------------------


def test_a_seating_export_seats_the_whole_table_all_or_nothing():
    out = run(SHOT6, ['{"t":0,"event":"seating","players":[[1,"Ana"],[3,"Bo"]]}',
                      '{"t":1,"event":"seating","players":[[1,"Ana"],[7,"Cy"]]}', '{"t":2,"event":"hand"}'])
    seated = [(r["seat"], r["change"]) for r in out if r["type"] == "seat" and r["t"] == 0]
    assert ("1", "seated") not in seated and (1, "seated") in seated and (3, "seated") in seated
    assert (2, "emptied") in seated and (6, "emptied") in seated
    assert out[-2]["type"] == "ignored" and out[-2]["reason"] == "nothing seated: seat must be a number from 1 to 6, not 7"
    assert out[-1] == {"t": 2, "type": "turn", "seat": 1, "why": "hand", "name": "Ana", "button": 1}  # heads-up


def test_floor_seat_commands_reach_the_table_and_are_acknowledged():
    table = Table(SHOT6)

    def command(t, name, **fields):
        return table.feed([Command(t, name, id=f"c{t}", sender="floor", **fields)], now=t).acks[0]

    assert command(1, "seat", seat=2, player="Ana").caused == ["seat"]  # the unnamed player there is Ana
    assert command(1.5, "seat", seat=2, player="Bo").ignored == "seat 2 is taken by Ana: empty it first"
    assert command(2, "empty", seat=2).caused == ["seat"]
    ack = command(3, "seat", seat=2, player="Ana", chips=1)  # moved in with one chip left
    assert ack.outputs[0].record() == {"t": 3, "type": "seat", "seat": 2, "change": "seated", "name": "Ana", "chips": 1}
    assert command(5, "rename", seat=2, player="Ana Costa").caused == ["seat"]
    assert command(6, "button", seat=5).caused == ["seat"]
    assert command(7, "empty", seat=9).ignored == "seat must be a number from 1 to 6, not 9"
    assert command(8, "seating", players=((1, "X"), (1, "Y"))).ignored == "nothing seated: seat 1 is taken by X: empty it first"
    assert table.state.seats.name(2) == "Ana Costa" and table.state.seats.button == 5


def test_the_wire_checks_seat_commands():
    from shotclock.core.wire import CommandRequest, RecentIds, check_command

    def check(**fields):
        message = {"id": "a", "sender": "floor", "sent_ms": 1000, **fields}
        return check_command(json.dumps(message).encode(), 0, RecentIds(10))

    ok = check(name="seat", seat=3, player="Ana", bank=120, chips=2)
    assert isinstance(ok, CommandRequest) and (ok.seat, ok.player, ok.bank, ok.chips) == (3, "Ana", 120, 2)
    assert check(name="seating", players=[[1, "Ana"], [2, ""]]).players == ((1, "Ana"), (2, ""))
    assert check(name="empty").detail == "the 'empty' command needs 'seat' (a seat number from 1 to 10)"
    assert check(name="seat", seat=3, player="a\nb").detail.startswith("'player': a name must not hold control")
    assert check(name="top_up", seat=3).detail == "the 'top_up' command takes no field 'seat' (it takes 'chips', 'seconds')"
    assert check(name="pause", player="Ana").detail == "the 'pause' command takes no field 'player' (it takes none)"


def test_the_seating_csv_command_checks_every_line_first(tmp_path, capsys):
    from shotclock.cli import main

    good = tmp_path / "s.csv"
    good.write_text('seat,name\n1,Ana Costa\n4,"Okafor, Ben"\n')
    assert main(["seating", str(good), "--at", "5"]) == 0
    assert json.loads(capsys.readouterr().out) == {"t": 5, "event": "seating", "players": [[1, "Ana Costa"], [4, "Okafor, Ben"]]}
    for text, problem in [("1,Ana\n1,Bo\n", "line 2: seat 1 is given twice (line 1 too)"),
                          ("1,Ana\nx,Bo\n", "line 2: the seat must be a number in plain digits (0-9), not 'x'"),
                          ("1,Ana,9\n", "line 1: expected 'seat,name' (2 fields), got 3"),
                          ("10,Ana\n", "line 1: seat 10 is not a seat of this table (1 to 9)"),
                          ("2,\n", "line 1: a name must not be empty")]:
        bad = tmp_path / "b.csv"
        bad.write_text(text)
        assert main(["seating", str(bad)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.strip() == f"shotclock: {bad}: {problem}", err


def test_the_state_message_names_the_seat_on_the_clock_and_every_seats_chips_and_bank():
    from network_schemas import check
    from shotclock.core.wire import state_message

    engine = SeatedEngine(BANK)
    for e in (ev.SeatPlayer(0, 1, "Ana"), ev.Hand(0), ev.Start(1), ev.Extend(2)):
        engine.handle(e)
    message = state_message(engine.state, 3, "7", "3f9c2a71d0e4", 1, "Tafel 7", [], {"outbox": 0})
    check("state", message)
    assert (message["seat"], message["player"], message["bank_ms"], message["turn"]) == (1, "Ana", 20000, 1)
    assert message["seats"][0] == {"seat": 1, "player": "Ana", "in_hand": True, "all_in": False, "chips": 1,
                                   "bank_ms": 20000}
    plain = state_message(Engine(Settings()).state, 0, "7", "3f9c2a71d0e4", 1, "Tafel 7", [], {"outbox": 0})
    assert "seat" not in plain and "seats" not in plain  # off: the message as before


# -- properties with seats on -----------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import settings as hsettings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SEATED_NAMES = ["call", "bet", "action", "last_action", "pause", "resume", "cancel", "hand", "street", "start",
                "stop", "extend", "undo", "reset_chips", "fold", "all_in", "turn_back", "turn_forward", "empty",
                "top_up"]
SEATED_MODES = st.sampled_from([
    Settings(mode="clock", clock=ClockSettings(seconds=10, countdown=3), seats=SeatSettings(track=True, count=4)),
    Settings(mode="shot", shot=ShotSettings(preflop=8, flop=9, countdown=4, extension=5, allowance=2),
             seats=SeatSettings(track=True, count=6, bank=6)),
])


@st.composite
def seated_events(draw):
    t, out = 0.0, []
    for _ in range(draw(st.integers(0, 30))):
        t = round(t + draw(st.integers(0, 20_000_000)) / 1e6, 6)
        name = draw(st.sampled_from(SEATED_NAMES))
        if name in ("bet", "call"):
            out.append(ev.EVENT_TYPES[name](t, draw(st.booleans())))
        elif name == "empty":
            out.append(ev.EmptySeat(t, draw(st.integers(1, 6))))
        elif name == "top_up":
            out.append(ev.TopUp(t, None, draw(st.integers(1, 30))))
        elif name in ("fold", "all_in") and draw(st.booleans()):
            out.append(ev.EVENT_TYPES[name](t, draw(st.integers(1, 6))))
        else:
            out.append(ev.EVENT_TYPES[name](t))
    return out


@given(seated_events(), SEATED_MODES)
@hsettings(max_examples=200, deadline=None)
def test_with_seats_every_clock_has_one_decision_for_its_seat_and_the_turn_is_always_playable(events, settings):
    engine = SeatedEngine(settings)
    outputs = []
    for event in events:
        outputs += engine.handle(event)
        seats = engine.state.seats
        assert seats.turn is None or (seats.turn in seats.in_hand and seats.turn not in seats.all_in)
        assert all(bank >= 0 for _, bank in seats.banks)
    while (wake := engine.next_wake()) is not None:
        outputs += engine.advance(wake)
    times = [o.t for o in outputs]
    assert times == sorted(times)
    running = None  # the seat the running clock is for: its start's, or the turn a correction moved it to
    for o in outputs:
        if o.TYPE == "start":
            assert running is None, "a clock started while another ran"
            running = o.seat
        elif o.TYPE == "turn" and running is not None and o.why in ("back", "forward"):
            running = o.seat
        elif o.TYPE == "decision":
            if o.seat is not None or running is not None:
                assert o.seat == running or any(x.TYPE == "seat" and x.change == "emptied" for x in outputs)
            running = None


def test_the_seat_outputs_read_back_as_written():
    outputs = [ev.Started(1, 20, "flop", 4), ev.Started(1, 50, "flop", 4, 30), ev.Started(0, 30, None, 2),
               ev.Decision(2, "acted", 3.5, False, None, 4), ev.Decision(2, "cancelled", by="street", seat=1),
               ev.Decision(2, "hand_dead", seat=3, bank_used=20, bank_left=0.5), ev.Turn(3, 5, "action"),
               ev.Turn(3, None, "action"), ev.Turn(3, 2, "hand", "Ana \"A\" Costa", 1), ev.Turn(3, 2, "hand", None, 6),
               ev.SeatChanged(4, 2, "seated", "Bo", 30.5, 2), ev.HandOver(5, 3), ev.BankStarted(6, 4, 30),
               ev.ToppedUp(7, 4, None), ev.Decision(8, "acted", 49.3, False, None, 3, 10.7, 49.3),
               ev.Decision(8, "cancelled", by="street", seat=4, bank_used=0, bank_left=60),
               ev.Decision(8, "acted", 3.5), ev.Started(9, 79.3, "flop", 3, 49.3), ev.Turn(9, 4, "action", "Bo"),
               ev.Extended(10, 30, 119.3, 6), ev.Extended(10, 30.5, 20, 2, 1), ev.SeatChanged(11, 5, "folded"),
               ev.SeatChanged(11, 5, "emptied", None, None, 2), ev.BankStarted(12, 4, 49.3)]
    from test_replay_cli import _read_back

    lines = ev.json_lines(outputs).decode().splitlines()
    assert _read_back(lines) == outputs
    assert [json.loads(line) for line in lines] == [out.record() for out in outputs]
    assert json.loads(lines[7]) == {"type": "turn", "t": 3, "why": "action"}  # nobody on turn: no seat, no null


# The hand-over between the engine and the seat side (issue 37): the seat side places the clock the engine started
# (the next player's after an action, the right player's after a turn correction) after the turn line. It used to
# take the engine's last output for that clock (out.pop()) and two outputs for a correction: an output the engine
# came to add after the start would have left the clock before the turn line, a change of the seated record that
# nothing would have said.

SEATED_HAND = [ev.Hand(0), ev.Start(1), ev.Action(3), ev.Fold(5), ev.AllIn(7), ev.TurnBack(8), ev.Action(9),
               ev.Fold(11), ev.TurnForward(12), ev.Action(13), ev.Street(14), ev.Start(15), ev.Fold(16)]
NOTE = 99  # an output the engine does not give: a beep at 99 s


def play_seated(events):
    engine = SeatedEngine(SHOT6)
    return [o for e in events for o in engine.handle(e)]


@pytest.mark.parametrize("transition", ["_acted_next_player", "_restart_for_the_right_seat"])
def test_an_output_the_engine_adds_after_a_start_leaves_the_seated_ruling_as_it_was(monkeypatch, transition):
    before = play_seated(SEATED_HAND)
    handed = [(before[i - 1], o) for i, o in enumerate(before) if o.TYPE == "start" and o.t not in (1, 15)]
    assert len(handed) == 9  # after an action, a fold, an all-in, a turn back and forward: each after its turn line
    assert all(line.TYPE == "turn" and line.t == start.t and line.seat == start.seat for line, start in handed)
    rule = getattr(Engine, transition)
    monkeypatch.setattr(Engine, transition, lambda self, t, event: rule(self, t, event) + [ev.Beep(t / 1e6, NOTE)])
    after = play_seated(SEATED_HAND)
    assert len(after) > len(before)  # the engine's new output is there
    assert [o for o in after if not (o.TYPE == "beep" and o.remaining == NOTE)] == before


def test_the_engine_names_the_clock_each_event_started_and_no_other():
    engine = Engine(SHOT6)
    named = []
    for event in [ev.Start(1), ev.Extend(2), ev.Action(3), ev.Pause(4), ev.Resume(5), ev.Action(40), ev.LastAction(41),
                  ev.Street(42), ev.Start(43), ev.Stop(44)]:
        before = engine.last_started
        out = engine.handle(event)
        starts = [o for o in out if o.TYPE == "start"]
        assert (engine.last_started is not before) == bool(starts)
        if starts:
            assert starts == [engine.last_started] and starts[0] is engine.last_started
            named.append(event.t)
    assert named == [1, 3, 43]  # not at 40: the clock was ruled at 0 before (the ruling starts no clock)
