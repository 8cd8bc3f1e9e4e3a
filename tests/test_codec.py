"""The one JSON codec (core/codec.py): every edge's rules in one place, tried as an attacker would."""

import json
import os

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from shotclock.core import events as ev
from shotclock.core.codec import ENCODER, JsonProblem, decode, head
from shotclock.core.replay import _LINE, decode_line, parse_event, read_event
from shotclock.errors import ReplayFormatError


def problem(data, **kw) -> tuple[str, str]:
    with pytest.raises(JsonProblem) as caught:
        decode(data, **kw)
    return caught.value.reason, caught.value.detail


@pytest.mark.parametrize("data, reason, detail", [
    (b'{"level":2,"level":77}', "duplicate", "the key 'level' is given twice"),
    (b'{"level":2,"\\u006cevel":77}', "duplicate", "the key 'level' is given twice"),  # the same key, escaped
    (b'{"a":{"b":1,"b":2}}', "duplicate", "the key 'b' is given twice"),
    (b'[[[[]]]]', "depth", "nested 4 deep (at most 3)"),
    (b'{"t":NaN}', "number", "not valid JSON (NaN is not a JSON number)"),
    (b'{"t":-Infinity}', "number", "not valid JSON (Infinity is not a JSON number)"),
    (b'{"t":1e309}', "number", "a number beyond any float (more than 1.8e308)"),
    (b'"\\ud800"', "text", "a string holds a lone surrogate (not UTF-8)"),
    (b'"\\udc00\\ud800"', "text", "a string holds a lone surrogate (not UTF-8)"),
    (b'"\xed\xa0\x80"', "text", "not UTF-8 text"),  # a surrogate encoded in UTF-8 bytes
    (b'"\xff"', "text", "not UTF-8 text"),
    (b'\xef\xbb\xbf{}', "malformed", "not valid JSON (a byte order mark before it)"),
    (b'{"a":1,}', "malformed", "not valid JSON (trailing comma in object at column 8)"),
    (b'{"a":1', "malformed", "not valid JSON (it ends before the value does)"),
    (b'', "malformed", "not valid JSON (nothing there)"),
    (b'x' * 5000, "size", "5000 bytes (at most 4096)"),
])
def test_every_rule_is_one_line_naming_it(data, reason, detail):
    assert problem(data, max_bytes=4096, max_depth=3) == (reason, detail)


def test_text_already_read_with_a_lone_surrogate_is_one_line():
    with pytest.raises(JsonProblem) as caught:
        decode('{"name":"M\udcf6ller"}')
    assert (caught.value.reason, caught.value.key) == ("text", "name")


def test_nesting_deeper_than_python_can_recurse_is_one_line():
    assert problem(b'[' * 100_000 + b']' * 100_000) == ("depth", "nested deeper than 32")
    assert problem(b'{"a":' * 40 + b'1' + b'}' * 40) == ("depth", "nested 40 deep (at most 32)")


def test_what_json_allows_is_taken():
    assert decode(b'{"a":[1,2.5,"x",null,true],"b":{"a":1}}') == {"a": [1, 2.5, "x", None, True], "b": {"a": 1}}
    assert decode(b'[{"seat":1},{"seat":2}]') == [{"seat": 1}, {"seat": 2}]  # the same key in two objects
    assert decode(b'{"n":"a \\"b\\": {[c"}', max_depth=1) == {"n": 'a "b": {[c'}  # brackets in a string
    assert decode(b'{"n":"\\ud83d\\ude00"}') == {"n": "\U0001F600"}  # a surrogate pair is one character
    assert decode(b'-0') == 0 and decode(b'18446744073709551616') == 2 ** 64  # bounded by each field, not here


