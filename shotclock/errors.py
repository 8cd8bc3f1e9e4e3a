"""Every error shotclock raises on purpose, in one small hierarchy (as gpiozero does).

Catch :class:`ShotclockError` for all of them, or exactly the kind you mean.
"""


class ShotclockError(Exception):
    """Base class of all of shotclock's own errors."""


class ConfigError(ShotclockError):
    """The configuration file is missing, unreadable or invalid; ``problems`` lists every one."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        super().__init__(f"{source}: " + "; ".join(self.problems))

    def report(self) -> str:
        """A multi-line message for a person: the file, then one problem a line."""
        lines = [f"shotclock: invalid configuration in {self.source}:"]
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


class HardwareError(ShotclockError):
    """A pin, display or audio device could not be set up."""


class PinConfigError(ConfigError):
    """Pins are out of range or used twice (a configuration error about hardware)."""


class LogError(ShotclockError):
    """The decision log cannot be opened, read or verified."""
