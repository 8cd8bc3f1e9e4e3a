"""The files a tournament's structure is read from: what floors already have.

* :func:`read_tdt`: The Tournament Director's saved tournament (``.tdt``), read by :mod:`shotclock.core.jsliteral`
  (data only, nothing evaluated): its levels are the ``GameRound`` and ``GameBreak`` entries of the tournament's
  ``Levels``, in order.
* :func:`read_csv`: a CSV, by its header: the plain ``small_blind,big_blind,ante,minutes,break`` (and its aliases,
  :data:`PLAIN_COLUMNS`), or TD's rounds export, whose column chooser changes the header (:data:`TD_COLUMNS`).
* :func:`read_toml`: the project's own TOML (``title``, then one ``[[stage]]`` table a level or break).

Each takes the file's text (the shell reads the file and its encoding) and returns a checked
:class:`~shotclock.core.structure.Structure`, or raises :class:`~shotclock.errors.StructureError` naming the line
(CSV, TOML) or level (``.tdt``: the level's number, where it stands and TD's name of the field) and the field, in the
words of the table of fields. What a reader skipped (a column it does not read, an entry of ``Levels`` that is not a
round or a break) it adds to ``notes``, for the shell to say. Pure: no file, no clock.

Example::

    >>> s = read_csv("small_blind,big_blind,ante,minutes,break\\n25,50,0,20,\\n,,,10,color-up\\n50,100,100,20,\\n")
    >>> [(s.label(i), stage.blinds or stage.name, stage.minutes) for i, stage in enumerate(s.stages)]
    [('level 1', '25/50', 20), ('the break after level 1', 'color-up', 10), ('level 2', '50/100, ante 100', 20)]
    >>> read_csv("sb,bb,minutes\\n100,50,20\\n")
    Traceback (most recent call last):
    ...
    shotclock.errors.StructureError: line 2 (level 1), column 'sb': 'small_blind' (100) must not be more than ...
"""

from __future__ import annotations

import csv
import difflib
import re
import tomllib
from typing import Callable

from shotclock.core.fields import as_whole
from shotclock.core.jsliteral import LiteralError, Made, position, read_literal
from shotclock.core.structure import Stage, Structure, structure_problem
from shotclock.errors import StructureError

# ---------------------------------------------------------------------------------------------------------------
# The Tournament Director's saved tournament (.tdt)

TD_ROUND, TD_BREAK = "GameRound", "GameBreak"
TD_FIELDS: dict[str, tuple[str, ...]] = {
    # A stage's field: TD's names for it, the first one present read. Minutes, SmallBlind, BigBlind, Ante and
    # GameName are what TD 3.7 writes; the others are read where a file has them (docs/structure.md says which).
    "minutes": ("Minutes", "Duration"),
    "small_blind": ("SmallBlind",),
    "big_blind": ("BigBlind",),
    "ante": ("Ante",),
    "big_blind_ante": ("BigBlindAnte", "BBAnte"),  # true, or the big-blind ante's amount
    "hands": ("Hands", "HandsPerLevel"),
}
TD_LEVEL_NAME = ("GameName",)
TD_BREAK_NAME = ("Name", "Description", "Title", "Caption")
TD_COLOR_UP = ("ColorUp", "ChipUp")  # a break flagged so and not named is called "color-up"


