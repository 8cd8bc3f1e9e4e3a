"""The read-only run's floor network: a Mosquitto on the host, and a power cut right after a floor command's ack.

The broker is the project's own (``shotclock broker-config``: passwords, ACLs, the client-id plugin built on the
host (``./dev`` installs what builds it) with the table's binding, a TLS listener with a CA made for the run). It listens on the host's loopback only; the
VM's table reaches it through QEMU's user networking, where the host is ``10.0.2.2`` (QEMU maps that address to
the host's 127.0.0.1). The table is provisioned as a venue does it (``shotclock provision``: a first-boot file
with the broker, the credential and the CA). The floor's commands are sent from the host with
``shotclock send``, and the moment the last one's ack is read QEMU is killed (:func:`send_then_cut`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

GUEST_HOST = "10.0.2.2"  # the host, as QEMU's user networking shows it to the guest
VENUE = "vmtest"
TABLE = "1"
NIC = ["-nic", "user,model=virtio-net-pci"]  # QEMU's user networking: the guest reaches the host's loopback


def free_port() -> int:
    """A TCP port free on the host's loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shotclock(*args: str) -> list[str]:
    """The host's shotclock command line (this checkout's, in the venv ./dev made)."""
    return [sys.executable, "-m", "shotclock", *args]


class FloorBroker:
    """The venue's broker for the VM's table: configured, provisioned, started and stopped on the host.

    :param folder: where broker-config writes (mosquitto.conf, credentials/, tls/) and the first-boot card goes.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.local = free_port()  # plain, loopback: the floor's tools on the host
        self.tls = free_port()  # TLS: the table, through QEMU's user networking
        self.process: subprocess.Popen | None = None

    def configure(self, template: Path) -> Path:
        """Write the broker's configuration and the table's first-boot file (its keys from ``template``,
        the table's configuration); returns the first-boot file."""
        broker = self.folder / "broker"
        self._run(shotclock("broker-config", str(broker), "--venue", VENUE, "--tables", TABLE,
                            "--local", f"127.0.0.1:{self.local}", "--listen", f"127.0.0.1:{self.tls}",
                            "--make-certs", GUEST_HOST, "--websockets", "none", "--no-pages",
                            "--run-as", "root" if os.geteuid() == 0 else os.environ.get("USER", "root")))
        self._run(shotclock("provision", str(self.folder / "cards"), "--broker-dir", str(broker), "--venue", VENUE,
                            "--tables", TABLE, "--broker", f"{GUEST_HOST}:{self.tls}", "--names", "VM {id}",
                            "--keep-hostname", "--template", str(template)))
        return self.folder / "cards" / TABLE / "shotclock-firstboot.toml"

    def start(self, timeout: float = 30) -> None:
        """Start mosquitto and wait until both listeners take connections."""
        binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
        if binary is None:
            raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
        log = open(self.folder / "mosquitto.log", "ab")
        self.process = subprocess.Popen([binary, "-c", str(self.folder / "broker" / "mosquitto.conf")],
                                        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        end = time.monotonic() + timeout
        while not all(_open(p) for p in (self.local, self.tls)):
            if self.process.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"mosquitto did not start (see {self.folder / 'mosquitto.log'})")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def send(self, *command: str, wait: float = 20) -> list[str]:
        """``shotclock send`` of one command to the table, its ack printed as JSON."""
        return shotclock("send", "--broker", f"127.0.0.1:{self.local}", "--venue", VENUE, "--credentials",
                         str(self.folder / "broker" / "credentials" / "floor.toml"), "--table", TABLE, "--json",
                         "--wait", f"{wait:g}", *command)

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[2:4])} failed: {(done.stdout + done.stderr).strip()[-2000:]}")


def _open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def start_send(argv: list[str]) -> subprocess.Popen:
    """One ``shotclock send --json``, its output unbuffered: the ack's line can be read the moment it is printed."""
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))


def read_ack(proc: subprocess.Popen) -> tuple[dict | None, str]:
    """(the ack, the line it came on) as soon as ``proc`` prints it, without waiting for the process to end (its
    exit takes another tenth of a second on a busy host); (None, the line) when it printed no ack."""
    line = proc.stdout.readline()  # the ack (send prints it when it has it), or "" when it ends without one
    try:
        ack = json.loads(line) if line.strip() else None
    except ValueError:
        ack = None
    return (ack if isinstance(ack, dict) else None), line.strip()


def reap(proc: subprocess.Popen, timeout: float = 60) -> str:
    """Wait for ``proc`` to end; what it wrote on its standard error."""
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err.strip()


def send_then_cut(commands: list[tuple[str, list[str]]], cut, probe: list[str] | None = None,
                  probe_for: float = 180, clock=time.monotonic) -> dict:
    """Send ``commands`` (each a name and a ``shotclock send --json`` command line) one after another, each once
    the one before was acked, and call ``cut()`` (the power cut) the moment the last ack is read.

    ``probe``: a command sent first, again and again for up to ``probe_for`` seconds until the table answers at
    all (done or ignored: it proves the table is on the network). Returns ``{"acks": [...], "cut": bool,
    "ack_to_cut_ms": ..., "problem": ...}``; nothing is cut when a command is not done (the problem says which).
    """
    out: dict = {"acks": [], "cut": False, "problem": ""}
    if probe is not None:
        end = clock() + probe_for
        while True:
            proc = start_send(probe)
            ack, said = read_ack(proc)
            err = reap(proc)
            if ack is not None:
                out["probe"] = ack
                break
            if clock() > end:
                out["problem"] = f"the table never answered in {probe_for:.0f} s: {said or err}"
                return out
    for index, (name, argv) in enumerate(commands):
        proc = start_send(argv)
        ack, said = read_ack(proc)
        acked = clock()
        done = ack is not None and ack.get("outcome") == "done"
        if done and index == len(commands) - 1:
            cut()  # before anything else: the ack is read, the power goes
            out["cut"] = True
            out["ack_to_cut_ms"] = round((clock() - acked) * 1000, 1)
        err = reap(proc)
        if not done:
            out["problem"] = f"{name}: {json.dumps(ack, ensure_ascii=False) if ack else said or err or 'no ack'}"
            return out
        out["acks"].append(ack)
    return out
