"""The slow-play report (pure): hand-built archive records, every number worked out by hand."""

import pytest

from shotclock.core.slowplay import COLUMNS, report, sorted_lines

DAY1, DAY2 = "2026-12-01", "2026-12-02"


def utc_day(utc: str) -> str:
    return utc[:10]


def clock(table, clock_id, seat, seconds, end, day=DAY1, street="flop", chain=1, **decision):
    """A clock's start and its decision (``end``: outcome; ``decision``: its other fields)."""
    at = f"{day}T12:00:{clock_id % 60:02d}.000000Z"
    return [{"table": table, "chain": chain, "clock": clock_id, "type": "start", "seconds": seconds, "seat": seat,
             "street": street, "utc": at},
            {"table": table, "chain": chain, "clock": clock_id, "type": "decision", "outcome": end, "seat": seat,
             "utc": at, **decision}]


def seated(table, seat, name, chain=1):
    return {"table": table, "chain": chain, "type": "seat", "seat": seat, "change": "seated", "name": name,
            "utc": f"{DAY1}T11:00:00.000000Z"}


def floor_rows():
    """Ana at table 1 (three decisions on day 1, one a dead hand) then table 7 (day 2: one with an extension and a
    called clock), Bo at table 1 (a check against him), an unnamed seat at table 7."""
    rows = [seated("1", 4, "Ana"), seated("1", 6, "Bo")]
    rows += clock("1", 2, 4, 30, "acted", remaining=18)            # 12 s
    rows += clock("1", 4, 4, 30, "acted", remaining=27.5)          # 2.5 s
    rows += clock("1", 6, 4, 20, "hand_dead")                      # 20 s, against her
    rows += clock("1", 8, 6, 20, "check")                          # 20 s, against him
    rows += clock("1", 10, 6, 20, "cancelled", by="street")        # no decision of his
    rows += [seated("7", 2, "Ana"), {"table": "7", "chain": 1, "type": "seat", "seat": 5, "change": "emptied"}]
    rows += clock("7", 3, 2, 30, "acted", day=DAY2, street=None, remaining=1)  # clock mode: called on her
    rows.insert(-1, {"table": "7", "chain": 1, "clock": 3, "type": "extended", "seconds": 30, "seat": 2})  # 59 s
    rows += clock("7", 5, 5, 30, "acted", day=DAY2, remaining=10)  # nobody's name on seat 5
    return rows


def test_each_player_is_one_line_across_tables_and_days_with_the_numbers_worked_out_by_hand():
    r = report(floor_rows(), day_of=utc_day)
    bo, ana = r.players  # the longest median first (20 s, 16 s)
    assert ana == {"player": "Ana", "tables": "1, 7", "decisions": 4,
                   "median_s": 16.0,   # of 2.5, 12, 20, 59: (12 + 20) / 2
                   "p95_s": 53.15,     # position 0.95 * 3 = 2.85: 20 + 0.85 * (59 - 20)
                   "max_s": 59.0, "clocks_called": 1, "extensions": 1, "bank_used_s": 0.0,
                   "rulings_against": 1, "hands_dead": 1, "checks": 0, "warnings": 0, "clock_marks": 0, "marks": ""}
    assert bo == {"player": "Bo", "tables": "1", "decisions": 1, "median_s": 20.0, "p95_s": 20.0, "max_s": 20.0,
                  "clocks_called": 0, "extensions": 0, "bank_used_s": 0.0, "rulings_against": 1, "hands_dead": 0,
                  "checks": 1, "warnings": 0, "clock_marks": 0, "marks": ""}
    assert list(ana) == list(COLUMNS)
    assert r.unnamed_decisions == 1 and r.days == [DAY1, DAY2] and r.tables == ["1", "7"]


def test_a_day_counts_the_clocks_started_that_day_and_keeps_the_names_given_before_it():
    r = report(floor_rows(), day=DAY2, day_of=utc_day)
    (ana,) = r.players  # named on day 1, played on day 2 only at table 7
    assert (ana["tables"], ana["decisions"], ana["median_s"], ana["clocks_called"]) == ("7", 1, 59.0, 1)
    assert r.days == [DAY1, DAY2]  # the filter's choices stay
    assert report(floor_rows(), day="2026-11-30", day_of=utc_day).players == []


def test_a_table_filter_reads_that_table_alone():
    r = report(floor_rows(), table="1", day_of=utc_day)
    assert [(p["player"], p["tables"], p["decisions"]) for p in r.players] == [("Bo", "1", 1), ("Ana", "1", 3)]
    assert r.unnamed_decisions == 0