def read_tdt(text: str, notes: list[str] | None = None) -> Structure:
    """The structure of TD's saved tournament ``text``: its ``Title`` and the rounds and breaks of its ``Levels``.

    >>> s = read_tdt('{V: "3.7.2", T: new Tournament({Title: "Sunday", Levels: [new GameRound({Minutes: 20, '
    ...              'SmallBlind: 25, BigBlind: 50, Ante: 0, GameName: "Texas Hold \\'Em"}), '
    ...              'new GameBreak({Minutes: 5})]})}')
    >>> s.title, s.stages[0].blinds, s.stages[0].name, s.label(1)
    ('Sunday', '25/50', "Texas Hold 'Em", 'the break after level 1')
    """
    notes = [] if notes is None else notes
    if not text.strip():
        raise StructureError("", "the file is empty (TD saves {V: …, T: new Tournament({…})})")
    try:
        root = read_literal(text)
    except LiteralError as exc:
        raise StructureError(f"line {exc.line}, column {exc.column}", exc.problem) from None
    tournament = root.get("T") if isinstance(root, dict) else None
    if not (isinstance(tournament, Made) and tournament.name == "Tournament"):
        raise StructureError("", "no tournament in the file (TD saves {V: …, T: new Tournament({…})}): is it TD's "
                                 "saved tournament?")
    fields = tournament.fields
    title = fields.get("Title", "")
    levels = fields.get("Levels")
    if not isinstance(levels, list):
        line, column = position(text, tournament.at)
        raise StructureError(f"line {line}, column {column}", "the tournament has no Levels (its rounds and breaks)")
    stages: list[Stage] = []
    places: list[tuple[int, dict[str, str]]] = []  # each stage's offset and TD's names of its fields
    for number, item in enumerate(levels, 1):
        if not (isinstance(item, Made) and item.name in (TD_ROUND, TD_BREAK)):
            what = f"a {item.name}" if isinstance(item, Made) else "a value"
            notes.append(f"entry {number} of Levels is {what}, not a {TD_ROUND} or {TD_BREAK}: skipped")
            continue
        stage, names = _td_stage(item)
        stages.append(stage)
        places.append((item.at, names))
    structure = Structure(title if title is not None else "", tuple(stages))
    problem = structure_problem(structure)
    if problem:
        index, key, message = problem
        if index is None:
            raise StructureError("Title" if key == "title" else "Levels", message)
        at, names = places[index]
        line, column = position(text, at)
        name = names.get(key) or TD_FIELDS.get(key, (key,))[0]
        field = "" if key == "stages" else f", {name}"  # too many levels: the level, no field
        raise StructureError(f"{structure.label(index)} (line {line}, column {column}){field}", message)
    return _tidy(structure)


def _td_stage(item: Made) -> tuple[Stage, dict[str, str]]:
    """A stage of TD's ``GameRound`` or ``GameBreak`` as written, and TD's name of each field it was read from."""
    values, names = {}, {}
    fields = item.fields
    for key, aliases in TD_FIELDS.items():
        for alias in aliases:
            if alias in fields:
                values[key], names[key] = fields[alias], alias
                break
    is_break = item.name == TD_BREAK
    for alias in TD_BREAK_NAME if is_break else TD_LEVEL_NAME:
        if isinstance(fields.get(alias), str) and fields[alias]:
            values["name"], names["name"] = fields[alias], alias
            break
    if is_break and not values.get("name") and any(fields.get(k) is True for k in TD_COLOR_UP):
        values["name"] = "color-up"
    bba = values.get("big_blind_ante")
    if bba.__class__ in (int, float):  # the big-blind ante's amount
        if bba and not values.get("ante"):
            values["ante"], names["ante"] = bba, names["big_blind_ante"]
        values["big_blind_ante"] = bool(bba)
    elif bba is None:
        values.pop("big_blind_ante", None)
    for key in ("ante", "hands"):
        if key in values and values[key] is None:  # null: none, as when it is not there
            del values[key]
    for key in ("small_blind", "big_blind", "ante", "hands"):
        if key in values:
            values[key] = _whole(values[key])
    needed = {"minutes": None} if is_break else {"minutes": None, "small_blind": None, "big_blind": None}
    return Stage(**{**needed, **values, "is_break": is_break}), names


def _whole(value):
    """A JavaScript number that is whole as an int (TD's numbers carry no type); any other value as it is."""
    if value.__class__ is float and value.is_integer():
        return int(value)
    return value


# ---------------------------------------------------------------------------------------------------------------
# CSV: the plain one and TD's rounds export

