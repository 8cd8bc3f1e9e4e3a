"""A tournament's structure (core/structure.py) and its readers (core/structure_formats.py): each format floors have
gives the same levels and breaks, and each bad stage is one line naming its line or level and the field, in the
words and bounds of the table of fields."""

from pathlib import Path

import pytest

from shotclock.core.fields import BLIND_MAX, FIELDS, HANDS_MAX, LEVEL_MAX, STAGE_MINUTES_MAX
from shotclock.core.structure import Stage, Structure, stage_problem, structure_lines, structure_problem
from shotclock.core.structure_formats import read_csv, read_tdt, read_toml
from shotclock.errors import StructureError

FIXTURES = Path(__file__).parent / "fixtures" / "structures"


def level(sb=25, bb=50, minutes=20, **more) -> Stage:
    return Stage(minutes=minutes, small_blind=sb, big_blind=bb, **more)


def pause(minutes=10, name="", **more) -> Stage:
    return Stage(minutes=minutes, is_break=True, name=name, **more)


def summary(structure: Structure) -> list[tuple]:
    """Each stage as (label, blinds or name, minutes, hands): what a floor checks against the structure sheet."""
    return [(structure.label(i), s.name if s.is_break else s.blinds, s.minutes, s.hands)
            for i, s in enumerate(structure.stages)]


# --- the rules -------------------------------------------------------------------------------------------------

def test_a_good_level_and_break_break_no_rule():
    assert stage_problem(level()) is None and stage_problem(pause(name="dinner")) is None
    assert stage_problem(level(100, 100)) is None  # the small blind may equal the big blind
    assert stage_problem(level(minutes=0, hands=12)) is None  # a level that ends by hands needs no minutes
    assert stage_problem(level(minutes=12.5, ante=50, big_blind_ante=True)) is None


@pytest.mark.parametrize("stage, key, words", [
    (level(sb=0), "small_blind", f"'small_blind' must be a whole number of chips from 1 to {BLIND_MAX}, not 0"),
    (level(sb=-25), "small_blind", "not -25"),
    (level(bb=0), "big_blind", "'big_blind' must be a whole number of chips from 1 to"),
    (level(sb=2.5), "small_blind", "not 2.5"),
    (level(sb="25"), "small_blind", 'not "25"'),
    (level(sb=True), "small_blind", "not true"),
    (level(bb=BLIND_MAX + 1), "big_blind", f"not {BLIND_MAX + 1}"),
    (level(sb=100, bb=50), "small_blind", "'small_blind' (100) must not be more than 'big_blind' (50)"),
    (level(ante=-1), "ante", "'ante' must be a whole number of chips from 0 to"),
    (level(big_blind_ante="yes"), "big_blind_ante", "'big_blind_ante' must be true or false"),
    (level(minutes=0), "minutes", f"'level_minutes' must be a number of minutes from 1 to {STAGE_MINUTES_MAX}, not 0"),
    (level(minutes=STAGE_MINUTES_MAX + 1), "minutes", "'level_minutes' must be a number of minutes"),
    (level(minutes=float("nan")), "minutes", "'level_minutes' must be a number of minutes"),
    (level(minutes=None), "minutes", "a level needs 'level_minutes' (a number of minutes from 1 to 240)"),
    (level(sb=None), "small_blind", "a level needs 'small_blind' (a whole number of chips from 1 to"),
    (level(hands=HANDS_MAX + 1), "hands", f"'hands' must be a number of hands from 0 to {HANDS_MAX}"),
    (level(minutes=600, hands=12), "minutes", "'level_minutes' must be a number of minutes"),
    (level(name="a\nb"), "name", "'stage_name': a name must not hold control characters"),
    (pause(small_blind=25), "small_blind", "a break has no blinds, ante or hands: 'small_blind' is 25"),
    (pause(ante=5), "ante", "a break has no blinds, ante or hands: 'ante' is 5"),
    (pause(hands=3), "hands", "a break has no blinds, ante or hands: 'hands' is 3"),
    (pause(big_blind_ante=True), "big_blind_ante", "a break has no blinds, ante or hands"),
    (pause(minutes=0), "minutes", "'break_minutes' must be a number of minutes from 1 to 240, not 0"),
    (pause(minutes=None), "minutes", "a break needs 'break_minutes'"),
    (pause(name="x" * 61), "name", "'stage_name': a name must be at most 60 characters"),
    (Stage(minutes=10, is_break="yes"), "is_break", "'is_break' must be true or false"),
])
def test_each_rule_names_its_field_in_the_field_tables_words(stage, key, words):
    problem = stage_problem(stage)
    assert problem is not None and problem[0] == key and words in problem[1], problem