def test_a_typed_decode_names_the_field_or_hands_the_plain_value_on():
    class Seat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
        seat: int

    assert decode(b'{"seat":4}', Seat) == Seat(4)
    assert problem(b'{"seat":"4"}', type=Seat) == ("field", "'seat': expected `int`, got `str`")
    assert decode(b'{"seat":"4"}', Seat, plain=lambda v: ("plain", v)) == ("plain", {"seat": "4"})
    # nulls=False: a null goes the plain way even where the struct would take it
    assert decode(b'{"seat":null}', Seat | None, nulls=False, plain=lambda v: "plain") == "plain"
    assert problem(b'{"seat":4,"seat":5}', type=Seat) == ("duplicate", "the key 'seat' is given twice")


def test_head_reads_the_id_only_where_it_is_given_once():
    assert head(b'{"id":"c1","sent_ms":' + b"9" * 23 + b'}', ("id",)) == {"id": "c1"}
    assert head(b'{"id":"c1","id":"c2"}', ("id",)) == {}
    assert head(b'{"x":{"id":"inner"},"id":"c1"}', ("id", "sender")) == {"id": "c1"}
    assert head(b'not json', ("id",)) == {} and head(b'["id"]', ("id",)) == {}


def test_the_encoder_writes_what_json_reads_back():
    value = {"name": "Möller \u2028", "t": 0.1, "n": 2 ** 63 - 1, "seats": [[1, "A"]], "x": None}
    assert json.loads(ENCODER.encode(value)) == value
    assert ENCODER.encode(ev.Started(1.5, 30, seat=4)) == b'{"type":"start","t":1.5,"seconds":30,"seat":4}'


# -- the replay line: the struct from the table of fields and parse_event, from the same table, are one rule ------

_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 60), st.integers(-2 ** 70, 2 ** 70),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["", "Ana", "a\tb", "x" * 41,
                                                                                       "warning", "clock"]),
                    st.lists(st.tuples(st.integers(0, 11), st.sampled_from(["", "Ana", "\u200e"])), max_size=3))
_KEYS = st.sampled_from(["seat", "name", "bank", "chips", "seconds", "mark", "mark_seconds", "by", "players", "level",
                         "hands", "facing_bet", "sat"])


@settings(max_examples=int(os.environ.get("CODEC_EXAMPLES", 400)), deadline=None)
@given(name=st.sampled_from(sorted(ev.EVENT_TYPES) + ["nope"]), t=st.one_of(st.floats(-1, 2e9), st.integers(-1, 2e9)),
       fields=st.dictionaries(_KEYS, _VALUES, max_size=3))
def test_the_struct_and_the_field_table_take_the_same_lines(name, t, fields):
    """Whatever a line holds, the event decoded straight into its struct is the one parse_event builds, and a line
    either refuses is refused with parse_event's words."""
    line = json.dumps({"t": t, "event": name, **fields}, allow_nan=False)
    try:
        expected = parse_event(decode_line(1, line), 1)
    except ReplayFormatError as exc:
        with pytest.raises(ReplayFormatError) as caught:
            read_event(1, line)
        assert str(caught.value) == str(exc)
    else:
        got = read_event(1, line)
        assert got == expected and ENCODER.encode(got) == ENCODER.encode(expected)


def test_a_line_the_struct_takes_skips_the_plain_reader(monkeypatch):
    from shotclock.core import replay

    seen = []
    checked = replay.parse_event
    monkeypatch.setattr(replay, "parse_event", lambda obj, line, previous=None: seen.append(line) or
                        checked(obj, line, previous))
    lines = ['{"t":0,"event":"call"}', '{"t":0.5,"event":"bet","facing_bet":false}', "",
             '{"t":1,"event":"extend","seat":3}', '{"t":2,"event":"seat","seat":1,"name":"a\\tb"}']
    with pytest.raises(ReplayFormatError, match="line 5: 'name': a name must not hold control characters"):
        replay.parse_events(lines)
    assert seen == [5]  # only the line the struct's text check sent on to be named
    assert _LINE.decode(lines[0]) == ev.Call(0.0)


