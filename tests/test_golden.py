"""The golden corpus: every replay file of docs/examples and tests/golden gives, through ``shotclock replay``,
the output stored beside it, byte for byte. The tests/golden files are clocks exported from tables played on
the real device, each kept only when it replayed to the ruling, seat and bank the device logged; to make them
again after a deliberate change of the replay output: ``.venv/bin/python tests/golden_corpus.py`` (then read the
diff)."""

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
    expected = events.with_name(events.name.replace(".events.", ".expected."))
    assert capsys.readouterr().out == expected.read_text()
