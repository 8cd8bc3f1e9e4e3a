"""The tournament clock's process for the tests: ``shotclock tournament run`` in a process of its own, started and
killed as a floor machine would be, and the newest state it published."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from helpers import wait_until
from shotclock.core.topics import tournament_topic
from shotclock.core.tournament_state import TournamentState, tournament_state_of


# A small structure in the clock's own TOML: a level, a dinner break, a level.
SUNDAY = """title = "Sunday 250"
[[stage]]
small_blind = 25
big_blind = 50
minutes = 20
[[stage]]
break = true
name = "dinner"
minutes = 30
[[stage]]
small_blind = 50
big_blind = 100
minutes = 20
"""


class Clock:
    """``shotclock tournament run`` as a process of its own, started and killed as a floor machine would be."""

    def __init__(self, broker, folder, venue: str = "test"):
        self.broker, self.folder, self.process, self.venue = broker, folder, None, venue
        self.journal = folder / "main.journal"

    def start(self, *extra: str, scope=("--room", "Main")) -> None:
        args = [sys.executable, "-m", "shotclock", "tournament", "run", "--broker", f"127.0.0.1:{self.broker.port}",
                "--venue", self.venue, "--credentials", str(self.broker.credentials_file("floor")), "--id", "main",
                "--journal", str(self.journal), *scope, *extra]
        self.log = open(self.folder / "clock.log", "ab")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=dict(os.environ, PYTHONUNBUFFERED="1"))

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)


def latest(inbox, after: float = 0.0, where=lambda s: True) -> TournamentState:
    """The newest state received (waiting for one made after wall time ``after`` that ``where`` likes)."""
    topic = tournament_topic("test", "main", "state")

    def found():
        states = [tournament_state_of(m.payload) for m in inbox.messages if m.topic == topic and m.payload]
        states = [s for s in states if isinstance(s, TournamentState) and s.at_ms >= after * 1000 and where(s)]
        return max(states, key=lambda s: s.seq) if states else None

    return wait_until(found, what="the clock's state")


def remaining_now(state: TournamentState) -> float:
    """The stage's time left now (seconds), as a reader counts it down from the message's own time."""
    return state.remaining - ((time.time() * 1000 - state.at_ms) / 1000 if state.running else 0.0)
