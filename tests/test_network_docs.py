"""docs/network.md: every schema is valid JSON Schema and its example follows it."""

import json
import re

import jsonschema
import msgspec
import pytest

from network_schemas import DOC, check, schemas

EXPECTED = {"status", "state", "event", "command", "ack", "feature", "question", "answer", "stored", "collector",
            "hand_for_hand", "tournament", "tournament_status", "tournament_command", "tournament_ack"}


def examples() -> dict[str, dict]:
    """The ``Example: `{…}``` after each schema, by the schema's name."""
    text = DOC.read_text(encoding="utf-8")
    found = {}
    for name in schemas():
        after = text.split(f"```json schema={name}", 1)[1]
        match = re.search(r"Example: `(\{.*?\})`", after, re.S)
        if match:
            found[name] = json.loads(match.group(1).replace("\n", " ").replace("…", "0" * 64))
    return found


def test_every_message_has_a_schema():
    assert set(schemas()) == EXPECTED
    for schema in schemas().values():
        jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", sorted(EXPECTED - {"feature"}))
def test_examples_follow_their_schema(name):
    check(name, examples()[name])


def test_the_hand_for_hand_schema_holds_the_field_tables_bounds_and_what_a_sender_keeps():
    from shotclock.core.fields import FIELDS
    from shotclock.core.roomstate import next_room_state

    props = schemas()["hand_for_hand"]["properties"]
    for key, field in (("hands", "hand_for_hand.hands"), ("minutes", "minutes"), ("seq", "hand_for_hand.seq")):
        assert (props[key]["minimum"], props[key]["maximum"]) == (FIELDS[field].low, FIELDS[field].high), key
    for key, field in (("room", "room"), ("section", "section"), ("by", "sender")):
        assert props[key]["maxLength"] == FIELDS[field].high, key
    on = next_room_state(None, "hand_for_hand", "Zaal 1/B", None, by="floor-anna", now_ms=1796072400000)
    for state in (on, next_room_state(on, "release_hand", "Zaal 1/B", None, now_ms=1796072500000)):
        check("hand_for_hand", state.encode())


def test_schema_refuses_a_bad_command():
    with pytest.raises(jsonschema.ValidationError):
        check("command", {"id": "1", "name": "explode", "sender": "x", "sent_ms": 1})


def test_network_mark_says_nothing_when_all_is_delivered():
    from shotclock.core.view import network_mark

    assert network_mark(True, 0, "nl") == ""
    assert network_mark(True, 4, "en") == "4 to send"
    assert network_mark(False, 0, "nl") == "geen netwerk"
    assert network_mark(False, 12, "nl") == "geen netwerk · 12 te verzenden"


def test_screenshot_draws_the_network_mark(tmp_path, capsys):
    from shotclock.cli import main

    scenario = "docs/examples/clock-dead-hand.events.jsonl"
    root = DOC.parent.parent
    out = tmp_path / "n.png"
    assert main(["screenshot", str(out), "--scenario", str(root / scenario), "--at", "8", "--network", "down=3"]) == 0
    assert out.stat().st_size > 0
    assert main(["screenshot", str(out), "--scenario", str(root / scenario), "--at", "8", "--network", "up"]) == 2
    assert "--network 'up'" in capsys.readouterr().err


@pytest.mark.parametrize("size", [(800, 480), (480, 800), (1920, 1080)])
def test_network_mark_is_small_top_right_and_covers_no_words(size):
    import dataclasses

    import pygame

    from shotclock.adapters.screen import Renderer
    from shotclock.core.engine import Engine
    from shotclock.core.events import Call
    from shotclock.core.settings import Settings
    from shotclock.core.view import Display, network_mark, view_at

    engine = Engine(Settings())
    engine.handle(Call(0, facing_bet=True))
    engine.advance(8)
    mark = network_mark(False, 12, "nl")
    view = dataclasses.replace(view_at(engine.state, 8, Display()), corner=mark)
    renderer = Renderer()
    renderer.draw(pygame.Surface(size), view)
    rects = dict(renderer.drawn)
    corner = rects.pop(mark)
    w, h = size
    assert corner.right <= w and corner.top >= 0 and corner.left > w / 2 and corner.bottom < h * 0.1
    assert not any(corner.colliderect(r) for r in rects.values())