@pytest.mark.parametrize("line, message", [
    ('{"t":-0.0,"event":"call"}', None),
    ('{"t":0,"event":"extend","seat":-0}', "'seat' must be a seat number from 1 to 10, not 0"),
    ('{"t":0,"event":"extend","seat":18446744073709551616}', "'seat' must be a seat number from 1 to 10, not "
                                                              "18446744073709551616"),
    ('{"t":1e309,"event":"call"}', "a number beyond any float (more than 1.8e308)"),
    ('{"t":0,"event":"seat","seat":1,"name":"\\ud800"}', "'name': a name must be valid Unicode (a lone surrogate: "
                                                      "was it typed on a terminal that is not UTF-8?)"),
    ('{"t":0,"event":"seat","seat":1,"name":"\\udcf6\\ud800"}', "'name': a name must be valid Unicode (a lone "
                                                              "surrogate: was it typed on a terminal that is not "
                                                              "UTF-8?)"),
    ('{"t":0,"event":"seating","players":[[1,"\\ud800"]]}', "'players': a string holds a lone surrogate (not "
                                                            "UTF-8)"),
    ('{"t":0,"event":"call","event":"action"}', "the key 'event' is given twice"),
    ('{"t":0,"event":"extend","seat":1,"se\\u0061t":2}', "the key 'seat' is given twice"),
    ('{"t":0,"event":"seating","players":[[1,"Ana"],[2]]}', "'players': entry 2 must be a [seat, name] pair, not "
                                                            "[2]"),
])
def test_odd_replay_lines(line, message):
    if message is None:
        event = read_event(1, line)
        assert ENCODER.encode(event) == b'{"event":"call","t":0.0}'
        return
    with pytest.raises(ReplayFormatError) as caught:
        read_event(1, line)
    assert str(caught.value) == f"line 1: {message}"


# -- a floor command: decoded straight into CommandRequest, named by command_problem; one answer everywhere ---------

def refusal(payload: bytes):
    from shotclock.core.wire import RecentIds, Refusal, check_command

    result = check_command(payload, 1.0, RecentIds(60))
    assert isinstance(result, Refusal), result
    return result


def test_a_key_given_twice_in_a_command_is_refused_as_the_replay_format_refuses_it():
    # issue 36.5: over MQTT the last one won ("level":2,"level":77 set 77)
    result = refusal(b'{"id":"c1","name":"level","sender":"floor","sent_ms":1,"level":2,"level":77}')
    assert (result.reason, result.detail, result.id, result.name) == ("malformed", "the key 'level' is given twice",
                                                                      "c1", "level")
    result = refusal(b'{"id":"c2","name":"level","sender":"floor","sent_ms":1,"level":2,"lev\\u0065l":77}')
    assert result.detail == "the key 'level' is given twice"


@pytest.mark.parametrize("payload, detail", [
    (b'{"id":"c1","name":"pause","sender":"floor","sent_ms":' + b"9" * 23 + b'}',
     "'sent_ms' must be a whole number of milliseconds (64-bit)"),
    (b'{"id":"c1","name":"extend","sender":"floor","sent_ms":1,"seat":' + b"9" * 23 + b'}',
     "'seat' must be a seat number from 1 to 10, not 99999999999999999999999"),
    (b'{"id":"c1","name":"top_up","sender":"floor","sent_ms":1,"seconds":1e309}',
     "a number beyond any float (more than 1.8e308)"),
    (b'{"id":"c1","name":"extend","sender":"floor","sent_ms":1,"seat":NaN}', "not valid JSON (NaN is not a JSON number)"),
    (b'{"id":"c1","name":"extend","sender":"floor","sent_ms":1,"seat":-0}',
     "'seat' must be a seat number from 1 to 10, not 0"),
    (b'{"id":"c1","name":"extend","sender":"floor","sent_ms":1,"seat":' + str(2 ** 64).encode() + b'}',
     "'seat' must be a seat number from 1 to 10, not 18446744073709551616"),
    (b'{"id":"c1","name":"seat","sender":"floor","sent_ms":1,"seat":2,"player":"M\\udcf6ller"}',
     "'player': a name must be valid Unicode (a lone surrogate: was it typed on a terminal that is not UTF-8?)"),
    (b'{"id":"c1","name":"seating","sender":"floor","sent_ms":1,"players":[[[1,"A"]]]}',
     "nested 4 deep (at most 3)"),
    (b'{"id":"c1","name":"pause","sender":"floor","sent_ms":1,"x":"' + b"a" * 5000 + b'"}', "5062 bytes (at most 4096)"),
    (b'\xef\xbb\xbf{"id":"c1","name":"pause","sender":"floor","sent_ms":1}', "not valid JSON (a byte order mark before it)"),
    (b'{"id":"c1","name":"pause","sender":"floor","sent_ms":1,"seat":null}',
     "the 'pause' command takes no field 'seat' (it takes none)"),
    (b'{"id":"c1","name":"extend","sender":"floor","sent_ms":1,"seat":null}',
     "'seat' must be a seat number from 1 to 10, not null"),
])
def test_a_refused_command_names_its_problem_and_the_id_it_was_given(payload, detail):
    # issue 36.5: a 23-digit number was refused with "id": "", so the sender could not match the ack
    result = refusal(payload)
    assert result.detail == detail
    unreadable = b"\xef\xbb\xbf" in payload or b"NaN" in payload  # not JSON
    assert result.id == ("" if unreadable else "c1")