PLAIN_COLUMNS = {
    # A plain CSV's header names (lower case), and the field each gives.
    "small_blind": "small_blind", "sb": "small_blind", "big_blind": "big_blind", "bb": "big_blind",
    "ante": "ante", "big_blind_ante": "big_blind_ante", "minutes": "minutes", "duration_minutes": "minutes",
    "break": "break", "is_break": "break", "break_duration_minutes": "break_minutes", "name": "name",
    "hands": "hands", "level": "level",
}
TD_COLUMNS = {
    # TD's rounds export, whose header its column chooser changes: a column's name in lower case, letters and digits
    # only ("Small Blind" is smallblind), and the field it gives. A column not named here is not read.
    "smallblind": "small_blind", "sb": "small_blind", "small": "small_blind",
    "bigblind": "big_blind", "bb": "big_blind", "big": "big_blind",
    "blinds": "blinds",  # 25/50, or 25/50/50 with the ante
    "ante": "ante", "antes": "ante", "bigblindante": "big_blind_ante", "bbante": "big_blind_ante",
    "minutes": "minutes", "duration": "minutes", "durationminutes": "minutes", "length": "minutes",
    "levellength": "minutes", "mins": "minutes",
    "breakminutes": "break_minutes", "breakduration": "break_minutes", "breakdurationminutes": "break_minutes",
    "level": "level", "round": "level", "levelnumber": "level", "type": "level",
    "break": "break", "isbreak": "break",
    "game": "game", "gamename": "game", "gametype": "game",
    "name": "name", "description": "name", "breakname": "name",
    "colorup": "color_up", "colourup": "color_up", "chipup": "color_up",
    "hands": "hands", "handsperlevel": "hands",
}
_TRUE = frozenset({"1", "true", "yes", "y", "x", "break", "ja", "j"})
_FALSE = frozenset({"", "0", "false", "no", "n", "nee"})
_GROUPED = re.compile(r"[0-9]{1,3}(?:([,.' \u00a0\u202f])[0-9]{3})(?:\1[0-9]{3})*")  # 1,000 1.000 1 000
_MINUTES = re.compile(r"([0-9]+(?:[.,][0-9]+)?)\s*(?:m|min|mins|minutes)?|([0-9]+):([0-5][0-9])(?::([0-5][0-9]))?",
                      re.I)


def read_csv(text: str, notes: list[str] | None = None) -> Structure:
    """The structure of a CSV ``text``: the plain one when every column of its header is one of
    :data:`PLAIN_COLUMNS`, else TD's rounds export (:data:`TD_COLUMNS`). Its title is "" (the shell may name it)."""
    notes = [] if notes is None else notes
    lines = text.removeprefix("\ufeff").splitlines()
    first = next((line for line in lines if line.strip()), "")
    delimiter = max(",;\t", key=lambda d: (first.count(d), d == ","))  # an export in a comma-decimal locale uses ;
    rows = csv.reader(lines, delimiter=delimiter, strict=True)
    header: list[str] | None = None
    stages: list[Stage] = []
    places: list[tuple[int, dict[str, str]]] = []  # each stage's line and the column each field came from
    read_row: Callable | None = None
    try:
        for row in rows:
            if not any(cell.strip() for cell in row):
                continue
            if header is None:
                header = [cell.strip() for cell in row]
                plain = all(cell.lower() in PLAIN_COLUMNS for cell in header if cell)
                columns = _columns(header, rows.line_num, plain, notes)
                read_row = _plain_row if plain else _td_row
                continue
            if row[0].lstrip().startswith("#"):
                continue
            line = rows.line_num
            if len(row) > len(header):
                raise StructureError(f"line {line}", f"{len(row)} cells, and the header names {len(header)} columns")
            cells = {key: row[i].strip() if i < len(row) else "" for key, i in columns.items()}
            for stage, names in read_row(cells, {key: header[i] for key, i in columns.items()}, line):
                stages.append(stage)
                places.append((line, names))
    except csv.Error as exc:
        raise StructureError(f"line {rows.line_num}", f"not CSV ({exc})") from None
    if header is None:
        raise StructureError("", "the file is empty (a CSV's first line names its columns: "
                                 "small_blind,big_blind,ante,minutes,break)")
    return _checked(Structure("", tuple(stages)), places)


