"""The shell's subcommands of the command line (the floor's are in :mod:`shotclock.floor.commands`).

Each command names the function that runs it as ``"module:function"``; the module is imported
only when that command runs, so ``shotclock replay`` does not pay for pygame or gpiozero.
Arguments are checked here (types with ranges), so a mistake is a one-line usage error, exit 2.
"""

from __future__ import annotations

import argparse

from shotclock.shell.args import positive_int, seconds, shared_options, whole

def pin_factory(text: str) -> str:
    """An argparse type: a gpiozero pin factory name."""
    from shotclock.adapters.pins import FACTORIES

    names = ("auto", *FACTORIES)
    if text not in names:
        raise argparse.ArgumentTypeError(f"unknown pin factory {text!r} (choose from {', '.join(names)})")
    return text


def add_no_log(p) -> None:
    """--no-log, for the commands that run the device."""
    p.add_argument("--no-log", action="store_true", help="keep no decision log")


def replay(add) -> None:
    p = add("replay", "shotclock.shell.replaycmd:cmd_replay",
            "replay JSON Lines input events and print the output records; uses no real time")
    p.add_argument("file", nargs="?", metavar="FILE", help="input events (default: standard input)")


def config(add) -> None:
    p = add("config", "shotclock.shell.args:cmd_config",
            "print the default configuration with every key explained, or check a file", config=False)
    p.add_argument("--check", metavar="FILE", help="validate FILE and report every problem, also of the "
                                                   "[network] files it names")
    p.add_argument("--user", metavar="NAME", help="with --check: judge the files for this user (default: "
                                                  "shotclock, the service's user, where it exists)")


def simulate(add) -> None:
    p = add("simulate", "shotclock.shell.simulator:cmd_simulate",
            "the device on a desktop: its screen and a panel of the table's buttons", state_dir=True)
    p.add_argument("--terminal", action="store_true", help="use the terminal view even where a window could open")
    p.add_argument("--dealer-check", action="store_true",
                   help="the dealer check in a window: press A or space when the screen lights up, a dozen times")
    p.add_argument("--seating", metavar="FILE.csv",
                   help="seat and name the players at the start, from a seating export (seat,name a line; needs "
                        "[seats] track = true, as in docs/examples/tempo-bank.toml)")
    add_no_log(p)


def run(add) -> None:
    p = add("run", "shotclock.shell.runcmd:cmd_run", "run the table device: buttons, LEDs, screen and sound",
            state_dir=True)
    p.add_argument("--pins", default="auto", type=pin_factory, metavar="FACTORY",
                   help="gpiozero pin factory: auto (default, as on a Pi), mock (fake pins), lgpio, rpigpio, native")
    p.add_argument("--headless", action="store_true", help="no screen and no sound")
    p.add_argument("--offscreen", action="store_true",
                   help="draw the screen even on SDL's dummy/offscreen driver (benchmarks: the full device, no monitor)")
    p.add_argument("--script", metavar="FILE", help="play this script of presses onto the fake pins (with --pins mock)")
    p.add_argument("--report", metavar="FILE", help="write every input and output record here (with --script)")
    add_no_log(p)


def selftest(add) -> None:
    p = add("selftest", "shotclock.shell.selftest:cmd_selftest",
            "check config, pins, display, audio, power and backlight; one line each; exit 1 when a check fails")
    p.add_argument("--pins", default="auto", type=pin_factory, metavar="FACTORY",
                   help="gpiozero pin factory (default: auto)")
    p.add_argument("--sound", action="store_true",
                   help="also play the countdown through the speaker (sound.device, sound.volume), to hear it")
    p.add_argument("--dealer", action="store_true",
                   help="also the dealer check: a dozen cues at random moments, the dealer presses ACTION at each; "
                        "prints the reaction time's median and spread against the tie window")


def screenshot(add) -> None:
    p = add("screenshot", "shotclock.shell.screenshot:cmd_screenshot",
            "draw what the screen shows at time T of a replay scenario (no display needed)")
    p.add_argument("out", metavar="OUT.png", help="the PNG to write")
    p.add_argument("--scenario", required=True, metavar="EVENTS.jsonl", help="input events, as for 'shotclock replay'")
    p.add_argument("--at", required=True, type=seconds, metavar="T", help="the moment to draw (seconds)")
    p.add_argument("--size", metavar="WxH", help="screen size (default: the config's screen.size, 800x480)")
    p.add_argument("--fault", action="append", metavar="KIND[=DETAIL]",
                   help="also show a fault banner: stuck=BUTTON, no_sound, log=unavailable or "
                        "log=write_failed (repeatable)")
    p.add_argument("--interrupted", action="store_true",
                   help="draw the clock as after a power cut at T: restored paused, waiting for the floor")
    p.add_argument("--hold", metavar="BUTTON[=SECONDS]",
                   help="also show a button held down for SECONDS (default 1) at T, and what its hold will do")
    p.add_argument("--network", metavar="down[=N]|sending=N",
                   help="also draw the floor network's mark: the broker away (N records waiting), or catching up")
    p.add_argument("--hand-for-hand", type=whole, metavar="HANDS",
                   help="draw the table as in hand-for-hand at T, its hand done, waiting for the floor's release, "
                        "HANDS hand-for-hand hands released so far (no clock may be on at T)")


