"""Seat changes while a clock runs (docs/rules.md, "Seat changes on a running clock"): each is ruled once, in
core, and the clock's length, the bank cue, the deduction, the empty ack, the next clock's bank and the ledger
all follow from that one ruling."""

import json

import msgspec
import pytest

from shotclock.core.ledger import ledger
from shotclock.core.replay import parse_events, replay
from shotclock.core.settings import ClockSettings, SeatSettings, Settings, ShotSettings

# Three seats, button 1: seat 1 acts first pre-flop. 10 s base, 20 s bank each.
BANK = Settings(mode="shot", shot=ShotSettings(preflop=10, countdown=2, allowance=2),
                seats=SeatSettings(track=True, count=3, bank=20))
CLOCK_BANK = Settings(mode="clock", clock=ClockSettings(seconds=10, countdown=2),
                      seats=SeatSettings(track=True, count=3, bank=20))


def run(settings, *events):
    lines = [json.dumps(e) for e in events]
    return [o.record() for o in replay(parse_events(lines), settings)]


def of(out, kind):
    return [r for r in out if r["type"] == kind]


def log_rows(out):
    """The replay's outputs as the log numbers them: every record of a clock carries its start's id."""
    rows, clock = [], None
    for i, r in enumerate(out, 1):
        if r["type"] == "start":
            clock = i
        rows.append(dict(r, id=i, clock=clock if r["type"] not in ("seat", "turn", "hand_over") else None))
        if r["type"] == "decision":
            clock = None
    return rows


def ledger_of(out):
    return {e.seat: msgspec.to_builtins(e.line()) for e in ledger(log_rows(out))}


HAND = [{"t": 0, "event": "hand"}, {"t": 1, "event": "start"}]


@pytest.mark.parametrize("correction", ["turn_forward", "turn_back"])
def test_a_corrected_turn_gives_the_right_player_their_own_clock_and_bank_and_charges_nobody(correction):
    # Seat 1's clock runs 3 s into seat 1's bank (the cue at 11); the dealer corrects the turn at 14.
    out = run(BANK, *HAND, {"t": 14, "event": correction}, {"t": 30, "event": "action"}, {"t": 31, "event": "end"})
    right = 2 if correction == "turn_forward" else 3
    first, second = of(out, "decision")[:2]
    assert first == {"t": 14, "type": "decision", "outcome": "cancelled", "by": "turn", "seat": 1,
                     "bank_used": 0, "bank_left": 20}
    starts = of(out, "start")
    assert starts[1] == {"t": 14, "type": "start", "seconds": 30, "street": "preflop", "seat": right, "bank": 20}
    assert {"t": 24, "type": "bank", "seat": right, "bank": 20} in out  # the right player's own cue
    assert (second["seat"], second["remaining"], second["bank_used"], second["bank_left"]) == (right, 14, 6, 14)
    banks = {r["seat"]: r.get("bank") for r in starts[2:]}
    if 1 in banks:
        assert banks[1] == 20  # the wrong seat's bank was never charged
    lines = ledger_of(out)
    assert 1 not in lines or (lines[1]["decisions"], lines[1]["bank_used_s"]) == (0, 0)  # the wrong seat: nobody's
    assert (lines[right]["decisions"], lines[right]["bank_used_s"], lines[right]["max_s"]) == (1, 6, 16)


def test_a_corrected_called_clock_is_the_right_players_and_the_wrong_one_was_not_called():
    out = run(CLOCK_BANK, {"t": 0, "event": "hand"}, {"t": 1, "event": "call", "facing_bet": True},
              {"t": 15, "event": "turn_forward"}, {"t": 20, "event": "action"}, {"t": 21, "event": "end"})
    assert of(out, "start")[1] == {"t": 15, "type": "start", "seconds": 30, "seat": 2, "bank": 20}
    lines = ledger_of(out)
    assert 1 not in lines and lines[2]["clocks_called"] == 1 and lines[2]["bank_used_s"] == 0


def test_extension_chips_used_on_the_wrong_seat_are_given_back():
    out = run(BANK, *HAND, {"t": 2, "event": "extend"}, {"t": 3, "event": "turn_forward"},
              {"t": 4, "event": "turn_back"}, {"t": 5, "event": "extend"}, {"t": 6, "event": "end"})
    assert of(out, "extended")[-1]["chips_left"] == 1  # seat 1 has both chips back before its own clock


def test_emptying_the_seat_on_the_clock_ends_it_quietly_and_the_player_leaves_with_the_bank_they_had():
    out = run(BANK, *HAND, {"t": 14, "event": "empty", "seat": 1}, {"t": 15, "event": "start"},
              {"t": 17, "event": "action"}, {"t": 18, "event": "end"})
    decisions = of(out, "decision")
    assert decisions[0] == {"t": 14, "type": "decision", "outcome": "cancelled", "by": "empty", "seat": 1,
                            "bank_used": 0, "bank_left": 20}
    assert {"t": 14, "type": "seat", "seat": 1, "change": "emptied", "bank": 20, "chips": 2} in out
    assert of(out, "start")[1]["seat"] == 2 and of(out, "start")[1]["t"] == 15  # seat 2 gets a clock of its own
    assert (decisions[1]["seat"], decisions[1]["bank_used"], decisions[1]["bank_left"]) == (2, 0, 20)
    lines = ledger_of(out)
    assert 1 not in lines and lines[2]["bank_used_s"] == 0