def test_the_bounds_are_the_field_tables():
    rule = FIELDS["level_minutes"]
    assert stage_problem(level(minutes=rule.high)) is None and stage_problem(level(minutes=rule.high + 0.5))
    assert stage_problem(level(sb=FIELDS["small_blind"].high, bb=FIELDS["big_blind"].high)) is None


def test_a_structure_needs_a_level_a_good_title_and_at_most_the_tables_levels():
    assert structure_problem(Structure("", (level(),))) is None
    assert structure_problem(Structure("x", ())) == (None, "stages", "a structure needs at least one level (none "
                                                                     "was read)")
    assert structure_problem(Structure("x", (pause(),)))[2].endswith("(only breaks were read)")
    assert structure_problem(Structure("a\tb", (level(),)))[:2] == (None, "title")
    assert structure_problem(Structure("x" * 101, (level(),)))[:2] == (None, "title")
    many = Structure("x", tuple(level() for _ in range(LEVEL_MAX)))
    assert structure_problem(many) is None
    assert structure_problem(Structure("x", many.stages + (level(),)))[:2] == (LEVEL_MAX, "stages")
    assert structure_problem(Structure("x", (level(), pause(), level(sb=0)))) == \
        (2, "small_blind", stage_problem(level(sb=0))[1])


def test_stages_are_labelled_as_a_floor_names_them():
    s = Structure("x", (pause(), level(), level(), pause(), pause(), level()))
    assert [s.label(i) for i in range(6)] == ["the break before level 1", "level 1", "level 2",
                                              "the break after level 2", "the break after level 2", "level 3"]


def test_the_printed_structure_numbers_levels_and_names_breaks():
    s = Structure("Sunday", (level(), pause(60, "dinner"), level(100, 200, 30, ante=200, big_blind_ante=True),
                             level(400, 800, 0, hands=12, name="PLO")))
    assert structure_lines(s) == [
        "Sunday: 3 levels, 1 break, 1 h 50 min and 12 hands",
        "  level 1   25/50                     20 min",
        "  break     dinner                    60 min",
        "  level 2   100/200, BB ante 200      30 min",
        "  level 3   400/800                 12 hands  PLO"]


# --- TD's saved tournament (.tdt) ------------------------------------------------------------------------------

def test_tds_saved_tournament_gives_its_rounds_and_breaks_in_order():
    notes = []
    s = read_tdt((FIXTURES / "sunday.tdt").read_text(encoding="utf-8"), notes)
    assert s.title == "Sunday Deepstack €250"
    assert summary(s) == [
        ("level 1", "25/50", 20, 0), ("level 2", "50/100", 20, 0), ("level 3", "75/150", 20, 0),
        ("the break after level 3", "color-up", 10, 0), ("level 4", "100/200, BB ante 200", 20, 0),
        ("level 5", "150/300, BB ante 300", 20, 0), ("the break after level 5", "dinner", 60, 0),
        ("level 6", "200/400, BB ante 400", 30, 0), ("level 7", "300/600, BB ante 600", 30, 0)]
    assert s.stages[0].name == "Texas Hold 'Em" and notes == []


def test_an_old_tdt_with_new_map_and_lines_reads_alike():
    s = read_tdt((FIXTURES / "club-2019.tdt").read_bytes().decode("cp1252"))
    assert s.title == "Café Zürich Freezeout"
    assert summary(s) == [("level 1", "10/20", 15, 0), ("level 2", "20/40", 15, 0),
                          ("the break after level 2", "Pause café", 15, 0), ("level 3", "30/60, ante 5", 15, 0)]


