"""The time ledger per seat and player, from the log's rows (pure) and from a device's log (the CLI)."""

import msgspec

from shotclock.core.ledger import ledger


def rows():
    r = [
        {"type": "seat", "seat": 4, "change": "seated", "name": "Ana"},
        {"clock": 2, "type": "start", "seconds": 20, "street": "preflop", "seat": 4},
        {"clock": 2, "type": "extended", "seconds": 30, "seat": 4},
        {"clock": 2, "type": "decision", "outcome": "acted", "remaining": 10, "seat": 4},  # 40 s
        {"clock": 5, "type": "start", "seconds": 20, "street": "preflop", "seat": 4, "bank": 0},
        {"clock": 5, "type": "decision", "outcome": "hand_dead", "seat": 4},  # 20 s, against her
        {"clock": 7, "type": "start", "seconds": 50, "street": "flop", "seat": 4, "bank": 30},
        {"clock": 7, "type": "decision", "outcome": "acted", "remaining": 5, "seat": 4, "bank_used": 25},  # 45 s
        {"clock": 9, "type": "start", "seconds": 20, "street": "flop", "seat": 4},
        {"clock": 9, "type": "decision", "outcome": "cancelled", "by": "street", "seat": 4},  # no decision
        {"type": "seat", "seat": 4, "change": "emptied", "name": "Ana"},
        {"clock": 11, "type": "start", "seconds": 30, "seat": 4},  # clock mode: called on the unnamed seat 4
        {"clock": 11, "type": "decision", "outcome": "acted", "remaining": 29, "seat": 4},
        {"type": "seat", "seat": 7, "change": "seated", "name": "Ana"},  # Ana moved to seat 7
        {"clock": 13, "type": "start", "seconds": 20, "street": "flop", "seat": 7},
        {"clock": 13, "type": "decision", "outcome": "acted", "remaining": 17, "seat": 7},
    ]
    return [dict(row, id=i) for i, row in enumerate(r, 1)]


def test_the_ledger_counts_each_players_decisions_times_extensions_bank_and_rulings():
    lines = [msgspec.structs.asdict(e.line()) for e in ledger(rows())]
    assert lines == [
        {"seat": 4, "player": "", "decisions": 1, "median_s": 1.0, "p95_s": 1.0, "max_s": 1.0, "clocks_called": 1,
         "extensions": 0, "bank_used_s": 0.0, "rulings_against": 0},
        {"seat": 4, "player": "Ana", "decisions": 3, "median_s": 40.0, "p95_s": 44.5, "max_s": 45.0,
         "clocks_called": 0, "extensions": 1, "bank_used_s": 25.0, "rulings_against": 1},
        {"seat": 7, "player": "Ana", "decisions": 1, "median_s": 3.0, "p95_s": 3.0, "max_s": 3.0, "clocks_called": 0,
         "extensions": 0, "bank_used_s": 0.0, "rulings_against": 0},
    ]


def test_by_name_a_player_keeps_one_line_across_seats():
    lines = [msgspec.structs.asdict(e.line()) for e in ledger(rows(), by_name=True)]
    ana = next(line for line in lines if line["player"] == "Ana")
    assert ana["decisions"] == 4 and ana["seat"] == 0
