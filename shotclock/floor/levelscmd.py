"""``shotclock levels FILE``: a level schedule (:mod:`shotclock.floor.schedule`) played on the local clock, each
level sent to the venue's tables (a line's room or section: the tables there) as it begins, each table's answer
printed; ``--check`` prints the plan and sends nothing."""

from __future__ import annotations

import argparse
import time
from datetime import datetime
from pathlib import Path

from shotclock.errors import ShotclockError
from shotclock.floor.schedule import Step, due, parse_schedule, read_schedule, schedule_day


def play(steps: list[Step], send, now=datetime.now, sleep=time.sleep) -> int:
    """Send each level as it begins (``send(step)`` returns an exit code); the highest code. The times count from
    :func:`schedule_day`'s midnight on the local clock, read again before each wait (a wait never spans a day)."""
    day = schedule_day(steps, now())
    minute = lambda: (now() - day).total_seconds() / 60
    code = 0
    sending, ahead = due(steps, minute())
    for step in sending + ahead:
        wait = (step.minute - minute()) * 60
        if wait > 0:
            print(f"waiting for {step.clock}: level {step.level}", flush=True)
            sleep(wait)
        code = max(code, send(step))
    return code


def cmd_levels(args) -> int:
    """Check the schedule; with ``--check`` print it; else send each level as it begins (until the last)."""
    steps = parse_schedule(read_schedule(Path(args.file)), args.file)
    missing = [f"--{k}" for k in ("venue", "credentials") if not args.check and not getattr(args, k, None)]
    if missing:
        raise ShotclockError(f"{' and '.join(missing)} {'are' if len(missing) > 1 else 'is'} needed to send the levels "
                         "(only --check sends nothing)")
    if args.check:

        for s in steps:
            where = " ".join(f"{k}={v}" for k, v in s.fields().items() if k != "level")
            print(f"{s.clock}  level {s.level}" + (f"  {where}" if where else ""))
        return 0
    from shotclock.floor.client import login_problem
    from shotclock.floor.send import cmd_send

    # Logged in once now: a wrong login or address is said at the start, not when the first level is due.
    problem = login_problem(args)
    if problem:
        print(f"warning: {problem}; each level is sent at its time all the same", flush=True)

    def send(step: Step) -> int:
        print(f"{step.clock}: level {step.level}", flush=True)
        fields = argparse.Namespace(**vars(args))
        for key in ("seat", "player", "bank", "chips", "seconds", "seating", "facing_bet"):
            setattr(fields, key, None)
        fields.command, fields.all, fields.json = "level", True, False
        fields.hands = fields.room = fields.section = None
        for key, value in step.fields().items():
            setattr(fields, key, value)
        try:
            return cmd_send(fields)
        except ShotclockError as exc:  # a broker away for a moment: said, and the next level is sent at its time
            print(f"{step.clock}: level {step.level} not sent: {exc}", flush=True)
            return 1

    return play(steps, send)