def tdt(*levels: str, title: str = '"T"') -> str:
    return '{V: "3.7.2", T: new Tournament({Title: %s, Levels: [%s]})}' % (title, ", ".join(levels))


def test_unknown_constructors_and_fields_are_skipped_and_said():
    notes = []
    s = read_tdt(tdt("new GameRound({Minutes: 20, SmallBlind: 25, BigBlind: 50, Future: new Thing({x: [1]})})",
                     "new GameAnnouncement({Text: 'shuffle up'})", "42",
                     "new GameBreak({Minutes: 5, ColorUp: true})"), notes)
    assert summary(s) == [("level 1", "25/50", 20, 0), ("the break after level 1", "color-up", 5, 0)]
    assert notes == ["entry 2 of Levels is a GameAnnouncement, not a GameRound or GameBreak: skipped",
                     "entry 3 of Levels is a value, not a GameRound or GameBreak: skipped"]


def test_a_big_blind_ante_is_a_flag_or_its_amount():
    s = read_tdt(tdt("new GameRound({Minutes: 20, SmallBlind: 100, BigBlind: 200, Ante: 200, BigBlindAnte: true})",
                     "new GameRound({Minutes: 20, SmallBlind: 200, BigBlind: 400, BBAnte: 400})",
                     "new GameRound({Minutes: 20, SmallBlind: 300, BigBlind: 600, Ante: 75, BigBlindAnte: false})",
                     "new GameRound({Minutes: 20, SmallBlind: 400, BigBlind: 800, Ante: 0, BigBlindAnte: true})",
                     "new GameRound({Minutes: 0, SmallBlind: 500, BigBlind: 1000.0, Hands: 12})"))
    assert [s.blinds for s in s.stages] == ["100/200, BB ante 200", "200/400, BB ante 400", "300/600, ante 75",
                                            "400/800", "500/1000"]
    assert s.stages[3].big_blind_ante is False and s.stages[4].hands == 12 and type(s.stages[4].big_blind) is int


ROUND = "new GameRound({Minutes: 20, SmallBlind: 25, BigBlind: 50})"


@pytest.mark.parametrize("levels, bad, where, words", [
    (["new GameRound({Minutes: 20, SmallBlind: 0, BigBlind: 50})"], 0, "level 1 (line 1, column {}), SmallBlind",
     "'small_blind' must be a whole number of chips from 1 to"),
    ([ROUND, "new GameBreak({Minutes: 5})", "new GameRound({Minutes: 20, SmallBlind: -50, BigBlind: 100})"], 2,
     "level 2 (line 1, column {}), SmallBlind", "not -50"),
    ([ROUND, "new GameBreak({Minutes: 500})"], 1, "the break after level 1 (line 1, column {}), Minutes",
     "'break_minutes' must be a number of minutes"),
    (["new GameBreak({Minutes: 5, SmallBlind: 25})", ROUND], 0,
     "the break before level 1 (line 1, column {}), SmallBlind", "a break has no blinds"),
    (["new GameRound({Minutes: 20, BigBlind: 50})"], 0, "level 1 (line 1, column {}), SmallBlind",
     "a level needs 'small_blind'"),
    (["new GameRound({Minutes: 20, SmallBlind: 60, BigBlind: 50})"], 0, "level 1 (line 1, column {}), SmallBlind",
     "'small_blind' (60) must not be more than 'big_blind' (50)"),
    (["new GameRound({Minutes: 20, SmallBlind: '25', BigBlind: 50})"], 0, "level 1 (line 1, column {}), SmallBlind",
     'not "25"'),
    (["new GameRound({Duration: 0, SmallBlind: 25, BigBlind: 50})"], 0, "level 1 (line 1, column {}), Duration",
     "'level_minutes' must be a number of minutes from 1 to 240, not 0"),
    (["new GameRound({Minutes: 20, SmallBlind: 25, BigBlind: 50, GameName: 'NL\\nHE'})"], 0,
     "level 1 (line 1, column {}), GameName", "'stage_name': a name must not hold control characters"),
    (["new GameBreak({Minutes: 20})"], None, "Levels", "a structure needs at least one level (only breaks were read)"),
])
def test_a_bad_round_is_named_by_its_level_place_and_tds_field(levels, bad, where, words):
    text = tdt(*levels)
    with pytest.raises(StructureError) as caught:
        read_tdt(text)
    column = None if bad is None else text.index(levels[bad]) + 1  # the bad entry's place in the one-line file
    assert caught.value.where == where.format(column), str(caught.value)
    assert words in caught.value.problem, str(caught.value)


