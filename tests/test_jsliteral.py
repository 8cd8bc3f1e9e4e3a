"""The reader of JavaScript object literals (core/jsliteral.py): what TD's saved tournament holds is read, anything
else -- code above all -- is refused with its line and column, and nothing is ever evaluated."""

import builtins

import pytest

from shotclock.core import jsliteral
from shotclock.core.jsliteral import DEPTH_MAX, LiteralError, Made, position, read_literal
from shotclock.shell.structurecmd import FILE_MAX


def test_objects_arrays_strings_numbers_and_constants_are_read():
    text = ("{a: 1, 'b': -2.5, \"c\": 1e3, d: .5, e: [true, false, null, undefined], f: {}, g: [], 7: 'seven',"
            " h: 12., $i_2: -0, }")
    assert read_literal(text) == {"a": 1, "b": -2.5, "c": 1000.0, "d": 0.5, "e": [True, False, None, None],
                                  "f": {}, "g": [], "7": "seven", "h": 12.0, "$i_2": 0}


def test_a_whole_number_stays_an_int_and_a_ms_time_is_exact():
    value = read_literal("{Time: 1760027747661, Minutes: 20, Half: 12.5}")
    assert value == {"Time": 1760027747661, "Minutes": 20, "Half": 12.5}
    assert type(value["Minutes"]) is int and type(value["Half"]) is float


@pytest.mark.parametrize("literal, text", [
    (r'"a\"b"', 'a"b'), (r"'it\'s'", "it's"), (r'"x\\y"', "x\\y"), (r'"l1\nl2\tt\r"', "l1\nl2\tt\r"),
    (r'"\u00e9\x41\u{1F600}"', "éA\U0001F600"), (r'"\uD83D\uDE00"', "\U0001F600"), (r'"a\
b"', "ab"), (r'"\/\b\f\v\0"', "/\b\f\v\0"), ("'say \"hi\"'", 'say "hi"'), ('"Z\u00fcrich"', "Zürich"),
    (r'"no escape at all"', "no escape at all"), (r'"\q"', "q")])
def test_strings_take_javascripts_escapes(literal, text):
    assert read_literal(literal) == text


def test_a_lone_surrogate_escape_stays_as_it_is_for_the_text_rule_to_name():
    assert read_literal(r'"\uD800x"') == "\ud800x"


def test_new_name_and_map_from_are_read_as_what_they_say_never_called():
    text = ('{T: new Tournament({Players: Map.from([["u1", new GamePlayer({N: 1})]]), '
            'Old: new Map({a: 1}), Two: new Date(2025, 10), Dotted: new A.B({}), Empty: new X()})}')
    value = read_literal(text)
    t = value["T"]
    assert isinstance(t, Made) and t.name == "Tournament" and t.at == 4
    players = t.fields["Players"]
    player = Made("GamePlayer", ({"N": 1},), text.index("new GamePlayer"))
    assert players.name == "Map.from" and players.args == ([["u1", player]],)
    assert t.fields["Old"] == Made("Map", ({"a": 1},), t.fields["Old"].at)
    assert t.fields["Two"].args == (2025, 10) and t.fields["Dotted"].name == "A.B"
    assert t.fields["Empty"].args == () and t.fields["Empty"].fields == {}


def test_comments_and_any_whitespace_are_skipped():
    text = "// TD\n{ /* the version */ V : \"3\" ,\n\t T :\r\n [ 1 , // one\n 2 ] }\n\n"
    assert read_literal(text) == {"V": "3", "T": [1, 2]}


def test_nothing_is_evaluated_not_even_a_name(monkeypatch):
    def trap(*args, **kwargs):
        raise AssertionError("the reader evaluated something")

    monkeypatch.setattr(builtins, "eval", trap)
    monkeypatch.setattr(builtins, "exec", trap)
    monkeypatch.setattr(builtins, "compile", trap)
    with pytest.raises(LiteralError):
        read_literal('{V: __import__("os").system("touch /tmp/pwned")}')
    assert read_literal('{V: "__import__(\\"os\\")"}') == {"V": '__import__("os")'}