def test_emptying_another_seat_leaves_the_running_clock_as_it_is():
    out = run(BANK, *HAND, {"t": 5, "event": "empty", "seat": 3}, {"t": 15, "event": "action"},
              {"t": 16, "event": "end"})
    decision = of(out, "decision")[0]
    assert (decision["seat"], decision["remaining"], decision["bank_used"]) == (1, 16, 4)


def test_a_top_up_during_a_players_bank_extends_the_running_clock():
    # 4 s into seat 1's bank (16 s left), every seat gets 10 s more: seat 1's clock is 10 s longer.
    out = run(BANK, *HAND, {"t": 15, "event": "top_up", "seconds": 10}, {"t": 40, "event": "action"},
              {"t": 41, "event": "end"})
    assert of(out, "top_up") == [{"t": 15, "type": "top_up", "seconds": 10, "remaining": 26, "grew": 10}]
    decision = of(out, "decision")[0]
    assert (decision["outcome"], decision["remaining"], decision["bank_used"], decision["bank_left"]) == \
        ("acted", 1, 29, 1)
    assert of(out, "start")[1]["bank"] == 30  # seat 2's bank, topped up too
    assert ledger_of(out)[1]["max_s"] == 39  # the whole clock, the top-up included


def test_a_top_up_past_the_bound_of_a_bank_lengthens_the_clock_only_by_what_the_bank_took():
    # Seat 1's bank is topped up to the bound (36,000 s) on their clock; a second top-up adds nothing to it, so
    # the clock, its restore after a power cut and the ledger grow by the first one's 35,980 s only.
    from shotclock.core.fields import BANK_MAX
    from shotclock.core.restore import at_stop

    out = run(BANK, *HAND, {"t": 5, "event": "top_up", "seconds": BANK_MAX}, {"t": 15, "event": "top_up", "seconds": 10},
              {"t": 40, "event": "action"}, {"t": 41, "event": "end"})
    assert [(r["seconds"], r.get("grew")) for r in of(out, "top_up")] == [(BANK_MAX, BANK_MAX - 20), (10, None)]
    whole = 10 + BANK_MAX  # seat 1's base and the bank at its bound
    assert ledger_of(out)[1]["max_s"] == 39  # t 1 to t 40 (adding the whole top-up made it 59)
    rows = log_rows(out)
    clock = [r for r in rows if r["clock"] == rows[[r["type"] for r in rows].index("start")]["id"]]
    before_ruling = [dict(r, session=1) for r in clock if r["type"] != "decision"]
    assert at_stop(before_ruling).seconds == whole


def test_a_top_up_before_the_bank_runs_moves_its_cue_with_the_end():
    out = run(BANK, *HAND, {"t": 5, "event": "top_up", "seconds": 10}, {"t": 50, "event": "end"})
    assert {"t": 11, "type": "bank", "seat": 1, "bank": 30} in out
    assert of(out, "decision")[0] == {"t": 41.5, "type": "decision", "outcome": "hand_dead", "seat": 1,
                                      "bank_used": 30, "bank_left": 0}


def test_a_seating_during_a_clock_ends_it_quietly_and_charges_nobody():
    out = run(BANK, *HAND, {"t": 14, "event": "seating", "players": [[1, "Ana"], [2, "Bo"], [3, "Cy"]]},
              {"t": 20, "event": "end"})
    decision = of(out, "decision")[0]
    assert decision == {"t": 14, "type": "decision", "outcome": "cancelled", "by": "seating", "seat": 1,
                        "bank_used": 0, "bank_left": 20}
    emptied = [r for r in out if r["type"] == "seat" and r["change"] == "emptied" and r["seat"] == 1]
    assert emptied[0]["bank"] == 20


@pytest.mark.parametrize("event", [{"event": "rename", "seat": 1, "name": "Ana"}, {"event": "button", "seat": 3},
                                   {"event": "seat", "seat": 2, "name": "Bo"}])
def test_a_rename_a_button_or_a_seat_changes_nothing_of_the_running_clock(event):
    out = run(BANK, *HAND, {"t": 5, **event}, {"t": 15, "event": "action"}, {"t": 16, "event": "end"})
    decision = of(out, "decision")[0]
    assert (decision["seat"], decision["remaining"], decision["bank_used"], decision["bank_left"]) == (1, 16, 4, 16)


def test_emptying_a_seat_after_the_hand_is_over_writes_no_second_hand_over():
    out = run(BANK, *HAND, {"t": 2, "event": "fold"}, {"t": 3, "event": "fold"}, {"t": 4, "event": "empty", "seat": 1},
              {"t": 5, "event": "empty", "seat": 2}, {"t": 6, "event": "end"})
    assert of(out, "hand_over") == [{"t": 3, "type": "hand_over", "seat": 3}]


def test_a_clock_topped_up_then_cut_off_comes_back_with_the_longer_clock():
    from shotclock.core.restore import at_stop

    rows = [{"id": 1, "session": 1, "clock": 1, "type": "start", "t": 0.0, "seconds": 30.0},
            {"id": 2, "session": 1, "clock": 1, "type": "top_up", "t": 14.0, "seconds": 10, "remaining": 26.0},
            {"id": 3, "session": 1, "clock": 1, "type": "lost", "t": 20.0}]
    point = at_stop(rows)
    assert (point.remaining, point.seconds) == (20.0, 40.0)
