"""The appliance test's read-only-root checks, run inside the VM as root (``vmtest.py --read-only``).

Usage: python3 readonly.py OUT_DIR readonly|afterreset|afterfloor

The root is Raspberry Pi OS's overlay file system (overlayroot, ``overlayroot=tmpfs`` on the kernel
command line) and the decision log has a partition of its own (``install.sh --data-partition``).

* ``readonly``: the service runs, a ruling is logged, a marker is written to the root, then a clock is
  called and, while it runs, the host is asked for a hard reset (``reset.request``): it kills QEMU with
  SIGKILL, a power cut with nothing flushed or shut down.
* ``afterreset``: the next boot. The marker is gone (nothing written to the root survives), the log on its
  partition verifies (``shotclock log verify``: SQLite's integrity check and the hash chain), the ruling made
  before the reset is there, and the clock cut off by the reset comes back paused with its time
  (an ``interrupted`` record, ``cause="power_cut"``, never less time than it had). Then the host, as the floor,
  sends seat commands over the network (``shotclock send`` through the broker on the host: the restored clock
  cancelled, seat 4 emptied, a player seated there with a bank, a top-up of every bank) and kills QEMU the
  moment the top-up's ack reaches it (``floor.request``; its acks in ``floor.json``).
* ``afterfloor``: the boot after that cut. The log verifies, every command the floor was acked and every
  output its ack named is in the log, and the table comes back with the player's name and every topped-up bank
  (``seats_restored``).

Writes OUT_DIR/results-PHASE.json (checks and figures) and, before the reset, OUT_DIR/reset.json.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import checks as c  # noqa: E402  (the same helpers: gpio-sim presses, the log, the unit's state)

OUT = Path(sys.argv[1])
PHASE = sys.argv[2]
MARKER = Path("/shotclock-vmtest-marker")
STATE = "/var/lib/shotclock"
DATA = next((a.split("=", 1)[1] for a in Path("/proc/cmdline").read_text().split() if a.startswith("shotclock.data=")),
            "/dev/vdb")


def findmnt(target: str) -> dict:
    out = subprocess.run(["findmnt", "-n", "-J", "-o", "SOURCE,FSTYPE,OPTIONS", "--mountpoint", target],
                         capture_output=True, text=True)
    try:
        return json.loads(out.stdout)["filesystems"][0]
    except (ValueError, KeyError, IndexError):
        return {}


def check_mounts() -> None:
    root, lower, log = findmnt("/"), findmnt("/media/root-ro"), findmnt(STATE)
    c.check("the root is overlayroot's overlay on a read-only lower root",
            root.get("fstype") == "overlay" and "ro" in lower.get("options", "").split(","),
            f"/: {json.dumps(root)}; /media/root-ro: {json.dumps(lower)}")
    source = os.path.realpath(log.get("source", "")) if log.get("source", "").startswith("/") else log.get("source")
    c.check("the log's partition is mounted read-write at /var/lib/shotclock (not overlaid)",
            log.get("fstype") == "ext4" and source == os.path.realpath(DATA)
            and "rw" in log.get("options", "").split(","), json.dumps(log))


def verify_log(after: str = "after the hard reset") -> None:
    proc = subprocess.run(["runuser", "-u", "shotclock", "--", c.SHOTCLOCK, "log", "--config",
                           "/etc/shotclock/config.toml", "--state-dir", STATE, "verify"],
                          capture_output=True, text=True, timeout=300)
    c.check(f"the log on its partition verifies {after}", proc.returncode == 0 and "OK" in proc.stdout,
            f"exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()}")


def write_results() -> None:
    (OUT / f"results-{PHASE}.json").write_text(json.dumps({"checks": c.results, "figures": c.figures}, indent=2))


def before_reset() -> None:
    u = c.wait_active(240)
    if not c.check("service READY with the root read-only", u is not None, json.dumps(u or c.unit())):
        return
    c.figures["boot_to_ready_s"] = round(int(u["ActiveEnterTimestampMonotonic"]) / 1e6, 2)
    check_mounts()
    with open(MARKER, "w") as f:  # written and flushed to the root, as a program that syncs would
        f.write("written before the hard reset\n")
        f.flush()
        os.fsync(f.fileno())
    c.check("the root takes writes (into the overlay's RAM)", MARKER.exists(), str(MARKER))

    # A ruling, logged on the partition: it must be there after the reset.
    called = c.call_clock("ruling")
    if called is None:
        return
    mark, _ = called
    time.sleep(1.0)
    c.press("action")
    decision, _ = c.wait_record(mark, "decision", 10)
    if not c.check("a ruling is logged with the root read-only", decision is not None
                   and decision.get("outcome") == "acted", json.dumps(decision)):
        return

    # A clock running when the power goes.
    called = c.call_clock("running clock")
    if called is None:
        return
    mark, _ = called
    start = [r for r in c.records_after(mark) if r["type"] == "start"][0]
    whole = start.get("seconds", c.SECONDS)  # the clock's whole length, as its start says it
    zero = start["t"] + whole
    time.sleep(max(0.0, start["t"] + 1.5 - time.monotonic()))
    remaining = zero - time.monotonic()
    reset = {"decision_id": decision["id"], "clock": start["clock"], "remaining_at_request": round(remaining, 3),
             "seconds": whole}
    (OUT / "reset.json").write_text(json.dumps(reset))
    c.figures["remaining_at_reset_request_s"] = round(remaining, 3)
    c.say(f"asking the host for a hard reset with {remaining:.2f} s left on the clock")
    subprocess.run(["journalctl", "-b", "--no-pager", "-o", "short-monotonic"],
                   stdout=open(OUT / "journal-readonly.txt", "w"), stderr=subprocess.STDOUT)
    write_results()
    (OUT / "reset.request").write_text(str(time.monotonic()))
    time.sleep(300)  # the host kills the VM now
    c.check("the host reset the VM", False, "still running 300 s after asking")


def after_reset() -> None:
    u = c.wait_active(240)
    if not c.check("service READY again after the hard reset", u is not None, json.dumps(u or c.unit())):
        return
    c.figures["boot_to_ready_s"] = round(int(u["ActiveEnterTimestampMonotonic"]) / 1e6, 2)
    c.check("nothing written to the root survived the reset", not MARKER.exists(), f"{MARKER} exists: {MARKER.exists()}")
    check_mounts()
    verify_log()
    reset = json.loads((OUT / "reset.json").read_text())
    records = c.records_after(0)
    c.check("the ruling made before the reset is in the log",
            any(r["id"] == reset["decision_id"] and r["type"] == "decision" for r in records),
            f"decision record {reset['decision_id']}")
    told = c.wait_message(0, "was interrupted")
    interrupted = [r for r in records if r["type"] == "interrupted" and r.get("clock") == reset["clock"]]
    rec = interrupted[-1] if interrupted else None
    ok = (rec is not None and rec.get("cause") == "power_cut" and bool(told)
          and reset["remaining_at_request"] - 0.05 <= rec.get("remaining", -1) <= reset["seconds"] + 0.05
          and not any(r["type"] == "decision" and r.get("clock") == reset["clock"] for r in records))
    line = told[0] if told else "no 'was interrupted' line"
    c.check("the clock running at the reset comes back paused with its time (never less)", ok,
            f"{json.dumps(rec)}; {line}; {reset['remaining_at_request']} s left when the reset was asked for")
    if rec is not None:
        c.figures["restored_remaining_s"] = rec.get("remaining")
    time.sleep(4)  # its first frame, drawn in software under emulation
    c.screendump("after-reset")
    ask_for_floor_power_cut()


def ask_for_floor_power_cut() -> None:
    """The host sends the floor's commands (the restored clock cancelled, a seat emptied, a player seated with a
    bank, a top-up) and cuts the power the moment the top-up's ack reaches it."""
    c.say("asking the host for the floor's commands and a power cut right after the last ack")
    subprocess.run(["journalctl", "-b", "--no-pager", "-o", "short-monotonic"],
                   stdout=open(OUT / "journal-afterreset.txt", "w"), stderr=subprocess.STDOUT)
    write_results()
    (OUT / "floor.request").write_text(str(time.monotonic()))
    time.sleep(600)  # the host cuts the power now (its first command waits for the table to be on the network)
    c.check("the host cut the power after the floor's commands", False, "still running 600 s after asking")


