"""Faults the device shows on screen, as typed values (never strings parsed back).

Each fault has a ``key``: setting a fault with the same key replaces it, and clearing the
key removes it. The view turns them into words (:func:`shotclock.core.view.view_at`); on the
floor network each crosses the wire as a JSON object with a ``kind`` and named fields
(:meth:`Fault.to_dict`, docs/network.md "state").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class Fault:
    """Something wrong that the device survives and shows on screen."""

    KIND: ClassVar[str] = "fault"  # the ``kind`` on the wire

    @property
    def key(self) -> object:
        """What identifies this fault among the others (one per key)."""
        return type(self)

    def to_dict(self) -> dict:
        """The fault as the floor network's JSON object: its ``kind`` and its fields by name.

        Example::

            >>> StuckButton("action", 12.5).to_dict()
            {'kind': 'stuck', 'button': 'action', 'since': 12.5}
        """
        return {"kind": self.KIND, **dataclasses.asdict(self)}


@dataclass(frozen=True)
class StuckButton(Fault):
    """``button`` has been held since ``since`` (the device's monotonic seconds): ignored until released."""

    KIND: ClassVar[str] = "stuck"
    button: str
    since: float

    @property
    def key(self) -> object:
        return (StuckButton, self.button)


@dataclass(frozen=True)
class NoSound(Fault):
    """The speaker does not play (``detail`` says why); the buzzer takes over where there is one."""

    KIND: ClassVar[str] = "no_sound"
    detail: str = ""


LOG_UNAVAILABLE, LOG_WRITE_FAILED, LOG_BACKLOG = "unavailable", "write_failed", "backlog"


@dataclass(frozen=True)
class LogFault(Fault):
    """The decision log cannot be used: ``problem`` is ``unavailable``, ``write_failed`` or ``backlog``;
    ``detail`` is the cause."""

    KIND: ClassVar[str] = "log"
    problem: str
    detail: str = ""


@dataclass(frozen=True)
class FirstBootFailed(Fault):
    """The card's first-boot file was not taken (``detail``: the one line ``shotclock firstboot`` wrote):
    the table may run with an old or no identity until a corrected file is copied onto the card."""

    KIND: ClassVar[str] = "firstboot"
    detail: str = ""


FAULTS = (StuckButton, NoSound, LogFault, FirstBootFailed)  # every kind a device reports
