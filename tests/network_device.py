"""Helpers to run a real table device (fake pins, real time, real MQTT link) against the test broker."""

from __future__ import annotations

import json
import os
import threading
import time

from shotclock.adapters.log import lock_state_dir
from shotclock.config.loading import parse_config
from shotclock.shell.device import build_device


def network_config(broker, table="1", extra="", mode="clock") -> str:
    """A device configuration for ``broker``'s loopback listener as table ``table``."""
    return (f'mode = "{mode}"\ntable = "Tafel {table}"\n{extra}\n[network]\nenabled = true\nhost = "127.0.0.1"\n'
            f'port = {broker.port}\ntls = false\nvenue = "{broker.venue}"\ntable_id = "{table}"\n'
            f'credentials = "{broker.credentials_file("table-" + table)}"\nkeepalive = 2\n')


class RunningDevice:
    """A :class:`Device` whose loop runs in a thread (signals belong to the test's main thread)."""

    def __init__(self, config_text: str, state_dir):
        self.config = parse_config(config_text)
        self.state_dir = state_dir
        self._stop = False
        self._ready = threading.Event()
        self._error = None
        # The loop runs in this thread: build the device in it too.
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self._ready.wait(60) or self._error:
            raise RuntimeError(f"the device did not start: {self._error}")

    def _run(self):
        try:
            self.device = build_device(self.config, "mock", log_dir=self.state_dir)
        except Exception as exc:
            self._error = exc
            self._ready.set()
            raise
        self._ready.set()
        try:
            self.device.loop.run(lambda round: self._stop)
        finally:
            self.device.close()  # the link goes offline cleanly, the log writer finishes, the pins are released

    @property
    def link(self):
        return self.device.link

    def tap(self, button: str, hold: float = 0.05) -> None:
        """Press and release a fake button (pulled up: low is pressed)."""
        pin = self.device.pins.pin(button)
        pin.drive_low()
        time.sleep(hold)
        pin.drive_high()

    def stop(self) -> None:
        """Stop the loop, then the link (a clean offline), then the pins; return once the log writer
        (a process of its own, which may still be writing on a loaded machine) has finished."""
        self._stop = True
        self.device.loop.waker.wake()
        self.thread.join(60)
        if self.thread.is_alive():
            raise RuntimeError("the device did not stop within 60 s")
        if self.state_dir is not None:
            os.close(lock_state_dir(self.state_dir, wait=60))  # the writer holds the lock until it is done


def payloads(inbox, leaf: str) -> list[dict]:
    """The JSON payloads an inbox got on topics ending in ``leaf``."""
    return [json.loads(m.payload) for m in list(inbox.messages) if m.topic.endswith("/" + leaf)]