def log_rows() -> list[tuple[int, str, dict]]:
    """Every record as (id, type, its own fields): a command's fields keep their own ``id`` (the floor's)."""
    db = sqlite3.connect(f"file:{c.DB}?mode=ro", uri=True, timeout=5)
    try:
        return [(rid, kind, json.loads(data)) for rid, kind, data in
                db.execute("SELECT id, type, data FROM records ORDER BY id")]
    finally:
        db.close()


def acked_in_log(acks: list[dict], rows: list[tuple[int, str, dict]]) -> list[str]:
    """What the floor was told is done but the log does not hold: each acked command (by the floor's id) and each
    output its ack names (its type and fields), after that command's record."""
    missing = []
    for ack in acks:
        command = next((rid for rid, kind, data in rows if kind == "command" and data.get("id") == ack["id"]), None)
        if command is None:
            missing.append(f"the {ack['name']} command {ack['id']}")
            continue
        for out in ack.get("outputs") or []:
            fields = {k: v for k, v in out.items() if k not in ("t", "type")}
            if not any(rid > command and kind == out["type"] and all(data.get(k) == v for k, v in fields.items())
                       for rid, kind, data in rows):
                missing.append(f"{ack['name']}'s {out['type']} {json.dumps(fields, ensure_ascii=False)}")
    return missing