MANY = tdt(*[ROUND] * (LEVEL_MAX + 1))


@pytest.mark.parametrize("text, where, words", [
    (tdt("new GameRound({Minutes: 20, SmallBlind: 25, BigBlind: 50})", title='"a\\tb"'), "Title",
     "'title': a title must not hold control characters"),
    ('{V: "3.7.2", T: new Tournament({Title: "x"})}', "line 1, column 17", "the tournament has no Levels"),
    ('{V: "3.7.2"}', "", "no tournament in the file"),
    ('[1, 2]', "", "no tournament in the file"),
    ('{V: "1", T: new Tournament({Levels: [new GameRound({Minutes: 20 * 60})]})}', "line 1, column 65",
     "an operator '*'"),
    ('{V: "1", T: new Tournament({Levels: []})}; fetch("https://example.org")', "line 1, column 42", "';'"),
    ("   \n", "", "the file is empty"),
    (MANY, f"level {LEVEL_MAX + 1} (line 1, column {MANY.rindex(ROUND) + 1})",
     f"a structure has at most {LEVEL_MAX} levels"),
])
def test_a_file_that_is_not_tds_tournament_is_named(text, where, words):
    with pytest.raises(StructureError) as caught:
        read_tdt(text)
    assert caught.value.where == where and words in caught.value.problem, str(caught.value)


# --- CSV: the plain one and TD's rounds export ----------------------------------------------------------------

def test_the_plain_csv_gives_levels_breaks_and_big_blind_antes():
    s = read_csv((FIXTURES / "plain.csv").read_text(encoding="utf-8"))
    assert summary(s) == [("level 1", "25/50", 20, 0), ("level 2", "50/100", 20, 0),
                          ("the break after level 2", "color-up", 10, 0), ("level 3", "100/200, BB ante 200", 20, 0),
                          ("level 4", "200/400, BB ante 400", 20, 0)]


def test_the_plain_csvs_aliases_read_alike_and_a_break_may_follow_a_level():
    s = read_csv((FIXTURES / "aliases.csv").read_text(encoding="utf-8"))
    assert summary(s) == [("level 1", "25/50", 20, 0), ("level 2", "50/100", 20, 0),
                          ("the break after level 2", "", 10, 0), ("level 3", "100/200, ante 25", 20, 0),
                          ("the break after level 3", "", 60, 0), ("level 4", "200/400, ante 50", 30, 0)]


def test_tds_rounds_export_is_read_by_its_columns_names():
    notes = []
    s = read_csv((FIXTURES / "td-rounds.csv").read_text(encoding="utf-8"), notes)
    assert summary(s) == [("level 1", "25/50", 20, 0), ("level 2", "50/100", 20, 0),
                          ("the break after level 2", "color-up", 10, 0), ("level 3", "100/200, ante 200", 20, 0),
                          ("level 4", "500/1000, ante 1000", 20, 0)]
    assert s.stages[0].name == "No Limit Hold'em" and notes == ["columns not read: Start Time"]


def test_an_export_with_semicolons_a_blinds_column_and_grouped_thousands_reads_alike():
    s = read_csv((FIXTURES / "td-rounds-semicolon.csv").read_text(encoding="utf-8"))
    assert summary(s) == [("level 1", "100/200", 30, 0), ("level 2", "200/400, BB ante 400", 30, 0),
                          ("the break after level 2", "", 15, 0), ("level 3", "1000/2000, BB ante 2000", 30, 0)]


