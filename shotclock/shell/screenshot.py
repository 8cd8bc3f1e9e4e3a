"""``shotclock screenshot``: what the screen showed at time T of a replay scenario."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import msgspec

from shotclock.config.pins import BUTTONS
from shotclock.core.engine import IDLE
from shotclock.core.faults import LOG_UNAVAILABLE, LOG_WRITE_FAILED, Fault, LogFault, NoSound, StuckButton
from shotclock.core.events import End
from shotclock.core.levels import RHYTHM, TableLevels
from shotclock.core.restore import ClockAtStop
from shotclock.core.seated import make_engine
from shotclock.core.table import Table
from shotclock.core.cues import Cues
from shotclock.core.view import last_fold, network_mark, view_at
from shotclock.shell.presenters import display_for
from shotclock.config.schema import parse_size
from shotclock.errors import ShotclockError


IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".bmp", ".tga")  # what pygame.image.save writes, by the name's end


FAULT_KINDS = "stuck=BUTTON, no_sound, log=unavailable, log=write_failed"


def parse_fault(text: str) -> Fault:
    """A ``--fault`` value (``stuck=action``, ``no_sound``, ``log=write_failed``) as a fault; errors name it."""
    kind, _, detail = text.partition("=")
    if kind == "stuck" and detail in BUTTONS:
        return StuckButton(detail, 0.0)
    if kind == "no_sound":
        return NoSound(detail)
    if kind == "log" and detail in (LOG_UNAVAILABLE, LOG_WRITE_FAILED, ""):
        return LogFault(detail or LOG_WRITE_FAILED)
    if kind == "stuck":
        raise ShotclockError(f"--fault {text!r}: the stuck button must be one of {', '.join(BUTTONS)}")
    raise ShotclockError(f"--fault {text!r}: expected one of {FAULT_KINDS}")


def parse_network(text: str) -> tuple[bool, int]:
    """A ``--network`` value (``down``, ``down=12``, ``sending=12``) as (connected, records waiting)."""
    kind, _, count = text.partition("=")
    if kind in ("down", "sending") and (count.isdigit() or (kind == "down" and not count)):
        return kind == "sending", int(count or 0)
    raise ShotclockError(f"--network {text!r}: expected down, down=N or sending=N")


def state_at(events, settings, at: float, interrupted: bool = False, outputs: list | None = None):
    """The engine's state at time ``at`` after the events up to then (an ``end`` stops it early).

    ``interrupted``: a power cut at ``at``; the clock comes back paused, as after a restart.
    ``outputs``: a list that gets the engine's outputs up to ``at`` (a fold to name, the visual cues).
    """
    engine = make_engine(settings)  # with seat tracking, the engine that knows the seats
    levels = TableLevels(settings)  # a level and its hands, from the next hand (as the table and replay take them)
    given = outputs if outputs is not None else []
    for event in events:
        if event.t > at or isinstance(event, End):
            break
        given += levels.take(event, engine) if event.__class__ in RHYTHM else engine.handle(event)
    given += engine.advance(at)
    state = engine.state
    if levels.view is not None:
        state = dataclasses.replace(state, level=levels.view)
    if interrupted and state.phase != IDLE:
        restarted = Table(settings, start=at)
        restart(restarted, state, at)
        return restarted.state
    return state


def restart(table: Table, state, t: float) -> None:
    """Bring ``state``'s clock back on ``table`` at ``t`` as the device does after a power cut: the seats, banks
    and chips it kept (:meth:`Table.restore_seats`), then the clock paused with the time it had
    (:meth:`Table.restore`, the one restore of the device and ``log replay``)."""
    if state.seats is not None:
        table.restore_seats(msgspec.to_builtins(state.seats.record()))  # as the log keeps it
    table.restore(ClockAtStop.from_state(state, t), t)


def held_screen(text: str, events, config, at: float, state, interrupted: bool = False):
    """``--hold BUTTON[=SECONDS]``: (state, holds) as the table shows them at ``at`` with BUTTON pressed
    SECONDS before (default 1) and still down; raises ShotclockError naming a bad value.

    The press goes through the table's own rules, as on the device: the floor's press pauses a running
    clock and its hold then cancels it, the street's press ends a shot clock on the next street and its
    hold deals a new hand; a hold that would do nothing shows no bar (:meth:`Table.holds`).
    ``state`` is the screen's state at ``at`` without the press; ``interrupted``: it is a clock restored
    after a power cut (the button is held on the restarted device)."""
    from shotclock.core.inputs import Edge
    from shotclock.shell.device import make_table

    button, _, since = text.partition("=")
    if button not in BUTTONS:
        raise ShotclockError(f"--hold {text!r}: the button must be one of {', '.join(BUTTONS)}")
    hold = config.device.hold
    try:
        held = float(since) if since else 1.0
    except ValueError:
        held = -1.0
    if not 0 <= held < hold:
        raise ShotclockError(f"--hold {text!r}: SECONDS must be from 0 to less than the hold time ({hold:g} s)")
    press = at - held
    table = make_table(config, start=0.0)
    engine = table.engine
    later = []
    if interrupted:
        if state.phase != IDLE:  # the restarted device, the button held on it
            restart(table, state, press)
    else:
        for event in events:
            if isinstance(event, End) or event.t > at:
                break
            if event.t <= press:
                engine.handle(event)  # an event at the press's own time came first
            else:
                later.append(event)  # the scenario goes on while the button is down
    table.feed([Edge(max(press, engine.now), button, True)], now=max(press, engine.now))
    for event in later:  # in time order with the press, which may count later (the floor's minimum press time)
        table.feed([], now=event.t)
        engine.handle(event)
    done = table.feed([], now=at)
    return done.state, done.holds


def waiting_state(state, hands: int):
    """``state`` as a table in hand-for-hand shows it once its hand is done (``--hand-for-hand HANDS``): the one
    way the table itself comes to it (:meth:`~shotclock.core.table.Table.restore_hand_for_hand`)."""
    from shotclock.core.handforhand import RP8_MINUTES, HandForHandState

    if state.phase != IDLE:
        raise ShotclockError(f"--hand-for-hand: a clock is {state.phase} at --at; a table waits for the floor "
                             "only between clocks")
    waiting = HandForHandState()
    if not waiting.restore({"on": True, "waiting": True, "hands": hands, "minutes": RP8_MINUTES}, state.now):
        raise ShotclockError(f"--hand-for-hand {hands}: HANDS must be a whole number from 0")
    return dataclasses.replace(state, hand_for_hand=waiting.view)


def cmd_screenshot(args) -> int:
    """Draw the screen at ``--at`` of ``--scenario`` into a PNG (the scenario's header, if any, gives the rules)."""
    from shotclock.adapters.screen import render_png
    from shotclock.shell.replaycmd import ReplayFile

    if Path(args.out).suffix.lower() not in IMAGE_TYPES:
        raise ShotclockError(f"{args.out}: the picture's name must end in {', '.join(IMAGE_TYPES)}")
    scenario = ReplayFile(args.scenario, args)
    config = scenario.config
    try:
        size = parse_size(args.size) if args.size else config.screen_size
    except ValueError as exc:
        raise ShotclockError(f"--size {exc}") from None
    faults = [parse_fault(f) for f in args.fault or ()]
    with scenario.named():
        events = list(scenario.events())  # the lines after --at must be valid too: a bad line is never passed over
        outputs = []
        state = state_at(events, config.settings, args.at, args.interrupted, outputs)
    scenario.close()
    holds = ()
    if args.hold:
        state, holds = held_screen(args.hold, events, config, args.at, state, args.interrupted)
    if args.hand_for_hand is not None:
        state = waiting_state(state, args.hand_for_hand)
    cue = ""
    if config.screen.visual_cues and not args.interrupted:  # the screen as it flashes at T
        cues = Cues()
        cues.take(outputs)
        cue = cues.lit(args.at)
    view = view_at(state, args.at, display_for(config), faults, holds, last_fold(outputs), cue)
    if args.network:
        view = dataclasses.replace(view, corner=network_mark(*parse_network(args.network), config.language))
    try:
        render_png(view, size, args.out)
    except Exception as exc:  # pygame.error on an unwritable path or unknown extension
        raise ShotclockError(f"cannot write {args.out}: {exc}") from None
    return 0