def _columns(header: list[str], line: int, plain: bool, notes: list[str]) -> dict[str, int]:
    """Which column gives each field (a field given by two columns is refused); what is not read goes to notes."""
    columns: dict[str, int] = {}
    unread = []
    for index, name in enumerate(header):
        key = PLAIN_COLUMNS.get(name.lower()) if plain else TD_COLUMNS.get(re.sub(r"[^a-z0-9]", "", name.lower()))
        if key is None:
            if name:
                unread.append(name)
            continue
        if key in columns:
            raise StructureError(f"line {line}", f"the columns {header[columns[key]]!r} and {name!r} give the same "
                                                 "field: keep one")
        columns[key] = index
    if unread:
        notes.append(f"columns not read: {', '.join(unread)}")
    needs = [("small_blind", "the small blind", "small_blind or sb" if plain else "Small Blind, SB or Blinds"),
             ("big_blind", "the big blind", "big_blind or bb" if plain else "Big Blind, BB or Blinds"),
             ("minutes", "the minutes", "minutes or duration_minutes" if plain else "Minutes, Duration or Length")]
    for key, what, names in needs:
        if key not in columns and not (key != "minutes" and "blinds" in columns):
            raise StructureError(f"line {line}", f"no column gives {what} (it is read from {names}); the header: "
                                                 f"{', '.join(header)}")
    return columns


def _plain_row(cells: dict[str, str], names: dict[str, str], line: int):
    """The stages of one row of the plain CSV: a level (and the break after it, from ``break_duration_minutes``)
    or a break (``break`` true, or the break's name)."""
    mark = cells.get("break", "")
    is_break = mark.lower() not in _FALSE or cells.get("level", "").lower().startswith("break")
    name = cells.get("name", "") or ("" if mark.lower() in _TRUE or mark.lower() in _FALSE else mark)
    minutes = _decimal(cells.get("minutes", ""))
    after = _decimal(cells.get("break_minutes", ""))
    if is_break:
        if minutes is None and after is not None:
            minutes, names = after, {**names, "minutes": names["break_minutes"]}
        yield _break(cells, minutes, name), names
        return
    yield _level(cells, minutes, name), names
    if after not in (None, 0):
        yield Stage(minutes=after, is_break=True), {"minutes": names["break_minutes"]}


def _td_row(cells: dict[str, str], names: dict[str, str], line: int):
    """The stage of one row of TD's rounds export: a break when its break or level column says so."""
    mark = cells.get("break", "")
    is_break = (mark.lower() not in _FALSE) or "break" in cells.get("level", "").lower()
    name = cells.get("name", "") or ("" if mark.lower() in _TRUE or mark.lower() in _FALSE else mark)
    if is_break and not name and cells.get("color_up", "").lower() in _TRUE:
        name = "color-up"
    minutes = _minutes(cells.get("minutes", ""))
    if "blinds" in cells and "small_blind" not in cells:
        parts = [part.strip() for part in re.split(r"[/\-]", cells["blinds"])] if cells["blinds"] else []
        for key, part in zip(("small_blind", "big_blind", "ante"), parts):
            cells[key], names[key] = part, names["blinds"]
        if len(parts) > 3 or 0 < len(parts) < 2:
            raise StructureError(f"line {line}, column {names['blinds']!r}", "the blinds must be written SB/BB or "
                                                                         f"SB/BB/ante, not {cells['blinds']!r}")
    if is_break:
        if minutes is None and cells.get("break_minutes"):
            minutes, names = _minutes(cells["break_minutes"]), {**names, "minutes": names["break_minutes"]}
        yield _break(cells, minutes, name, grouped=True), names
        return
    yield _level(cells, minutes, cells.get("game", ""), grouped=True), names
    after = _minutes(cells.get("break_minutes", ""))
    if after not in (None, 0):
        yield Stage(minutes=after, is_break=True), {"minutes": names["break_minutes"]}