@pytest.mark.parametrize("text, line, column, words", [
    ("{a: 1 + 2}", 1, 7, "an operator '+'"),
    ("{a: -x}", 1, 5, "an operator '-'"),
    ("{a: `x${y}`}", 1, 5, "a template string"),
    ("{a: alert(1)}", 1, 5, "the name 'alert' where a value must be"),
    ("{a: NaN}", 1, 5, "the name 'NaN'"),
    ("{a: Infinity}", 1, 5, "the name 'Infinity'"),
    ("{a: window.x}", 1, 5, "the name 'window'"),
    ("{a: function () {}}", 1, 5, "the name 'function'"),
    ("{a: Map.set(1)}", 1, 9, "'set' where 'Map.from(' must be"),
    ("{a: new X}", 1, 10, "'}' where '(' must follow 'new X'"),
    ("{a: new 5()}", 1, 9, "the number 5 where a name must follow 'new'"),
    ("{a: 1};\nalert(1)", 1, 7, "';': a .tdt file holds one value"),
    ("{a: 1}\n{b: 2}", 2, 1, "'{' after the end of the literal"),
    ("{a: 1 b: 2}", 1, 7, "'b' where ',' or '}' must be"),
    ("{a 1}", 1, 4, "the number 1 where ':' must follow the key 'a'"),
    ("{a: [1 2]}", 1, 8, "the number 2 where ',' or ']' must be"),
    ("{a: [1,,2]}", 1, 8, "',' where a value must be"),
    ('{a: "never ends}', 1, 5, "a string that never ends"),
    ("{a: 'never ends}", 1, 5, "a string that never ends"),
    ('{a: 1 /* never ends }', 1, 7, "an operator '/'"),
    ("{a: 0x1F}", 1, 6, "'x1F' where ',' or '}' must be"),
    ('{a: "\\u12"}', 1, 6, "a \\u escape without its hexadecimal digits"),
    ('{a: "\\x4"}', 1, 6, "a \\x escape without its hexadecimal digits"),
    ('{a: "\\u{110000}"}', 1, 6, "a \\u{…} escape beyond Unicode"),
    ("{a: 1e999}", 1, 5, "the number 1e999 is too large"),
    ("{a: " + "9" * 41 + "}", 1, 5, "a number of 41 characters (at most 40)"),
    ("{a: @}", 1, 5, "the character '@' where a value must be"),
    ("{a: 1", 1, 6, "the end of the file where ',' or '}' must be"),
    ("", 1, 1, "the end of the file where a value must be"),
    ("{\n  V: \"3\",\n  T: new Tournament({Title: x})\n}", 3, 29, "the name 'x'"),
])
def test_anything_else_is_refused_naming_its_line_and_column(text, line, column, words):
    with pytest.raises(LiteralError) as caught:
        read_literal(text)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)
    assert words in caught.value.problem and "\n" not in str(caught.value)


def test_nesting_is_bounded_and_never_exhausts_pythons_stack():
    assert read_literal("[" * DEPTH_MAX + "]" * DEPTH_MAX) is not None
    for opener in ("[", "{a:", "new X("):
        with pytest.raises(LiteralError, match=f"nested more than {DEPTH_MAX} deep"):
            read_literal(opener * 100_000)


def test_the_text_is_bounded():
    with pytest.raises(LiteralError, match="1,002 characters, at most 1,000"):
        read_literal('"' + "x" * 1000 + '"', chars_max=1000)
    assert len(read_literal('"' + "x" * 998 + '"', chars_max=1000)) == 998
    assert jsliteral.CHARS_MAX >= FILE_MAX  # every file the shell reads (a character is at least a byte)


@pytest.mark.parametrize("text", [
    '{a: "' + "\\\\" * 200_000 + "x",  # an unterminated string of escapes
    '{a: "' + "x" * 500_000,  # an unterminated string
    "{a: 1 " + "/* " * 200_000,  # unterminated comments
    "{a: " + "1" * 300_000,  # a number that never ends
    "{" + "a: 1, " * 100_000 + "b",  # a key without its value at the end of many
    "{a: " + "-" * 300_000,
])
def test_inputs_that_would_make_a_backtracking_reader_hang_are_refused(text):
    # Each is refused at once (the tokens are possessive regular expressions); a backtracking reader would not end
    # (``"(?:[^"\\]+|\\.)*"`` takes 0.65 s on 24 characters, twice as long with each two more): the limit trips.
    from test_fuzz import time_limit

    with time_limit(), pytest.raises(LiteralError):
        read_literal(text)


def test_position_counts_lines_and_columns_from_one():
    assert position("ab\ncd\n", 0) == (1, 1)
    assert position("ab\ncd\n", 3) == (2, 1)
    assert position("ab\ncd\n", 5) == (2, 3)
