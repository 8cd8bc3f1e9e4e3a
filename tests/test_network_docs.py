"""docs/network.md: every schema is valid JSON Schema and its example follows it."""

import json
import re

import jsonschema
import pytest

from network_schemas import DOC, check, schemas

EXPECTED = {"status", "state", "event", "command", "ack", "feature", "question", "answer"}


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
