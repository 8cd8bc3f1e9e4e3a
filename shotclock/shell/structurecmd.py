"""``shotclock structure FILE``: a tournament's structure (levels and breaks) from the file a floor already has,
checked whole and printed; and :func:`load_structure`, which the tournament clock loads it with.

The reader is chosen by the file's suffix: ``.tdt`` (The Tournament Director's saved tournament), ``.csv`` (TD's
rounds export or the plain ``small_blind,big_blind,ante,minutes,break``, told apart by the header) or ``.toml``
(docs/structure.md). A file is at most :data:`FILE_MAX` bytes and a regular file. Its text is UTF-8 (a byte order
mark skipped); a ``.tdt`` or CSV that is not is read as Windows-1252, as TD wrote before 2020; ``--encoding`` names
another. A bad file is one line naming the file, the line or level and the field, exit 2, and nothing is loaded.
"""

from __future__ import annotations

import codecs
import logging
import sys
from pathlib import Path

from shotclock.core.fields import FIELDS
from shotclock.core.structure import Structure, structure_lines
from shotclock.core.structure_formats import read_csv, read_tdt, read_toml
from shotclock.errors import ShotclockError, StructureError, one_line
from shotclock.input_files import read_input

log = logging.getLogger("shotclock.structure")

FILE_MAX = 4_000_000  # bytes: TD's file of a big event is a few hundred kB; 4 MB reads in about a second
TOO_BIG = "(a tournament's file is a few hundred kB; from a very big .tdt, export its rounds as CSV and read that)"
READERS = {".tdt": read_tdt, ".csv": read_csv, ".toml": read_toml}
OLD_ENCODING = "cp1252"  # TD's files before 2020, and a spreadsheet's CSV on Windows


def load_structure(path: str | Path, encoding: str | None = None) -> Structure:
    """The structure in the file at ``path``, checked whole (docs/structure.md).

    :param encoding: the file's encoding; None: UTF-8, else (a ``.tdt`` or CSV) Windows-1252.
    :raises StructureError: one line naming the file, the line or level and the field.
    :raises ShotclockError: the file cannot be read (missing, too big, not text, an unknown suffix or encoding).

    Example::

        >>> load_structure("tests/fixtures/structures/plain.csv").stages[0].blinds
        '25/50'
    """
    path = Path(path)
    shown = one_line(str(path))
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise ShotclockError(f"{shown}: not a structure file shotclock reads: .tdt (The Tournament Director's saved "
                             "tournament), .csv (its rounds export, or small_blind,big_blind,ante,minutes,break) or "
                             ".toml (docs/structure.md)")
    data = read_input(path, FILE_MAX, "structure file", advice=TOO_BIG)
    text = _decode(data, encoding, path.suffix.lower() == ".toml", shown)
    notes: list[str] = []
    try:
        structure = reader(text, notes)
    except StructureError as exc:
        raise StructureError(f"{shown}: {exc.where}" if exc.where else shown, one_line(exc.problem)) from None
    for note in notes:
        log.warning("%s: %s", shown, one_line(note))
    if not structure.title and reader is read_csv and FIELDS["title"].problem(path.stem) is None:
        structure = Structure(path.stem, structure.stages)  # a CSV has no title: its file's name is one
    return structure


def _decode(data: bytes, encoding: str | None, toml: bool, shown: str) -> str:
    """``data`` as text: in ``encoding``; or UTF-8, else (not TOML, which is UTF-8) Windows-1252."""
    if encoding is not None:
        try:
            codec = codecs.lookup(encoding).name
        except LookupError:
            raise ShotclockError(f"unknown encoding {one_line(encoding)!r} (for example utf-8, cp1252, latin-1)") \
                from None
        tries = ["utf-8-sig" if codec == "utf-8" else codec]
    else:
        tries = ["utf-8-sig"] if toml else ["utf-8-sig", OLD_ENCODING]
    for name in tries:
        try:
            text = data.decode(name)
        except UnicodeDecodeError as exc:
            problem = exc
            continue
        if name == OLD_ENCODING and encoding is None:
            log.debug("%s: not UTF-8, read as Windows-1252", shown)
        return text
    line = data.count(b"\n", 0, problem.start) + 1
    column = problem.start - (data.rfind(b"\n", 0, problem.start) + 1) + 1
    what = ("UTF-8 (as TOML is)" if toml else "UTF-8 or Windows-1252") if encoding is None else encoding
    advice = "" if encoding is not None or toml else "; name its encoding with --encoding"
    raise ShotclockError(f"{shown}: line {line}, column {column}: not {what} text (byte 0x{data[problem.start]:02x})"
                         f"{advice}")


def cmd_structure(args) -> int:
    """Read, check and print a structure file (``--json``: the structure as JSON)."""
    structure = load_structure(args.file, args.encoding)
    if args.json:
        from shotclock.core.events import json_lines  # the one encoder of what shotclock prints as JSON

        sys.stdout.write(json_lines((structure,)).decode())
    else:
        print("\n".join(structure_lines(structure)))
    return 0