def log(add) -> None:
    p = add("log", "shotclock.shell.logcmd:cmd_log",
            "the decision log: list clocks (numbered 1, 2, 3...), show one, export, stats, verify", state_dir=True)
    p.add_argument("--limit", type=positive_int, default=20, help="how many recent clocks to list (default 20)")
    p.set_defaults(collected=None, table=None)
    archive_options(p)
    sub = p.add_subparsers(dest="log_command", metavar="[show|export|stats|ledger|replay|verify]")

    def add_sub(name, help_text):
        s = sub.add_parser(name, help=help_text, description=help_text)
        shared_options(s, state_dir=True)
        archive_options(s)
        return s

    s = add_sub("show", "one clock's full timeline")
    s.add_argument("id", type=positive_int, metavar="N", help="the clock's number, as 'shotclock log' lists it")
    e = add_sub("export", "export clocks (--csv), every record (--jsonl) or a clock's replay (--replay N)")
    how = e.add_mutually_exclusive_group(required=True)
    how.add_argument("--csv", action="store_true", help="one row per clock")
    how.add_argument("--jsonl", action="store_true", help="every record, one JSON object a line")
    how.add_argument("--replay", type=positive_int, metavar="N",
                     help="clock N's inputs in the 'shotclock replay' format, its settings in a first header line")
    e.add_argument("--config-out", metavar="FILE", help="with --replay: also write the session's configuration here")
    e.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    st = add_sub("stats", "clocks called, rulings by outcome, decision times, clocks per hour")
    st.add_argument("--json", action="store_true", help="as JSON")
    r = add_sub("replay", "a device run again from the raw pin edges in its log; --check compares with the log")
    r.add_argument("session", nargs="?", type=positive_int, help="the session's record id (default: the newest)")
    r.add_argument("--check", action="store_true", help="compare with what the log holds; exit 1 on a difference")
    r.add_argument("--all", action="store_true", help="with --check: every session of the log")
    lg = add_sub("ledger", "per seat and player: decisions, time used (median, p95, max), clocks called, "
                           "extensions, bank used, rulings against them (seat tracking); with --collected DIR and no "
                           "--table: the whole floor, by player name across tables")
    fmt = lg.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="as CSV")
    fmt.add_argument("--json", action="store_true", help="as JSON")
    lg.add_argument("--by-name", action="store_true", help="one line per named player, whatever the seat")
    v = add_sub("verify", "check the file and the hash chain; names the first record changed, removed or inserted; "
                          "exit 1 when the check fails")
    v.add_argument("--archive", metavar="FILE", help="verify an archive (archive/records-*.jsonl.gz) instead")


def archive_options(p) -> None:
    """--collected and --table, before or after the log subcommand's name."""
    p.add_argument("--collected", metavar="DIR|URL", default=argparse.SUPPRESS,
                   help="read the floor's archive in DIR, or its postgresql:// database (from 'shotclock floor "
                        "collect'), instead of this device's log")
    p.add_argument("--table", metavar="ID", default=argparse.SUPPRESS, help="with --collected: the table to read")
    p.add_argument("--venue", metavar="NAME", default=argparse.SUPPRESS,
                   help="with --collected: that venue's tables only (a tour's database holds several venues')")


def seating(add) -> None:
    p = add("seating", "shotclock.shell.seatingcmd:cmd_seating",
            "check a seating export (seat,name a line) and print it as the 'seating' event or floor command")
    p.add_argument("file", metavar="FILE.csv", help="the tournament program's seating export: seat,name a line")
    p.add_argument("--at", type=seconds, default=0, metavar="T", help="the event's time (default 0)")
    p.add_argument("--command", action="store_true",
                   help="print the floor command's fields (docs/network.md) instead of a replay event")
    p.add_argument("--encoding", default="utf-8", metavar="NAME",
                   help="the file's encoding (default utf-8; an export from an older program: cp1252 or latin-1)")


def structure(add) -> None:
    p = add("structure", "shotclock.shell.structurecmd:cmd_structure",
            "read a tournament's structure (levels, breaks) from TD's .tdt, a CSV or TOML, check it and print it; "
            "exit 2 naming the file, the line or level and the field", config=False)
    p.add_argument("file", metavar="FILE", help="the structure: The Tournament Director's saved tournament (.tdt), its "
                   "rounds export or a plain small_blind,big_blind,ante,minutes,break CSV (.csv), or TOML (.toml); "
                   "docs/structure.md")
    p.add_argument("--encoding", metavar="NAME", help="the file's encoding (default: UTF-8, else Windows-1252 for a "
                   ".tdt or CSV, as older TD files are)")
    p.add_argument("--json", action="store_true", help="print the structure as JSON")


def firstboot(add) -> None:
    p = add("firstboot", "shotclock.shell.firstboot:cmd_firstboot",
            "take this table's first-boot file from the boot partition into /etc/shotclock (as root, at boot; "
            "shotclock-firstboot.service runs it)", config=False)
    p.add_argument("--root", default="/", metavar="DIR", help="the system's root (default /; tests use a folder)")


REGISTER: list = [replay, config, simulate, run, selftest, screenshot, log, seating, structure, firstboot]
