"""Faults the device shows on screen, as typed values (never strings parsed back).

Each fault has a ``key``: setting a fault with the same key replaces it, and clearing the
key removes it. The view turns them into words (:func:`shotclock.core.view.view_at`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    """Something wrong that the device survives and shows on screen."""

    @property
    def key(self) -> object:
        """What identifies this fault among the others (one per key)."""
        return type(self)


@dataclass(frozen=True)
class StuckButton(Fault):
    """``button`` has been held since ``since`` (seconds): ignored until released."""

    button: str
    since: float

    @property
    def key(self) -> object:
        return (StuckButton, self.button)


@dataclass(frozen=True)
class NoSound(Fault):
    """The speaker does not play (``detail`` says why); the buzzer takes over where there is one."""

    detail: str = ""


LOG_UNAVAILABLE, LOG_WRITE_FAILED, LOG_BACKLOG = "unavailable", "write_failed", "backlog"


@dataclass(frozen=True)
class LogFault(Fault):
    """The decision log cannot be used: ``problem`` is ``unavailable`` or ``write_failed``; ``detail`` is the cause."""

    problem: str
    detail: str = ""
