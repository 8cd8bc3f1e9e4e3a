"""The golden corpus: every replay file of docs/examples and tests/golden gives, through ``shotclock replay``,
the output stored beside it, byte for byte; a difference is reported first as a reader would see it (the records
field for field and value for value: numbers by value, true and false apart from 1 and 0, a field left out
apart from a null, in the same order), so a change of format alone is told apart from a change of meaning. The tests/golden files are clocks exported from tables played on
the real device, each kept only when it replayed to the ruling, seat and bank the device logged; to make them
again after a deliberate change of the replay output: ``.venv/bin/python tests/golden_corpus.py`` (then read the
diff)."""

import json
from pathlib import Path

import pytest

from shotclock.cli import main

ROOT = Path(__file__).parent.parent
FILES = sorted((ROOT / "docs" / "examples").glob("*.events.jsonl")) + sorted((ROOT / "tests" / "golden").glob(
    "*.events.jsonl"))


def test_the_corpus_holds_the_examples_and_two_hundred_device_clocks_of_every_mode():
    golden = [f for f in FILES if f.parent.name == "golden"]
    assert len(golden) >= 200
    assert {f.name.split("-")[0] for f in golden} == {"tempo", "shot", "clock"}
    texts = [f.read_text() for f in golden]
    for what in ('"event":"turn_forward"', '"event":"pause"', '"event":"top_up"', '"event":"empty"'):
        assert any(what in text for text in texts), what  # prologues, restored clocks, seat events mid-clock


@pytest.mark.parametrize("events", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_replay_file_gives_its_stored_output(events, capsys):
    config = events.with_name(events.name.replace(".events.jsonl", ".toml"))
    extra = ["--config", str(config)] if config.exists() else []
    assert main(["replay", str(events), *extra]) == 0
    expected = events.with_name(events.name.replace(".events.", ".expected.")).read_text()
    out = capsys.readouterr().out
    assert meaning(out) == meaning(expected)  # first what a reader would see differ
    assert out == expected  # then the text: a change of format is made deliberately (tests/golden_corpus.py)


def meaning(text: str) -> list:
    """The records of JSON Lines ``text`` as a reader takes them: a record's keys in any order, ``30`` and ``30.0``
    the same number, ``true`` not ``1``."""
    return [_value(json.loads(line)) for line in text.splitlines()]


def _value(value):
    if isinstance(value, bool):
        return ("flag", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, dict):
        return {key: _value(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_value(v) for v in value]
    return value


def test_meaning_tells_apart_what_a_reader_would():
    assert meaning('{"t":30,"type":"beep"}\n') == meaning('{"type":"beep","t":30.0}\n')
    for other in ('{"t":30.5,"type":"beep"}', '{"t":true,"type":"beep"}', '{"t":30,"type":"beep","seat":null}',
                  '{"t":30,"type":"bank"}', '{"t":"30","type":"beep"}'):
        assert meaning(other) != meaning('{"t":30,"type":"beep"}'), other
    assert meaning('{"t":1}\n{"t":2}') != meaning('{"t":2}\n{"t":1}')
