"""Every error shotclock raises on purpose, in one small hierarchy (as gpiozero does).

Catch :class:`ShotclockError` for all of them, or exactly the kind you mean.
"""


def shown(value) -> str:
    """A value as an error message quotes it: its repr, cut short (an integer of 300 digits stays readable)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (a file name may hold them)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class ShotclockError(Exception):
    """Base class of all of shotclock's own errors."""


class ConfigError(ShotclockError):
    """The configuration is missing, unreadable or invalid; ``errors`` maps each bad key to its problem.

    In the style of Mopidy, problems are keyed by the dotted key (``"clock.seconds"``), so a caller
    finds a key's problem without parsing messages; the key ``""`` holds problems of the whole file.
    """

    def __init__(self, source: str, errors: dict[str, str]):
        self.source = source
        self.errors = dict(errors)
        super().__init__(f"{source}: " + "; ".join(self.problems))

    @property
    def problems(self) -> list[str]:
        """Every problem as a sentence naming its key."""
        return [one_line(f"'{key}' {problem}" if key else problem) for key, problem in self.errors.items()]

    def report(self) -> str:
        """The message for a person: one line for one problem, else the file then one problem a line."""
        if len(self.errors) == 1:
            return f"shotclock: invalid configuration in {one_line(self.source)}: {self.problems[0]}"
        lines = [f"shotclock: invalid configuration in {one_line(self.source)} ({len(self.errors)} problems):"]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


class EventError(ShotclockError):
    """An event the engine cannot take (for instance its time lies before the engine's clock)."""


class ReplayFormatError(ShotclockError):
    """A line of a replay (JSON Lines) file is malformed; names the line number."""

    def __init__(self, line: int, problem: str):
        self.line = line
        self.problem = problem
        super().__init__(f"line {line}: {problem}")


class StructureError(ShotclockError):
    """A tournament's structure that cannot be read or holds a bad stage: ``where`` (a file, its line or level and
    field, or "" for the whole) and the ``problem`` (one line naming the field)."""

    def __init__(self, where: str, problem: str):
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


class HardwareError(ShotclockError):
    """A pin, display or audio device could not be set up."""


class PinConfigError(ConfigError):
    """Pins are out of range or used twice (a configuration error about hardware)."""


class LogError(ShotclockError):
    """The decision log cannot be opened, read or verified."""
