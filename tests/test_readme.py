"""The README and the guides are a user's guide: every link resolves, the commands CI runs are the ones they
give, no process words, the README stays a user's guide of at most 400 lines, and the replay doc names every
event the reader takes."""

import re
from pathlib import Path

import pytest

from shotclock.core import events as ev

ROOT = Path(__file__).parent.parent
DOCUMENTS = ["README.md", "hardware/README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors a Markdown file's headings make (a repeated heading gets -1, -2…)."""
    seen: dict[str, int] = {}
    out = set()
    for line in re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S).splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            base = slug(match.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def broken_links(path: Path, root: Path) -> list[str]:
    """Every relative link in ``path`` whose file (or heading) does not exist under ``root``."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists() or root.resolve() not in (resolved, *resolved.parents):
            broken.append(target)
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(target)
    return broken


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_relative_link_resolves(name):
    assert broken_links(ROOT / name, ROOT) == []


def test_a_broken_link_or_heading_is_found(tmp_path):
    (tmp_path / "other.md").write_text("# A heading: with `code`\n")
    doc = tmp_path / "doc.md"
    doc.write_text("[ok](other.md#a-heading-with-code) [no](missing.md) [bad](other.md#nothing) ![pic](pic.png)\n"
                   "```\n[not a link](nowhere.md)\n```\n[web](https://example.org)\n")
    assert broken_links(doc, tmp_path) == ["missing.md", "other.md#nothing", "pic.png"]


def test_the_readme_gives_the_exact_commands_ci_runs():
    readme = (ROOT / "README.md").read_text()
    commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line.strip().startswith("./dev")]
    assert "./dev test" in commands and any("--arch arm64" in c for c in commands)
    for command in commands:
        assert re.search(rf"(^|sudo |\n){re.escape(command)}(\s|$)", readme, re.M), command


@pytest.mark.parametrize("name", DOCUMENTS + ["sounds/README.md"])
def test_no_process_words(name):
    prose = CODE.sub("", (ROOT / name).read_text(encoding="utf-8"))
    for word in (r"\bstop \d+", r"\bhelpers?\b", r"\blead engineer", r"\bthe issue's\b"):
        assert not re.search(word, prose, re.I), f"{name}: {re.search(word, prose, re.I).group(0)!r}"


def test_the_replay_doc_names_every_event():
    doc = (ROOT / "docs" / "replay.md").read_text()
    table = doc[doc.index("| event | meaning |"):]
    table = table[:table.index("\n\n")]
    named = set(re.findall(r"^\| `(\w+)`(?:, `(\w+)`)?", table, re.M))
    names = {n for pair in named for n in pair if n}
    assert names == set(ev.EVENT_TYPES)


def test_the_replay_doc_names_every_output_record():
    doc = (ROOT / "docs" / "replay.md").read_text()
    table = doc[doc.index("| type | fields |"):]
    table = table[:table.index("\n\n")]
    names = {n for row in re.findall(r"^\| (`\w+`(?: / `\w+`)?)", table, re.M) for n in re.findall(r"`(\w+)`", row)}
    assert names == {cls.TYPE for cls in ev.Output.__subclasses__()}


def test_every_figure_in_the_benchmarks_is_tied_to_a_version():
    doc = (ROOT / "docs" / "benchmarks.md").read_text()
    assert "Version **0.2.0**, 1 December 2026" in doc
    history = doc[doc.index("## History"):]
    entries = re.findall(r"^\*\*(.+?)\*\*", history, re.M)
    assert entries and all(re.match(r"(\d+\.\d+\.\d+|Unreleased), \d{4}-\d\d-\d\d", e) for e in entries), entries


def test_every_file_the_readme_and_the_guide_name_in_backquotes_exists():
    """A new user pastes the README's commands: each repository path they name is there."""
    missing = []
    for name in ("README.md", "hardware/README.md", "docs/device.md", "docs/appliance-test.md"):
        text = (ROOT / name).read_text()
        for path in re.findall(r"(?<![\w/.-])((?:docs|hardware|tests|tools|bench|sounds)/[\w./-]+\.\w+)", text):
            if "*" not in path and not (ROOT / path).exists():
                missing.append(f"{name}: {path}")
    assert missing == []
