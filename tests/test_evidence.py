"""The evidence is the event: every clock a table played on the real device (fake pins, the real log) replays from
``log export --replay N`` to its logged start, ruling, time left, seat and bank, and the ledger and the next clock's
bank agree (see tests/evidence.py)."""

import pytest

from evidence import Bench, disagreements, logged_clocks, replayed

TEMPO = 'preset = "tempo"\n[shot]\npreflop = 4\nflop = 4\nturn = 4\nriver = 4\ncountdown = 2\n[seats]\ncount = 4\nbank = 6\n'
SHOT = ('mode = "shot"\n[shot]\npreflop = 4\nflop = 4\ncountdown = 2\nallowance = 2\nextension = 3\n'
        '[seats]\ntrack = true\ncount = 4\n')
CLOCK = 'mode = "clock"\n[clock]\nseconds = 5\ncountdown = 2\n[seats]\ntrack = true\ncount = 4\nbank = 4\n'


@pytest.fixture
def bench(vclock, tmp_path):
    made = []

    def make(config):
        b = Bench(vclock, tmp_path / "state", config)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


def test_a_tempo_clock_that_ran_into_the_bank_replays_from_its_export_to_its_ruling_seat_and_bank(bench):
    b = bench(TEMPO)
    b.press("street", hold=2.1)  # a new hand
    b.press("action")            # seat 4's clock (4 seats, button 1): 4 s base + 6 s bank
    b.wait(7)                    # 3 s into the bank
    b.press("action")
    b.wait(1)
    b.press("action")
    b.wait(12)                   # seat 2 runs out: dead
    clocks = logged_clocks(b.rows())
    assert clocks[0][1]["bank_used"] > 0 and clocks[0][1]["outcome"] == "acted"
    assert any(d and d["outcome"] == "hand_dead" for _, d in clocks)
    assert disagreements(b) == []
    header = b.export(1).splitlines()[0]
    assert '"seats.bank":6' in header and '"seats.track":true' in header


def test_clocks_after_a_turn_correction_an_empty_and_a_top_up_replay_to_the_same(bench):
    b = bench(TEMPO)
    b.press("street", hold=2.1)
    b.press("action")                      # seat 4's clock
    b.wait(5)                              # into seat 4's bank
    b.chord("bet", "extend")               # the dealer corrects the turn forward: seat 1's own clock
    b.wait(2)
    b.command("top_up", seconds=3)         # seat 1's clock is 3 s longer
    b.wait(8)                              # into seat 1's bank
    b.press("action")                      # seat 1 acted; seat 2's clock
    b.wait(1)
    b.command("empty", seat=2)             # the floor empties the seat on the clock: it ends quietly
    b.press("action")                      # seat 3's clock (the dealer starts it)
    b.wait(2)
    b.command("seat", seat=2, player="Bo", bank=2)
    b.command("rename", seat=3, player="Cy")
    b.press("action")
    b.wait(20)
    rows = b.rows()
    decisions = [d for _, d in logged_clocks(rows) if d]
    assert [d.get("by") for d in decisions[:3]] == ["turn", None, "empty"]
    assert disagreements(b) == []


def test_an_all_in_by_the_dealers_chord_exports_a_clock_that_replays_to_its_decision(bench):
    b = bench(SHOT)
    b.press("street", hold=2.1)
    b.press("action")                      # seat 4's clock
    b.wait(1)
    b.chord("bet", "action")               # seat 4 all-in: seat 1's clock
    b.wait(1)
    b.press("extend")
    b.press("action", hold=2.1)            # seat 1 acted, held: folded
    b.wait(10)
    decisions = [d for _, d in logged_clocks(b.rows()) if d]
    assert len(decisions) >= 3
    assert disagreements(b) == []


def test_a_called_clock_with_seats_and_a_bank_replays_to_its_seat_and_bank(bench):
    b = bench(CLOCK)
    b.press("street", hold=2.1)            # a new hand: seat 4 to act
    b.press("action")                      # seat 4 acted: seat 1 on turn
    b.press("floor")                       # the floor calls the clock on seat 1: 5 s + 4 s bank
    b.wait(7)
    b.press("action")
    b.press("floor")
    b.wait(15)                             # seat 2 runs out
    assert [s["seat"] for s, _ in logged_clocks(b.rows())] == [1, 2]
    assert disagreements(b) == []


def test_a_clock_restored_after_a_crash_and_after_a_stop_replays_to_its_ruling_and_bank(bench):
    b = bench(TEMPO)
    b.press("street", hold=2.1)
    b.press("action")                      # seat 4's clock
    b.wait(5)                              # 1 s into the bank
    b.crash(down=30)                       # back paused with the time it had
    b.press("floor")                       # the floor resumes it
    b.wait(2)
    b.press("action")
    b.wait(3)
    b.stop(down=10)
    b.press("floor")
    b.wait(1)
    b.press("action")
    decisions = [d for _, d in logged_clocks(b.rows()) if d]
    assert decisions[0]["outcome"] == "acted" and decisions[0]["bank_used"] == pytest.approx(3.1, abs=0.2)
    assert disagreements(b) == []


def test_the_listing_shows_each_clocks_seat_and_player(bench):
    b = bench(SHOT)
    b.command("rename", seat=4, player="Ana Costa")
    b.press("street", hold=2.1)
    b.press("action")
    b.press("action")
    lines = b.listing().splitlines()
    assert "SEAT" in lines[0] and "PLAYER" in lines[0]
    assert lines[1].endswith("   4  Ana Costa") and lines[2].endswith("   1  -")


def test_log_replay_check_all_holds_every_session_and_refuses_a_session_with_all(bench, capsys):
    from shotclock.cli import main

    b = bench(TEMPO)
    b.press("street", hold=2.1)
    b.press("action")
    b.wait(5)
    b.crash(down=3)
    b.press("floor")
    b.press("action")
    state = str(b.state)
    assert main(["log", "--state-dir", state, "replay", "--check", "--all"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert len(said) == 2 and all(line.startswith("OK: session ") for line in said)
    assert main(["log", "--state-dir", state, "replay", "1", "--check", "--all"]) == 2
    assert capsys.readouterr().err.splitlines() == ["shotclock: give a session or --all, not both"]
