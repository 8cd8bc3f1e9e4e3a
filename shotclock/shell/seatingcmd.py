"""``shotclock seating FILE.csv``: a tournament program's seating export, checked and printed as one event.

The export (``seat,name`` a line) is checked whole against the table's seats (``seats.count``) before
anything is printed: a bad line is one line naming it, exit 2, and nothing is printed, so nothing is
applied. The output is the ``seating`` replay event (or, with ``--command``, the floor command's fields),
which seats the whole table at once, all or nothing.

The file is UTF-8 (a byte order mark is skipped); an export in another encoding (Latin-1, Windows-1252) is
read with ``--encoding``, and without it the first line that is not UTF-8 is named with that advice.
"""

from __future__ import annotations

import codecs

from shotclock.core.codec import text as json_text
from shotclock.errors import ShotclockError, one_line
from shotclock.input_files import read_input

SEATING_MAX = 100_000  # bytes: ten players' lines are a few hundred; more is not a seating export


def read_seating(path, count: int, encoding: str = "utf-8") -> list[tuple[int, str]]:
    """The players of the seating export at ``path`` for a table of ``count`` seats, in ``encoding``.

    :raises ShotclockError: one line naming the file and the line (a line not in ``encoding``, a bad seat or name).
    """
    from shotclock.core.seats import SeatError, parse_seating

    shown = one_line(str(path))
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise ShotclockError(f"unknown encoding {one_line(encoding)!r} (for example utf-8, latin-1, cp1252)") from None
    data = read_input(path, SEATING_MAX, "seating export", streams=True)  # an export piped in (<(program)) too
    try:
        text = data.decode("utf-8-sig" if codec == "utf-8" else codec)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        advice = "; if the export is Latin-1 or Windows-1252, pass --encoding cp1252" if codec == "utf-8" else ""
        raise ShotclockError(f"{shown}: line {line}: not {codec} text (byte 0x{data[exc.start]:02x} at column "
                             f"{column}){advice}") from None
    try:
        return parse_seating(text.splitlines(), count)
    except SeatError as exc:
        raise ShotclockError(f"{shown}: {one_line(str(exc))}") from None


def cmd_seating(args) -> int:
    """Check a seating CSV and print it as a ``seating`` event (or command)."""
    from shotclock.core.events import number
    from shotclock.shell.args import load_for

    config = load_for(args)
    pairs = [[seat, name] for seat, name in read_seating(args.file, config.seats.count, args.encoding)]
    if args.command:
        print(json_text({"name": "seating", "players": pairs}))
    else:
        print(json_text({"t": number(args.at), "event": "seating", "players": pairs}))
    return 0