@pytest.mark.parametrize("cell, minutes", [("20", 20), ("12.5", 12.5), ("12,5", 12.5), ("20 min", 20),
                                           ("20:00", 20), ("12:30", 12.5), ("1:30:00", 90), ("20m", 20)])
def test_an_exports_minutes_may_be_written_as_a_clock_shows_them(cell, minutes):
    s = read_csv(f'Level;Small Blind;Big Blind;Duration\n1;25;50;{cell}\n')
    assert s.stages[0].minutes == minutes


@pytest.mark.parametrize("text, where, words", [
    ("sb,bb,minutes\n0,50,20\n", "line 2 (level 1), column 'sb'", "'small_blind' must be a whole number of chips"),
    ("sb,bb,minutes\n-25,50,20\n", "line 2 (level 1), column 'sb'", 'not "-25"'),
    ("sb,bb,minutes\n25,50,20\n25,,20\n", "line 3 (level 2), column 'bb'", "a level needs 'big_blind'"),
    ("small_blind,big_blind,minutes\n25,50,0\n", "line 2 (level 1), column 'minutes'", "'level_minutes' must be"),
    ("small_blind,big_blind,minutes\n25,50,1e3\n", "line 2 (level 1), column 'minutes'", 'not "1e3"'),
    ("small_blind,big_blind,minutes,break\n25,50,20,\n25,50,10,dinner\n",
     "line 3 (the break after level 1), column 'small_blind'", "a break has no blinds"),
    ("small_blind,big_blind,minutes,break\n25,50,20,\n,,999,yes\n",
     "line 3 (the break after level 1), column 'minutes'", "'break_minutes' must be"),
    ("small_blind,big_blind,minutes\n25,50,20,7\n", "line 2", "4 cells, and the header names 3 columns"),
    ("sb,small_blind,bb,minutes\n", "line 1", "the columns 'sb' and 'small_blind' give the same field"),
    ("sb,minutes\n25,20\n", "line 1", "no column gives the big blind (it is read from big_blind or bb)"),
    ("Level,Small Blind,Duration\n1,25,20\n", "line 1", "no column gives the big blind (it is read from Big Blind"),
    ("Level,Blinds,Duration\n1,25/50/5/1,20\n", "line 2, column 'Blinds'", "SB/BB or SB/BB/ante, not '25/50/5/1'"),
    ("Level,Small Blind,Big Blind,Duration\n1,25,50,twenty\n", "line 2 (level 1), column 'Duration'",
     'not "twenty"'),
    ("Round,SB,BB,Length\n1,\"1,000\",500,20\n", "line 2 (level 1), column 'SB'",
     "'small_blind' (1000) must not be more than 'big_blind' (500)"),
    ("small_blind,big_blind,minutes\n", "", "a structure needs at least one level (none was read)"),
    ("\n\n", "", "the file is empty"),
    ('small_blind,big_blind,minutes\n25,50,"20\n', "line 2", "not CSV"),
])
def test_a_bad_csv_row_is_named_by_its_line_level_and_column(text, where, words):
    with pytest.raises(StructureError) as caught:
        read_csv(text)
    assert caught.value.where == where and words in caught.value.problem, str(caught.value)


def test_a_plain_csvs_level_column_may_say_break():
    s = read_csv("level,small_blind,big_blind,minutes\n1,25,50,20\nBreak,,,10\n2,50,100,20\n")
    assert summary(s) == [("level 1", "25/50", 20, 0), ("the break after level 1", "", 10, 0),
                          ("level 2", "50/100", 20, 0)]


def test_comment_lines_and_blank_lines_are_skipped_and_lines_still_count():
    with pytest.raises(StructureError) as caught:
        read_csv("small_blind,big_blind,minutes\n# early levels\n\n25,50,20\n0,100,20\n")
    assert caught.value.where == "line 5 (level 2), column 'small_blind'"


# --- TOML ------------------------------------------------------------------------------------------------------