def _level(cells: dict[str, str], minutes, name: str, grouped: bool = False) -> Stage:
    number = _chips if grouped else _plain_whole
    ante = number(cells.get("ante", ""))
    flag = cells.get("big_blind_ante", "").lower()
    big_blind_ante: object = flag in _TRUE
    if flag not in _TRUE and flag not in _FALSE:  # the big-blind ante's amount
        amount = number(flag)
        if ante in (None, 0):
            ante = amount
        big_blind_ante = amount != 0 if amount.__class__ is int else amount
    hands = number(cells.get("hands", ""))
    return Stage(minutes=minutes, small_blind=number(cells.get("small_blind", "")),
                 big_blind=number(cells.get("big_blind", "")), ante=0 if ante is None else ante,
                 big_blind_ante=big_blind_ante, name=name, hands=0 if hands is None else hands)


def _break(cells: dict[str, str], minutes, name: str, grouped: bool = False) -> Stage:
    number = _chips if grouped else _plain_whole
    blinds = {k: number(cells.get(k, "")) for k in ("small_blind", "big_blind", "ante", "hands")}
    return Stage(minutes=minutes, is_break=True, name=name, **{k: 0 if v is None else v for k, v in blinds.items()})


def _plain_whole(text: str):
    """A whole number in plain digits; None for an empty cell; any other text as it is (the field's rule names it)."""
    return None if text == "" else as_whole(text)


def _chips(text: str):
    """:func:`_plain_whole`, also with thousands grouped (``1,000``, ``1.000``, ``1 000``), as an export writes them."""
    if _GROUPED.fullmatch(text):
        text = re.sub(r"[^0-9]", "", text)
    return _plain_whole(text)


def _decimal(text: str):
    """Minutes in plain digits with at most one decimal point; None for an empty cell; other text as it is."""
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?", text):
        return int(text) if text.isdigit() else float(text)
    return None if text == "" else text


def _minutes(text: str):
    """Minutes as an export writes them: ``20``, ``12.5``, ``12,5``, ``20 min``, ``20:00`` (minutes and seconds),
    ``1:30:00`` (hours, minutes, seconds); None for an empty cell; other text as it is."""
    m = _MINUTES.fullmatch(text.strip())
    if m is None:
        return None if text == "" else text
    if m.group(1):
        return _decimal(m.group(1).replace(",", "."))
    first, second, third = int(m.group(2)), int(m.group(3)), m.group(4)
    minutes = first * 60 + second + int(third) / 60 if third else first + second / 60
    return int(minutes) if float(minutes).is_integer() else round(minutes, 4)


def _checked(structure: Structure, places: list[tuple[int, dict[str, str]]]) -> Structure:
    """``structure`` when it breaks no rule; else the first problem at its line and column."""
    problem = structure_problem(structure)
    if problem is None:
        return _tidy(structure)
    index, key, message = problem
    if index is None:
        raise StructureError("", message)
    line, names = places[index]
    column = names.get(key)
    where = f"line {line} ({structure.label(index)})" + (f", column {column!r}" if column else "")
    raise StructureError(where, message)


# ---------------------------------------------------------------------------------------------------------------
# TOML of its own

STAGE_KEYS = ("small_blind", "big_blind", "ante", "big_blind_ante", "minutes", "hands", "name", "break")
_TOML_PLACE = re.compile(r"\s*(?:\[\[\s*(stage)\s*\]\]|\[|([A-Za-z0-9_-]+)\s*=)")


