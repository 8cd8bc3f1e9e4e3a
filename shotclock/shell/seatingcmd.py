"""``shotclock seating FILE.csv``: a tournament program's seating export, checked and printed as one event.

The export (``seat,name`` a line) is checked whole against the table's seats (``seats.count``) before
anything is printed: a bad line is one line naming it, exit 2, and nothing is printed, so nothing is
applied. The output is the ``seating`` replay event (or, with ``--command``, the floor command's fields),
which seats the whole table at once, all or nothing.
"""

from __future__ import annotations

import json

from shotclock.errors import ShotclockError, one_line


def read_seating(path: str, count: int) -> list[tuple[int, str]]:
    """The seating export at ``path`` checked against a table of ``count`` seats, as ``[(seat, name)]``;
    ShotclockError naming the file and the first bad line (the one reading ``seating``, ``send --seating`` and
    ``simulate --seating`` share)."""
    from shotclock.core.seats import SeatError, parse_seating

    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ShotclockError(f"cannot read {one_line(path)}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return parse_seating(lines, count)
    except SeatError as exc:
        raise ShotclockError(f"{one_line(path)} {one_line(str(exc))}") from None


def cmd_seating(args) -> int:
    """Check a seating CSV and print it as a ``seating`` event (or command)."""
    from shotclock.core.events import number
    from shotclock.shell.args import load_for

    config = load_for(args)
    players = read_seating(args.file, config["seats.count"])
    pairs = [[seat, name] for seat, name in players]
    if args.command:
        print(json.dumps({"name": "seating", "players": pairs}, ensure_ascii=False))
    else:
        print(json.dumps({"t": number(args.at), "event": "seating", "players": pairs}, ensure_ascii=False,
                         separators=(",", ":")))
    return 0
