"""The documentation says what the code does."""

from pathlib import Path

from shotclock.core.engine import transition_table_markdown

ROOT = Path(__file__).parent.parent


def test_rules_doc_contains_the_current_transition_table():
    doc = (ROOT / "docs" / "rules.md").read_text()
    assert transition_table_markdown() in doc


def test_rules_doc_contains_the_current_gesture_map():
    from shotclock.core.gestures import gesture_table_markdown

    doc = (ROOT / "docs" / "rules.md").read_text()
    assert gesture_table_markdown() in doc


def test_rules_doc_contains_the_current_seat_gestures():
    from shotclock.core.gestures import seat_gesture_table_markdown

    doc = (ROOT / "docs" / "rules.md").read_text()
    assert seat_gesture_table_markdown() in doc


def test_every_test_named_in_rules_doc_exists():
    import re

    doc = (ROOT / "docs" / "rules.md").read_text()
    names = set(re.findall(r"`(?:([\w]+\.py)::)?(test_\w+)`", doc))
    assert len(names) > 20
    for file, name in names:
        path = ROOT / "tests" / (file or "test_engine.py")
        assert f"def {name}(" in path.read_text(), f"{name} named in docs/rules.md is not in {path.name}"
