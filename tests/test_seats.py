"""The seat model: action order by the book, skips, the button, and properties over any hand."""

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from shotclock.core.seats import SeatError, Seats, name_problem


def table(count, occupied, button):
    seats = Seats(count)
    for s in occupied:
        seats.seat(s, f"P{s}")
    seats.set_button(button)
    seats.new_hand()
    return seats


def test_preflop_first_is_left_of_the_big_blind_and_postflop_left_of_the_button():
    seats = table(9, [1, 2, 4, 5, 7, 9], button=2)  # SB 4, BB 5: seat 7 first
    assert seats.blinds() == (4, 5)
    assert seats.turn == 7
    seats.new_street()
    assert seats.turn == 4


def test_heads_up_the_button_is_the_small_blind_first_preflop_last_after():
    seats = table(6, [2, 5], button=5)
    assert seats.blinds() == (5, 2)
    assert seats.turn == 5
    seats.acted()
    assert seats.turn == 2
    seats.new_street()
    assert seats.turn == 2  # the button acts last after the flop
    seats.acted()
    assert seats.turn == 5


def test_a_new_hand_moves_the_button_to_the_next_occupied_seat_but_keeps_one_the_floor_set():
    seats = table(9, [1, 3, 8], button=3)
    assert seats.button == 3
    seats.new_hand()
    assert seats.button == 8
    seats.new_hand()
    assert seats.button == 1
    seats.set_button(8)
    seats.new_hand()
    assert seats.button == 8


def test_folded_and_all_in_seats_are_skipped():
    seats = table(6, [1, 2, 3, 4, 5, 6], button=6)  # SB 1, BB 2, first 3
    assert seats.turn == 3
    seats.fold()
    assert seats.turn == 4
    seats.go_all_in()
    assert seats.turn == 5
    seats.acted()
    seats.acted()   # 6
    seats.acted()   # 1
    assert seats.turn == 2
    seats.acted()
    assert seats.turn == 5  # 3 folded, 4 all-in


def test_everyone_folding_to_one_player_ends_the_hand():
    seats = table(4, [1, 2, 3, 4], button=1)
    seats.fold()
    seats.fold()
    assert seats.winner is None
    seats.fold()
    assert seats.winner is not None and seats.turn is None


def test_nobody_on_turn_when_only_the_player_who_just_acted_can_act():
    seats = table(4, [1, 2, 3], button=1)  # SB 2, BB 3, first 1
    seats.go_all_in()          # 1 all-in
    seats.fold()               # 2 folds
    assert seats.turn == 3
    seats.acted()              # 3 calls the all-in: nobody left to act
    assert seats.turn is None
    seats.new_street()
    assert seats.turn is None


def test_the_turn_is_corrected_one_seat_back_or_forward():
    seats = table(6, [1, 3, 5], button=1)  # SB 3, BB 5, first 1
    seats.forward()
    assert seats.turn == 3
    seats.back()
    seats.back()
    assert seats.turn == 5


def test_a_hand_with_one_player_left_has_nobody_to_put_on_turn():
    seats = table(6, [1, 3, 5], button=1)
    seats.empty(3)
    seats.empty(5)  # the others left the table: seat 1 wins, the hand is over
    assert (seats.winner, seats.turn) == (1, None)
    seats.back()
    seats.forward()
    assert seats.turn is None  # a correction gives nobody a clock in a hand that is over


def test_seat_errors_name_the_problem():
    seats = Seats(6)
    with pytest.raises(SeatError, match="from 1 to 6"):
        seats.seat(7)
    seats.seat(2, "Ana")
    with pytest.raises(SeatError, match="seat 2 is taken by Ana"):
        seats.seat(2)
    with pytest.raises(SeatError, match="seat 3 is empty"):
        seats.empty(3)
    with pytest.raises(SeatError, match="seat 4 is empty"):
        seats.set_button(4)
    with pytest.raises(SeatError, match="2 to 10 seats"):
        Seats(11)
    assert name_problem("x" * 41) == "a name must be at most 40 characters (41 given)"
    assert name_problem(" ") == "a name must not be empty"
    assert name_problem("Ana\u202e") is not None


def test_fewer_than_two_players_deal_no_hand():
    seats = Seats(6)
    seats.seat(3)
    seats.new_hand()
    assert seats.turn is None and seats.blinds() is None


# -- properties ------------------------------------------------------------------------

MOVES = st.sampled_from(["acted", "fold", "all_in", "forward", "back", "street", "hand", "empty", "seat"])


@st.composite
def hands(draw):
    count = draw(st.integers(2, 10))
    occupied = draw(st.sets(st.integers(1, count), min_size=2, max_size=count))
    button = draw(st.sampled_from(sorted(occupied)))
    moves = draw(st.lists(st.tuples(MOVES, st.integers(1, count)), max_size=40))
    return count, sorted(occupied), button, moves


def _apply(seats, move, seat):
    if move == "acted":
        seats.acted()
    elif move == "fold":
        seats.fold()
    elif move == "all_in":
        seats.go_all_in()
    elif move == "forward":
        seats.forward()
    elif move == "back":
        seats.back()
    elif move == "street":
        seats.new_street()
    elif move == "hand":
        seats.new_hand()
    elif move == "empty" and seat in seats.players:
        seats.empty(seat)
    elif move == "seat" and seat not in seats.players:
        seats.seat(seat)


@hsettings(max_examples=300, deadline=None)
@given(hands())
def test_the_turn_never_lands_on_an_empty_folded_or_all_in_seat(hand):
    count, occupied, button, moves = hand
    seats = table(count, occupied, button)
    for move, seat in moves:
        _apply(seats, move, seat)
        turn = seats.turn
        if turn is not None:
            assert turn in seats.players and turn in seats.in_hand and turn not in seats.all_in
            assert len(seats.can_act()) >= 1


@hsettings(max_examples=300, deadline=None)
@given(hands(), st.data())
def test_each_active_seat_gets_one_turn_per_orbit(hand, data):
    count, occupied, button, moves = hand
    seats = table(count, occupied, button)
    for move, seat in moves:
        if move in ("fold", "all_in", "empty", "seat", "hand", "street"):
            _apply(seats, move, seat)
    if seats.turn is None or len(seats.can_act()) < 2:
        return
    active = seats.can_act()
    turns = []
    for _ in range(len(active)):
        turns.append(seats.turn)
        seats.acted()
    assert sorted(turns) == sorted(active)
    assert seats.turn == turns[0]  # the next orbit starts where this one did


@hsettings(max_examples=300, deadline=None)
@given(hands(), st.lists(st.sampled_from(["acted", "all_in"]), max_size=10))
def test_everyone_folding_to_one_player_ends_the_hand_with_that_player(hand, before):
    count, occupied, button, _ = hand
    seats = table(count, occupied, button)
    for move in before:
        _apply(seats, move, 1)
    while seats.turn is not None and len(seats.in_hand) > 1:
        seats.fold()
    # Whoever is left with the others all-in can no longer be on turn; folding the rest by seat ends it.
    for seat in sorted(seats.in_hand)[1:]:
        seats.fold(seat)
    assert len(seats.in_hand) == 1
    assert seats.winner == next(iter(seats.in_hand))
    assert seats.turn is None