def after_floor() -> None:
    """The boot after the power cut that followed the floor's acks: every acked seat, name and bank is there."""
    u = c.wait_active(240)
    if not c.check("service READY again after the power cut that followed the floor's acks", u is not None,
                   json.dumps(u or c.unit())):
        return
    c.figures["boot_to_ready_s"] = round(int(u["ActiveEnterTimestampMonotonic"]) / 1e6, 2)
    verify_log("after the power cut that followed the floor's acks")
    floor = json.loads((OUT / "floor.json").read_text(encoding="utf-8"))
    acks = floor["acks"]
    records = c.records_after(0)
    missing = acked_in_log(acks, log_rows())
    c.check("every floor command acked before the cut, and what it did, is in the log", not missing and len(acks) == 3,
            "; ".join(missing) or f"{len(acks)} acks: " + ", ".join(a["name"] for a in acks))
    seated = next(o for o in acks[1]["outputs"] if o["type"] == "seat")
    top_up = next(o for o in acks[2]["outputs"] if o["type"] == "top_up")
    seat = str(seated["seat"])
    top_up_id = max(r["id"] for r in records if r["type"] == "top_up")
    before = [r for r in records if r["type"] in ("seats", "seats_restored") and r["id"] < top_up_id][-1]
    told = c.wait_message(int(u["ExecMainStartTimestampMonotonic"]), "seats restored from the log")
    restored = [r for r in records if r["type"] == "seats_restored" and r["id"] > top_up_id]
    rec = restored[-1] if restored else {}
    banks, players = rec.get("banks") or {}, rec.get("players") or {}
    expected = {s: round(b + top_up["seconds"], 6) for s, b in (before.get("banks") or {}).items() if s != seat}
    expected[seat] = round(seated["bank"] + top_up["seconds"], 6)
    got = {s: round(b, 6) for s, b in banks.items()}
    c.check("the table comes back with the seated player's name and every topped-up bank",
            players.get(seat) == seated["name"] and got == expected and bool(told),
            f"seat {seat}: {players.get(seat)!r} (acked {seated['name']!r}); banks {json.dumps(got)}, expected "
            f"{json.dumps(expected)}; {told[0] if told else 'no seats-restored line'}")
    c.figures["restored_bank_s"] = got.get(seat)


def main() -> int:
    try:
        {"readonly": before_reset, "afterreset": after_reset, "afterfloor": after_floor}[PHASE]()
    except Exception as exc:  # a broken check must still leave its results
        c.check("read-only checks ran to the end", False, f"{type(exc).__name__}: {exc}")
    write_results()
    return 0 if c.results and all(r["ok"] for r in c.results) else 1


if __name__ == "__main__":
    sys.exit(main())