def test_a_pause_and_a_device_restart_inside_a_decision_never_count():
    """Ana's clock: 30 s; 10 s run, then a 5-minute pause, then the device is down for 15 minutes (a restart brings
    it back with what it had when it stopped), then she acts with 6 s left: 24 s of her time, whatever the wall
    clock says (the records span half an hour) and whatever the new boot's monotonic times are."""
    at = lambda minute, second=0: f"{DAY1}T10:{minute:02d}:{second:02d}.000000Z"
    rows = [seated("1", 3, "Ana"),
            {"table": "1", "chain": 1, "clock": 2, "type": "start", "seconds": 30, "seat": 3, "street": "flop",
             "t": 100.0, "utc": at(0)},
            {"table": "1", "chain": 1, "clock": 2, "type": "pause", "remaining": 20, "t": 110.0, "utc": at(0, 10)},
            {"table": "1", "chain": 1, "clock": 2, "type": "resume", "remaining": 20, "t": 400.0, "utc": at(5)},
            {"table": "1", "chain": 1, "clock": 2, "type": "checkpoint", "remaining": 15, "t": 405.0,
             "utc": at(5, 5)},
            # the device stops with 14 s left; it is back 15 minutes later, its monotonic clock from 0 again
            {"table": "1", "chain": 1, "clock": None, "type": "session", "t": 3.0, "utc": at(20)},
            {"table": "1", "chain": 1, "clock": 2, "type": "interrupted", "remaining": 14, "seconds": 30,
             "cause": "stop", "t": 3.5, "utc": at(20)},
            {"table": "1", "chain": 1, "type": "seats_restored", "players": {"3": "Ana"}, "t": 3.5, "utc": at(20)},
            {"table": "1", "chain": 1, "clock": 2, "type": "resume", "remaining": 14, "t": 600.0, "utc": at(30)},
            {"table": "1", "chain": 1, "clock": 2, "type": "decision", "outcome": "acted", "remaining": 6,
             "at_zero": False, "seat": 3, "t": 608.0, "utc": at(30, 8)}]
    (ana,) = report(rows, day_of=utc_day).players
    assert (ana["decisions"], ana["median_s"], ana["max_s"]) == (1, 24.0, 24.0)


def test_a_second_device_log_of_a_table_keeps_its_clocks_apart():
    """A device replaced: its log starts again at record 1, so clock 2 of chain 2 is another clock than chain 1's."""
    rows = [seated("1", 4, "Ana")] + clock("1", 2, 4, 30, "acted", remaining=20)[:1]
    rows += [seated("1", 4, "Ana", chain=2)] + clock("1", 2, 4, 30, "acted", chain=2, remaining=25)
    rows += clock("1", 2, 4, 30, "acted", remaining=20)[1:]  # chain 1's ruling arrives late
    (ana,) = report(rows, day_of=utc_day).players
    assert ana["decisions"] == 2 and sorted([ana["median_s"] - 2.5, ana["median_s"] + 2.5]) == [5.0, 10.0]


def test_tables_are_in_number_order():
    rows = [dict(r, table=t) for t in ("10", "2", "feature") for r in clock(t, 2, 1, 30, "acted", remaining=1)]
    assert report(rows, day_of=utc_day).tables == ["2", "10", "feature"]


def test_lines_sort_by_any_column():
    lines = report(floor_rows(), day_of=utc_day).players
    assert [line["player"] for line in sorted_lines(lines, "player")] == ["Ana", "Bo"]
    assert [line["player"] for line in sorted_lines(lines, "checks")] == ["Bo", "Ana"]
    with pytest.raises(ValueError, match="cannot sort by 'speed'"):
        sorted_lines(lines, "speed")


def random_floor(draw_clocks):
    """Records of random clocks: (table, day, seat, seconds, outcome, remaining, extended)."""
    rows, names = [], ["Ana", "Bo", "Cy"]
    for table in ("1", "2"):
        rows += [seated(table, seat, names[seat - 1]) for seat in (1, 2, 3)]
    for n, (table, day, seat, seconds, outcome, left, extended) in enumerate(draw_clocks, start=1):
        start, end = clock(table, 2 * n, seat, seconds, outcome, day=day, remaining=min(left, seconds))
        rows.append(start)
        if extended:
            rows.append({"table": table, "chain": 1, "clock": 2 * n, "type": "extended", "seconds": 15, "seat": seat})
        rows.append(end)
    return rows