def test_every_fault_crosses_the_wire_as_a_documented_object():
    # The state's faults are typed objects (core/faults.py), one schema branch per kind, all of them.
    from shotclock.config.pins import BUTTONS
    from shotclock.core.engine import Engine
    from shotclock.core.faults import (FAULTS, LOG_BACKLOG, LOG_UNAVAILABLE, LOG_WRITE_FAILED, LogFault, NoSound,
                                       StuckButton)
    from shotclock.core.settings import Settings
    from shotclock.core.wire import dumps, state_message

    branches = schemas()["state"]["properties"]["faults"]["items"]["oneOf"]
    assert {b["properties"]["kind"]["const"] for b in branches} == {cls.KIND for cls in FAULTS}
    stuck = next(b for b in branches if b["properties"]["kind"]["const"] == "stuck")
    assert tuple(stuck["properties"]["button"]["enum"]) == BUTTONS
    problems = next(b for b in branches if b["properties"]["kind"]["const"] == "log")["properties"]["problem"]["enum"]
    assert set(problems) == {LOG_UNAVAILABLE, LOG_WRITE_FAILED, LOG_BACKLOG}
    faults = [StuckButton("action", 12.25), NoSound("no audio device"), LogFault(LOG_WRITE_FAILED, "disk full")]
    message = check("state", dumps(state_message(Engine(Settings()).state, 0.0, "7", "3f9c2a71d0e4", 1, "Tafel 7",
                                                 faults, {"outbox": 0})))
    assert sorted(message["faults"], key=lambda f: f["kind"]) == [
        {"kind": "log", "problem": "write_failed", "detail": "disk full"},
        {"kind": "no_sound", "detail": "no audio device"},
        {"kind": "stuck", "button": "action", "since": 12.25}]
    with pytest.raises(jsonschema.ValidationError):  # the old form, a class name with the fields in a string
        check("state", dict(message, faults=[{"kind": "StuckButton:action", "detail": "action 12.25"}]))


def test_the_command_schema_is_generated_from_the_table_of_fields():
    # One source for each field: docs/network.md's command schema is core/fields.py's (tools/fields_doc.py writes it).
    from network_schemas import BLOCK, DOC

    from shotclock.core.fields import command_schema_text
    from shotclock.core.inputs import COMMANDS

    from shotclock.core.fields import fields_table

    body = dict(BLOCK.findall(DOC.read_text(encoding="utf-8")))["command"]
    assert body == command_schema_text(COMMANDS), "a field changed: run tools/fields_doc.py"
    table = (DOC.parent / "fields.md").read_text(encoding="utf-8")
    assert f"<!-- fields-table:start -->\n{fields_table()}\n<!-- fields-table:end -->" in table, \
        "a field changed: run tools/fields_doc.py"


@pytest.mark.parametrize("command, valid", [
    ({"name": "seat", "seat": 2, "player": "Ana", "chips": 3}, True), ({"name": "seat"}, False),
    ({"name": "pause", "seat": 2}, False), ({"name": "extend", "seat": 2}, True),
    ({"name": "top_up", "chips": 51}, False), ({"name": "rename", "seat": 1, "player": "x" * 41}, False)])
def test_the_documented_schema_and_the_device_agree_on_a_commands_fields(command, valid):
    from shotclock.core.wire import command_problem

    message = {"id": "a", "sender": "floor", "sent_ms": 1, **command}
    try:
        check("command", message)
        schema_valid = True
    except jsonschema.ValidationError:
        schema_valid = False
    assert schema_valid == valid == (command_problem(message) is None)


def test_the_tournament_clocks_schemas_are_its_messages_own():
    """Made from the Structs (tools/docs.py writes them): what the clock sends is what the document says."""
    from shotclock.core.tournament_state import message_schemas

    made = json.loads(json.dumps(message_schemas()))  # as JSON has it (tuples as lists)
    assert {name: schemas()[name] for name in made} == made, "run python tools/docs.py"


def test_a_tournament_clocks_state_follows_its_schema():
    from shotclock.core.structure import Stage, Structure
    from shotclock.core.tournament import Start, TournamentClock
    from shotclock.core.tournament_state import Scope, state_of

    clock = TournamentClock(Structure("Sunday", (Stage(20, 25, 50, 50, big_blind_ante=True),
                                                 Stage(5, is_break=True, name="dinner"))))
    clock.handle(Start(0.0, "floor"))
    check("tournament", state_of(clock, 61.5, "main", Scope(rooms=("Main",)), seq=7, at_ms=1796073651802).encode())


def _struct_of(name: str):
    from shotclock.core.inbound import Question
    from shotclock.core.roomstate import RoomState
    from shotclock.core.wire import Ack, Status

    return {"status": Status, "ack": Ack, "question": Question, "hand_for_hand": RoomState}[name]


@pytest.mark.parametrize("name", ["status", "ack", "question", "hand_for_hand"])
def test_a_written_schema_names_the_fields_of_the_struct_that_carries_its_message(name):
    # These schemas are written by hand (they say in words what each field is for and bounds the Struct leaves to
    # its reader's checks); the fields they name are the Struct's, and every field the Struct always writes is one
    # the schema requires, so the document and the code cannot part.
    info = msgspec.inspect.type_info(_struct_of(name))
    fields = {f.encode_name for f in info.fields}
    always = {f.encode_name for f in info.fields if f.required}
    schema = schemas()[name]
    assert set(schema["properties"]) == fields
    assert always <= set(schema.get("required", ()))