def test_an_id_given_twice_or_unreadable_is_not_named():
    assert refusal(b'{"id":"a","id":"b","name":"pause","sender":"floor","sent_ms":1}').id == ""
    assert refusal(b'{"id":"\\ud800","name":"pause","sender":"floor","sent_ms":1}').id == ""
    assert refusal(b'{"id":7,"name":"pause","sender":"floor","sent_ms":' + b"9" * 23 + b'}').id == ""


_COMMAND_VALUES = st.one_of(_VALUES, st.sampled_from(["floor", "c1", "East"]))
_COMMAND_KEYS = st.sampled_from(["seat", "player", "bank", "chips", "seconds", "mark", "mark_seconds", "players",
                                 "level", "hands", "facing_bet", "minutes", "rule_set", "room", "section", "by",
                                 "id", "sender", "sent_ms"])


@settings(max_examples=int(os.environ.get("CODEC_EXAMPLES", 400)), deadline=None)
@given(name=st.sampled_from(["pause", "extend", "seat", "seating", "top_up", "mark", "level", "hand_for_hand",
                             "rule_set", "nope"]), fields=st.dictionaries(_COMMAND_KEYS, _COMMAND_VALUES, max_size=4))
def test_the_command_struct_and_the_field_table_take_the_same_commands(name, fields):
    from shotclock.core.wire import CommandRequest, RecentIds, Refusal, check_command, command_problem

    message = json.loads(json.dumps({"id": "c1", "name": name, "sender": "floor", "sent_ms": 1, **fields}))
    result = check_command(json.dumps(message).encode(), 1.0, RecentIds(60))
    problem = command_problem(message)
    if problem is None:
        assert isinstance(result, CommandRequest), result
        assert {k: getattr(result, k) for k in message} == {
            k: tuple(map(tuple, v)) if k == "players" else v for k, v in message.items()}
    else:
        assert isinstance(result, Refusal) and result.detail == problem


# -- one door in, one door out ------------------------------------------------------------------------------------

