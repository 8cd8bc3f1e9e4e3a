"""The JSON schemas of docs/network.md, read from the document itself, so code and doc cannot part."""

import json
import re
from functools import lru_cache
from pathlib import Path

import jsonschema

DOC = Path(__file__).resolve().parent.parent / "docs" / "network.md"
BLOCK = re.compile(r"```json schema=(\w+)\n(.*?)\n```", re.S)


@lru_cache(maxsize=None)
def schemas() -> dict[str, dict]:
    """Every ```json schema=NAME block of docs/network.md, by NAME."""
    return {name: json.loads(body) for name, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))}


def check(kind: str, message) -> dict:
    """Validate ``message`` (a dict, or JSON bytes/str) against the documented schema; return it as a dict."""
    if isinstance(message, (bytes, str)):
        message = json.loads(message)
    jsonschema.validate(message, schemas()[kind])
    return message
