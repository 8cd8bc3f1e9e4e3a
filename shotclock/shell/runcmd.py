"""``shotclock run``: the table device (the screen and sound, or ``--headless``), or with ``--script`` a timed
bench run of presses on fake pins, with ``--report``."""

from __future__ import annotations

import time

from shotclock.core.engine import RUNNING
from shotclock.errors import HardwareError, ShotclockError
from shotclock.input_files import read_input_text
from shotclock.shell.args import log_dir_for, load_for
from shotclock.shell.device import build_device


def cmd_run(args) -> int:
    """``shotclock run``: the device (or, with --script, a timed bench run on fake pins)."""
    config = load_for(args)
    if args.script and args.pins != "mock":
        raise ShotclockError("--script plays presses onto fake pins: use it with --pins mock")
    if args.report and not args.script:
        raise ShotclockError("--report goes with --script")
    if args.report:
        from shotclock.adapters.log import DB_NAME
        from shotclock.shell.files import refuse_overwrite

        log_dir = log_dir_for(args)
        refuse_overwrite("--report", args.report, {"the decision log": log_dir and log_dir / DB_NAME,
                                                   "the script": args.script, "the configuration": args.config})
    parts = {}
    if not args.headless:
        from shotclock.shell.presenters import build_presenters

        try:
            presenters = build_presenters(config, fullscreen=config.screen.fullscreen and not args.offscreen,
                                          allow_nowhere=args.offscreen)
        except HardwareError as exc:
            raise HardwareError(f"{exc}; or run with --headless (no screen, no sound)") from None
        parts = presenters.parts()
        if not args.offscreen and not args.script:
            from shotclock.adapters.backlight import set_brightness

            set_brightness(config.screen.brightness)  # where the display has a backlight; logged
    if args.script:
        return _run_script(args, config, parts)
    device = build_device(config, args.pins, log_dir=log_dir_for(args), **parts)
    device.run()
    return 0


SCRIPT_MAX = 16_000_000  # bytes of a script of presses (``run --script``)


def _run_script(args, config, parts) -> int:
    from shotclock.shell.script import ReportWriter, ScriptPlayer, edge_schedule, parse_script

    # A pipe too, but never without end (/dev/zero): a day of the feature table's presses is 0.2 MB.
    text = read_input_text(args.script, SCRIPT_MAX, "script of presses", streams=True)
    try:
        edges = edge_schedule(parse_script(text))
    except ShotclockError as exc:
        raise ShotclockError(f"{args.script}: {exc}") from None
    report = ReportWriter(args.report) if args.report else None  # an unwritable report fails before the device starts
    device = build_device(config, "mock", log_dir=log_dir_for(args), extra=[report] if report else [], **parts)
    start = time.monotonic() + 0.05  # a moment for the player thread to start
    if report:
        report.start = start
    player = ScriptPlayer(edges, device.pins, start, device.loop.waker.wake)
    player.start()

    def finished(round) -> bool:
        return (player.done and not device.loop.has_pending_inputs and round.state.phase != RUNNING
                and device.reader.next_wake() is None)

    device.run(finished)
    return 0
