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


def test_the_button_tables_in_the_readme_the_device_doc_and_the_guide_are_the_gesture_maps():
    from shotclock.core.button_card import blocks_in, render_blocks

    every = [("clock", "keys"), ("shot", "keys"), ("shot-seats", "keys")]
    for name, blocks in (("README.md", every[:1]), ("docs/device.md", every),
                         ("hardware/README.md", [("clock", "guide"), ("shot", "guide"), ("shot-seats", "guide")])):
        text = (ROOT / name).read_text()
        assert render_blocks(text) == text, f"{name}: run python tools/docs.py"
        assert blocks_in(text) == blocks, name


def test_a_stale_button_table_is_rewritten():
    from shotclock.core.button_card import button_table_markdown, render_blocks

    stale = "before\n<!-- buttons shot-seats card:start -->\n| action | hold: nobody left to act |\n" \
            "<!-- buttons shot-seats card:end -->\nafter"
    fresh = render_blocks(stale)
    assert fresh == ("before\n<!-- buttons shot-seats card:start -->\n" + button_table_markdown("shot", True) +
                     "\n<!-- buttons shot-seats card:end -->\nafter")


def test_each_dealer_card_is_generated_from_the_gesture_map():
    from shotclock.core.button_card import CARDS, dealer_card_markdown

    for name in CARDS:
        path = ROOT / "docs" / f"dealer-card-{name}.md"
        assert path.read_text() == dealer_card_markdown(name), f"{path.name}: run python tools/docs.py"


def test_a_seat_tracked_card_says_fold_all_in_and_the_turn_moves():
    """With seats.track the action hold is a fold, bet held + action an all-in, bet held + street / extend
    move the turn; without seats the action hold (shot mode) is still 'nobody left to act'."""
    from shotclock.core.button_card import button_rows

    seats = button_rows("shot", seats=True)
    assert "fold" in seats["action"].hold and "nobody left" not in seats["action"].hold
    assert seats["action"].chord.startswith("all-in")
    assert "back" in seats["street"].chord and "forward" in seats["extend"].chord
    clock_seats = button_rows("clock", seats=True)["action"]
    assert "fold" in clock_seats.hold and clock_seats.press.startswith("idle: the player acted: the turn moves on")
    plain = button_rows("shot")
    assert "nobody left to act" in plain["action"].hold and plain["action"].chord == ""
    assert "extend" not in button_rows("clock") and "extend" in button_rows("clock", seats=True)
