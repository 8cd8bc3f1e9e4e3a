"""Rewrite docs/network.md's ``command`` schema and docs/fields.md's table from the table of fields
(shotclock/core/fields.py).

Run ``.venv/bin/python tools/fields_doc.py`` after changing a field; tests/test_network_docs.py fails until the
document matches.
"""

import re
from pathlib import Path

from shotclock.core.fields import command_schema_text, fields_table
from shotclock.core.inputs import COMMANDS

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"(```json schema=command\n)(.*?)(\n```)", re.S)
TABLE = re.compile(r"(<!-- fields-table:start -->\n)(.*?)(<!-- fields-table:end -->)", re.S)


def rewrite(path: Path, pattern: re.Pattern, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(pattern.sub(lambda m: m.group(1) + body + m.group(3), text, count=1), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    rewrite(DOCS / "network.md", BLOCK, command_schema_text(COMMANDS))
    rewrite(DOCS / "fields.md", TABLE, fields_table() + "\n")
