"""docs/network.md: every schema is valid JSON Schema and its example follows it."""

import json
import re

import jsonschema
import pytest

from network_schemas import DOC, check, schemas

EXPECTED = {"status", "state", "event", "command", "ack", "feature"}


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