def test_the_toml_gives_levels_breaks_and_a_level_that_ends_by_hands():
    s = read_toml((FIXTURES / "final-table.toml").read_text(encoding="utf-8"))
    assert s.title == "Main Event final table"
    assert summary(s) == [("level 1", "100000/200000, BB ante 200000", 60, 0),
                          ("the break after level 1", "color-up", 15, 0),
                          ("level 2", "150000/300000, BB ante 300000", 0, 12)]
    assert s.stages[2].name == "No Limit Hold'em" and s.stages[2].seconds == 0


@pytest.mark.parametrize("text, where, words", [
    ('title = "x"\n[[stage]]\nsmall_blind = 0\nbig_blind = 50\nminutes = 20\n', "line 3 (level 1)",
     "'small_blind' must be a whole number of chips"),
    ('title = "x"\n\n[[stage]]\nsmall_blind = 25\nbig_blind = 50\n', "line 3 (level 1)",
     "a level needs 'level_minutes'"),
    ('[[stage]]\nsmall_blind = 25\nbig_blind = 50\nminutes = 20\n\n[[stage]]\nbreak = true\nminutes = 0\n',
     "line 8 (the break after level 1)", "'break_minutes' must be"),
    ('[[stage]]\nbreak = "dinner"\nsmall_blind = 25\nminutes = 30\n', "line 3 (the break before level 1)",
     "a break has no blinds"),
    ('[[stage]]\nsmall_blind = "25"\nbig_blind = 50\nminutes = 20\n', "line 2 (level 1)", 'not "25"'),
    ('[[stage]]\nsmall_blind = 25\nbig_blind = 50\nminutes = 20\nbig_blind_ante = "yes"\n', "line 5 (level 1)",
     "'big_blind_ante' must be true or false"),
    ('[[stage]]\nsmal_blind = 25\n', "line 2", "takes no key 'smal_blind' (did you mean 'small_blind'?)"),
    ('titel = "x"\n[[stage]]\n', "line 1", "unknown key 'titel' (did you mean 'title'?)"),
    ('title = "x"\n', "", "no [[stage]] tables"),
    ('stage = [{small_blind = 0, big_blind = 50, minutes = 20}]\n', "[[stage]] 1 (level 1)",
     "'small_blind' must be a whole number"),
    ('title = "a\\u0007b"\n[[stage]]\nsmall_blind = 25\nbig_blind = 50\nminutes = 20\n', "line 1",
     "'title': a title must not hold control characters"),
    ('[[stage]]\nbreak = "dinner"\nname = "supper"\nminutes = 60\n', "line 3", "a break named twice"),
    ('[[stage]]\nbreak = 1\nminutes = 60\n', "line 2", "'break' must be true, false or the break's name"),
    ('title = "x\n', "line 1, column 11", "not TOML"),
])
def test_a_bad_toml_stage_is_named_by_its_line_and_key(text, where, words):
    with pytest.raises(StructureError) as caught:
        read_toml(text)
    assert caught.value.where == where and words in caught.value.problem, str(caught.value)


def test_every_format_reads_the_same_structure_the_same_way():
    """One structure written in each format gives the same stages (the readers share the rules and the shape)."""
    toml = ('[[stage]]\nsmall_blind = 100\nbig_blind = 200\nante = 200\nbig_blind_ante = true\nminutes = 20\n'
            '[[stage]]\nbreak = "dinner"\nminutes = 45\n')
    plain = "small_blind,big_blind,ante,big_blind_ante,minutes,break\n100,200,200,true,20,\n,,,,45,dinner\n"
    export = "Level,Small Blind,Big Blind,BB Ante,Duration,Description\n1,100,200,200,20:00,\nBreak,,,,45:00,dinner\n"
    td = tdt("new GameRound({Minutes: 20, SmallBlind: 100, BigBlind: 200, Ante: 200, BigBlindAnte: true})",
             "new GameBreak({Minutes: 45, Name: 'dinner'})")
    stages = {read_toml(toml).stages, read_csv(plain).stages, read_csv(export).stages, read_tdt(td).stages}
    assert len(stages) == 1
    assert stages.pop() == (level(100, 200, ante=200, big_blind_ante=True), pause(45, "dinner"))