def test_no_module_reads_json_but_the_codec_and_no_record_is_written_by_hand():
    """The edges read JSON through core/codec.py alone (no json.loads, no depth walker of their own) and the five
    hand-written record() dicts are Structs; what is left of the json module writes the log's canonical form (its
    chain hash: old logs must verify), the generated pages and docs, and configuration files."""
    import re
    from pathlib import Path

    import shotclock

    root = Path(shotclock.__file__).parent
    readers, walkers, dumpers = [], [], []
    for path in sorted(root.rglob("*.py")):
        name = str(path.relative_to(root))
        source = path.read_text(encoding="utf-8")
        if re.search(r"\bjson\.(loads?|JSONDecoder)\b", source):
            readers.append(name)
        if re.search(r"def _depth(_over)?\(|parse_constant|object_pairs_hook", source) and name != "core/codec.py":
            walkers.append(name)
        if re.search(r"\bjson\.dumps?\(", source):
            dumpers.append(name)
        if re.search(r"msgspec\.json\.(Encoder|encode|decode)\b", source) and name != "core/codec.py":
            readers.append(name)  # one encoder; a decoder made elsewhere is handed to the codec's decode
    assert readers == [] and walkers == []
    assert set(dumpers) <= {"adapters/log.py", "adapters/archive.py", "core/fields.py", "web/__init__.py",
                            "floor/broker/render.py", "shell/firstboot.py", "floor/fleet.py"}, dumpers
    from shotclock.core import flood, handforhand, ledger, restore, rulesets

    assert not [cls for module in (ledger, rulesets, handforhand, flood, restore) for cls in vars(module).values()
                if isinstance(cls, type) and cls.__module__ == module.__name__ and "record" in vars(cls)]


@pytest.mark.parametrize("payload, reason", [
    (b'{"boot":"0123456789ab","seq":1,"seq":2,"record":{"t":1,"type":"x"}}', "duplicate"),
    (b'{"boot":"0123456789ab","seq":1,"record":{"t":1,"type":"x","t":2}}', "duplicate"),
    (b'\xef\xbb\xbf{"boot":"0123456789ab","seq":1,"record":{"t":1,"type":"x"}}', "malformed"),
    (b'{"boot":"0123456789ab","seq":18446744073709551616,"record":{"t":1,"type":"x"}}', "number"),
    (b'{"boot":"0123456789ab","seq":1,"record":{"t":1e309,"type":"x"}}', "number"),
    (b'{"boot":"0123456789ab","seq":1,"record":{"t":1,"type":"x","n":"\\ud800"}}', "text"),
    (b'{"boot":"0123456789ab","seq":1,"record":' + b'[' * 20 + b']' * 20 + b'}', "depth"),
])
def test_an_archive_event_is_refused_by_the_same_rules(payload, reason):
    from shotclock.core.inbound import Refused, check_event, event_id

    result = check_event(payload, "1")
    assert isinstance(result, Refused) and result.reason == reason, result
    assert event_id(payload) in (None, ("0123456789ab", 1))  # its id is read only where it is sound


def test_the_floors_readers_take_junk_without_a_word():
    from shotclock.floor.update import Watch

    watch = Watch("v", "1")
    for payload in (b'{"online":true,"online":false}', b"\xff", b"[" * 100_000, b'{"a":NaN}'):
        watch.on_message(None, None, type("M", (), {"topic": "shotclock/v1/v/table/1/status", "payload": payload}))
    assert watch.latest == {"status": None, "state": None}


@pytest.mark.parametrize("payload, answer", [
    (b'{"what":"clock","table":"7","clock":3,"boot":"0123456789ab"}',
     {"what": "clock", "table": "7", "clock": 3, "boot": "0123456789ab"}),
    (b'{"what":"report","level":null}', {"what": "report"}),
    (b'{"what":"report","what":"rulings"}', "the key 'what' is given twice"),
    (b'{"what":"clock","table":"7","clock":' + b"9" * 23 + b'}', "a whole number beyond 64 bits"),
    (b'{"what":"report","day":"\xd9\xa2\xd9\xa0\xd9\xa2\xd9\xa6-12-01"}', "a report question's day is a date as "
                                                                           "YYYY-MM-DD"),
    (b'{"what":"report","level":101}', "a report question's 'level' must be a tournament level from 1 to 100, not "
                                       "101"),
    (b'{"what":"clock","table":"1/x","clock":1}', "a question's table is a table id (1 to 32 letters, digits, '-' or "
                                                  "'_')"),
    (b'\xef\xbb\xbf{"what":"rulings"}', "not valid JSON (a byte order mark before it)"),
])
def test_an_archive_question_is_decoded_into_its_struct_and_named_by_its_rules(payload, answer):
    from shotclock.core.inbound import Refused, read_question

    got = read_question(payload)
    assert (got.detail if isinstance(got, Refused) else got) == answer