def read_toml(text: str, notes: list[str] | None = None) -> Structure:
    """The structure of the project's TOML: a ``title`` and one ``[[stage]]`` table a level or break (in order)::

        title = "Sunday Deepstack"

        [[stage]]
        small_blind = 25
        big_blind = 50
        minutes = 20

        [[stage]]
        break = "color-up"  # or: break = true
        minutes = 10

    A level takes ``small_blind``, ``big_blind``, ``minutes``, ``ante``, ``big_blind_ante`` (true or false),
    ``hands`` (it ends after so many hands) and ``name`` (its game); a break ``break`` and ``minutes``. Every key is
    one of these (a typo is refused, with the nearest key), so ``notes`` stays as it is.
    """
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc))
        raise StructureError(f"line {m.group(2)}, column {m.group(3)}" if m else "",
                             f"not TOML ({m.group(1) if m else exc})") from None
    top, tables = _toml_lines(text)
    for key in data:
        if key not in ("title", "stage"):
            raise StructureError(_at(top.get(key)), f"unknown key {key!r}{_nearest(key, ('title', 'stage'))} "
                                                    "(a structure has a 'title' and [[stage]] tables)")
    stages = data.get("stage")
    if not isinstance(stages, list) or not all(isinstance(s, dict) for s in stages):
        raise StructureError(_at(top.get("stage")), "no [[stage]] tables: each level or break is a [[stage]] table")
    built = []
    places: list[tuple[int | None, dict[str, int]]] = []
    for number, table in enumerate(stages):
        header, keys = tables[number] if number < len(tables) else (None, {})
        for key in table:
            if key not in STAGE_KEYS:
                raise StructureError(_at(keys.get(key, header), number),
                                     f"a [[stage]] takes no key {key!r}{_nearest(key, STAGE_KEYS)} (it takes "
                                     f"{', '.join(STAGE_KEYS)})")
        mark = table.get("break", False)
        is_break = mark is True or isinstance(mark, str)
        if isinstance(mark, str) and "name" in table:
            raise StructureError(_at(keys.get("name", header), number), "a break named twice: give 'break = \"NAME\"' "
                                                                         "or 'break = true' with 'name'")
        if mark.__class__ not in (bool, str):
            raise StructureError(_at(keys.get("break", header), number),
                                 f"'break' must be true, false or the break's name, not {mark!r}")
        name = mark if isinstance(mark, str) else table.get("name", "")
        fields = {k: table[k] for k in ("small_blind", "big_blind", "ante", "big_blind_ante", "hands") if k in table}
        if is_break:
            built.append(Stage(minutes=table.get("minutes"), is_break=True, name=name, **fields))
        else:
            built.append(Stage(**{"minutes": table.get("minutes"), "small_blind": None, "big_blind": None, **fields,
                                  "name": name}))
        places.append((header, keys))
    structure = Structure(data.get("title", ""), tuple(built))
    problem = structure_problem(structure)
    if problem is None:
        return _tidy(structure)
    index, key, message = problem
    if index is None:
        raise StructureError(_at(top.get(key)), message)
    header, keys = places[index]
    line = keys.get("break" if key == "is_break" else key, header)
    raise StructureError(f"{_at(line, index)} ({structure.label(index)})", message)


def _toml_lines(text: str) -> tuple[dict[str, int], list[tuple[int, dict[str, int]]]]:
    """Where each top-level key and each ``[[stage]]`` table (its header, its keys) stands: the lines a message
    names (tomllib gives values, not places; a table written inline is named by its number)."""
    top: dict[str, int] = {}
    tables: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = top
    for number, line in enumerate(text.splitlines(), 1):
        m = _TOML_PLACE.match(line)
        if m is None:
            continue
        if m.group(1):
            tables.append((number, {}))
            current = tables[-1][1]
        elif m.group(2):
            if current is not None:
                current.setdefault(m.group(2), number)
        else:
            current = None  # another table: its keys are not a stage's
    return top, tables


def _at(line: int | None, stage: int | None = None) -> str:
    if line is not None:
        return f"line {line}"
    return f"[[stage]] {stage + 1}" if stage is not None else ""


def _nearest(key: str, keys) -> str:
    close = difflib.get_close_matches(key, keys, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ---------------------------------------------------------------------------------------------------------------


def _tidy(structure: Structure) -> Structure:
    """A checked structure as the clock and its JSON carry it: a level that ends by hands has 0 minutes, a
    big-blind ante without an ante is none."""
    stages = []
    for s in structure.stages:
        minutes = 0 if s.minutes is None else s.minutes
        if minutes.__class__ is float and minutes.is_integer():
            minutes = int(minutes)
        stages.append(Stage(minutes=minutes, small_blind=s.small_blind or 0, big_blind=s.big_blind or 0,
                            ante=s.ante or 0, big_blind_ante=bool(s.big_blind_ante and s.ante), is_break=s.is_break,
                            name=s.name or "", hands=s.hands or 0))
    return Structure(structure.title or "", tuple(stages))
