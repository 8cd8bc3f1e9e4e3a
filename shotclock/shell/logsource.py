"""Which decision log a ``shotclock log`` command reads: this device's, or one table of the floor's archive."""

from __future__ import annotations

import os
from pathlib import Path

from shotclock.errors import ShotclockError

SERVICE_STATE_DIR = Path("/var/lib/shotclock")  # the systemd unit's StateDirectory=shotclock


def state_dir(args) -> Path:
    """Where ``shotclock log`` reads: ``--state-dir``, else $STATE_DIRECTORY, else the service's log when there
    is one (so on the Pi ``shotclock log`` needs no options), else the user state directory."""
    from shotclock.adapters.log import DB_NAME, default_state_dir

    if args.state_dir:
        return Path(args.state_dir)
    if not os.environ.get("STATE_DIRECTORY") and (SERVICE_STATE_DIR / DB_NAME).exists():
        return SERVICE_STATE_DIR
    return default_state_dir()


def open_log(args):
    """The :class:`~shotclock.adapters.log.DecisionLog` the arguments name, read-only: ``--collected DIR
    --table ID`` (one table of the floor's archive), else this device's log in :func:`state_dir`."""
    from shotclock.adapters.log import DecisionLog

    if getattr(args, "collected", None):
        from shotclock.adapters.archive import table_log, tables

        if not args.table:
            known = ", ".join(t for t, *_ in tables(args.collected, venue_of(args))) or "none"
            raise ShotclockError(f"name a table of the archive with --table (tables: {known})")
        return table_log(args.collected, args.table, venue_of(args))
    if getattr(args, "venue", None) is not None:
        raise ShotclockError("--venue goes with --collected (the floor's archive)")
    return DecisionLog(state_dir(args), readonly=True)


def venue_of(args) -> str | None:
    """``--venue NAME`` (checked as the topics' names are), or None: every venue of the archive."""
    from shotclock.core.topics import check_name

    venue = getattr(args, "venue", None)
    problem = check_name("--venue", venue) if venue is not None else None
    if problem:
        raise ShotclockError(problem)
    return venue