def test_the_days_and_the_tables_each_add_up_to_the_whole_report():
    from hypothesis import given, settings, strategies as st

    clocks = st.lists(st.tuples(st.sampled_from(["1", "2"]), st.sampled_from([DAY1, DAY2]), st.integers(1, 3),
                                st.integers(1, 60), st.sampled_from(["acted", "hand_dead", "check", "cancelled"]),
                                st.floats(0, 60, allow_nan=False), st.booleans()), max_size=30)

    @settings(max_examples=150, deadline=None)
    @given(clocks)
    def check(drawn):
        rows = random_floor(drawn)
        whole = {p["player"]: p for p in report(rows, day_of=utc_day).players}
        for split, values in (("day", (DAY1, DAY2)), ("table", ("1", "2"))):
            parts = [report(rows, day_of=utc_day, **{split: v}).players for v in values]
            for column in ("decisions", "extensions", "rulings_against", "hands_dead", "checks", "clocks_called"):
                summed = {}
                for part in parts:
                    for p in part:
                        summed[p["player"]] = summed.get(p["player"], 0) + p[column]
                assert summed == {name: p[column] for name, p in whole.items()}, (split, column)
        for p in whole.values():  # every time lies between nothing and the clock's longest length
            assert p["max_s"] is None or 0 <= p["median_s"] <= p["p95_s"] <= p["max_s"] <= 75

    check()


def mark(table, name, at, change="marked", by="floor-anna", **fields):
    return {"table": table, "chain": 1, "type": "mark", "seat": 4, "change": change, "name": name, "by": by,
            "utc": at, **fields}


def test_the_report_counts_marks_and_says_who_made_them():
    rows = floor_rows() + [mark("1", "Ana", f"{DAY1}T14:02:00Z", mark="warning"),
                           mark("7", "Ana", f"{DAY2}T15:30:00Z", by="td", mark="clock", mark_seconds=10),
                           mark("7", "Ana", f"{DAY2}T16:05:00Z", "unmarked", by="td", mark="clock", mark_seconds=10),
                           mark("7", "Cy", f"{DAY2}T17:00:00Z", mark="warning")]
    lines = {line["player"]: line for line in report(rows, day_of=utc_day).players}
    assert (lines["Ana"]["warnings"], lines["Ana"]["clock_marks"]) == (1, 1)
    assert lines["Ana"]["marks"] == "warning by floor-anna 14:02; clock 10 s by td 15:30; clock 10 s off by td 16:05"
    # A player marked with no decision of theirs is in the report; a day keeps the marks made on it.
    assert lines["Cy"]["decisions"] == 0 and lines["Cy"]["warnings"] == 1 and lines["Cy"]["tables"] == "7"
    day1 = {line["player"]: line for line in report(rows, day=DAY1, day_of=utc_day).players}
    assert day1["Ana"]["marks"] == "warning by floor-anna 14:02" and "Cy" not in day1
    by_warnings = report(rows, day_of=utc_day, sort="warnings").players
    assert [line["player"] for line in by_warnings][:2] == ["Ana", "Cy"]


def test_a_level_filter_keeps_the_clocks_started_at_that_level_and_the_marks_made_at_it():
    # Issue 28, 2 with issue 27's levels: a clock belongs to the level its hand began at (the ``level`` record), or
    # the level a restart brought back (``level_restored``); a table never given a level is in no level's report.
    rows = [seated("1", 4, "Ana"), {"table": "1", "chain": 1, "type": "level", "level": 10, "hand": 1}]
    rows += clock("1", 2, 4, 30, "acted", remaining=18)                       # 12 s at level 10
    rows += [{"table": "1", "chain": 2, "type": "level_restored", "current": {"level": 11, "hand": 3}, "next": None}]
    rows += clock("1", 4, 4, 30, "acted", chain=2, remaining=28)              # 2 s at level 11 (after a restart)
    rows += [{"table": "1", "chain": 2, "type": "mark", "seat": 4, "change": "marked", "mark": "warning",
              "name": "Ana", "by": "td", "utc": f"{DAY1}T12:30:00.000000Z"}]
    rows += [seated("2", 1, "Bo")] + clock("2", 2, 1, 20, "acted", remaining=10)  # table 2: no level ever set
    line = lambda r, name: next(p for p in r.players if p["player"] == name)  # noqa: E731
    whole = report(rows, day_of=utc_day)
    assert whole.levels == [10, 11] and line(whole, "Ana")["decisions"] == 2 and line(whole, "Bo")["decisions"] == 1
    ten = report(rows, day_of=utc_day, level=10)
    assert [(p["player"], p["decisions"], p["median_s"], p["warnings"]) for p in ten.players] == [("Ana", 1, 12.0, 0)]
    eleven = report(rows, day_of=utc_day, level=11)
    assert [(p["player"], p["decisions"], p["median_s"], p["warnings"]) for p in eleven.players] == [("Ana", 1, 2.0, 1)]
    assert report(rows, day_of=utc_day, level=12).players == []
