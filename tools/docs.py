"""Rewrite the documents generated from the gesture map: the button tables in README.md, docs/device.md and
hardware/README.md, and the printable dealer cards docs/dealer-card-*.md (``python tools/docs.py``).

``tests/test_docs.py`` fails when a document and the gesture map drift apart; this brings them together.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shotclock.core.button_card import CARDS, dealer_card_markdown, render_blocks  # noqa: E402

TABLE_DOCUMENTS = ("README.md", "docs/device.md", "hardware/README.md")


def tournament_schema_blocks(text: str) -> str:
    """``text`` (docs/network.md) with each tournament clock message's schema block made again from its Struct."""
    import json
    import re

    from shotclock.core.tournament_state import message_schemas

    for name, schema in message_schemas().items():
        block = f"```json schema={name}\n{json.dumps(schema, ensure_ascii=False)}\n```"
        text = re.sub(rf"```json schema={name}\n.*?\n```", lambda m: block, text, count=1, flags=re.S)
    return text


def main() -> int:
    for name in TABLE_DOCUMENTS:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        new = render_blocks(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"docs: rewrote the button tables in {name}")
    network = ROOT / "docs" / "network.md"
    text = network.read_text(encoding="utf-8")
    new = tournament_schema_blocks(text)
    if new != text:
        network.write_text(new, encoding="utf-8")
        print("docs: rewrote the tournament clock's schemas in docs/network.md")
    for card in CARDS:
        path = ROOT / "docs" / f"dealer-card-{card}.md"
        text = dealer_card_markdown(card)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"docs: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
