"""Shared fixtures: headless SDL, fake pins, and helpers to drive the core."""

import os

# Headless for every test: no window, no sound card (set before pygame is imported).
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import time

import pytest

from shotclock.core.events import EVENT_TYPES
from shotclock.core.replay import replay
from shotclock.core.settings import ClockSettings, Settings, ShotSettings


def ev(t, name, /, **fields):
    """An input event by name, as a replay line would give it."""
    return EVENT_TYPES[name](t, **fields)


def run(events, settings=None):
    """Replay ``events`` (tuples ``(t, name, fields…)`` or Event objects); return the records."""
    settings = settings or Settings()
    built = [e if not isinstance(e, tuple) else ev(e[0], e[1], **(e[2] if len(e) > 2 else {})) for e in events]
    return [o.record() for o in replay(built, settings)]


@pytest.fixture(autouse=True)
def one_plugin_build(monkeypatch):
    """``broker-config`` (and the demo floor) called in-process copy the client-id plugin built once per run
    instead of running the compiler each time (tests/mqtt_broker.py); a broker-config subprocess builds it."""
    from mqtt_broker import copy_of_plugin

    monkeypatch.setattr("shotclock.floor.broker_config.build_plugin", copy_of_plugin)
    monkeypatch.setattr("shotclock.floor.demo.build_plugin", copy_of_plugin)


@pytest.fixture
def shot():
    """Shot-clock settings with distinct street times, to tell them apart."""
    return Settings(mode="shot", shot=ShotSettings(preflop=15, flop=20, turn=25, river=30, extension=30))


@pytest.fixture
def clock():
    """Rule 29 defaults: 30 s, 5 s countdown, 0.5 s tie window."""
    return Settings(mode="clock", clock=ClockSettings())


@pytest.fixture
def mock_factory():
    """The fake pins the device itself makes for ``--pins mock`` (shotclock's FakePinFactory, on the
    real monotonic clock until ``vclock`` swaps it), also gpiozero's default factory; reset afterwards.
    Pass it to ``Device``/``Simulator`` as the pin factory: tests drive the very pins the device reads."""
    from gpiozero import Device

    from shotclock.adapters.pins import make_pin_factory

    previous = Device.pin_factory
    Device.pin_factory = factory = make_pin_factory("mock")
    yield factory
    factory.reset()
    Device.pin_factory = previous


class VirtualClock:
    """A monotonic clock that only moves when a test moves it."""

    def __init__(self):
        self.now = time.monotonic()

    def __call__(self):
        return self.now


@pytest.fixture
def vclock(mock_factory):
    """Virtual time, for the fake pins too: ``mock_factory`` stamps its edges with this clock."""
    clock = VirtualClock()
    mock_factory.clock = clock
    return clock


@pytest.fixture
def broker(tmp_path):
    """A real mosquitto on free loopback ports, configured by ``shotclock broker-config``
    (venue ``test``, tables ``1`` and ``2``), stopped afterwards. See tests/mqtt_broker.py."""
    from mqtt_broker import MosquittoBroker

    with MosquittoBroker(tmp_path / "broker", venue="test", tables=["1", "2"]) as b:
        yield b


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server (Debian's) for the whole run, its cluster in a temporary folder; see
    tests/postgres_server.py. A test that kills it starts it again."""
    from postgres_server import PostgresServer, require_postgres

    require_postgres()
    with PostgresServer() as server:
        yield server


@pytest.fixture
def postgres(postgres_server):
    """A new empty database of its own on the run's PostgreSQL server: its ``postgresql://`` URL."""
    if not postgres_server.running:  # a test before this one killed it
        postgres_server.start()
    return postgres_server.database()


@pytest.fixture(params=["sqlite", "postgresql"])
def archive_spec(request, tmp_path):
    """Where an archive goes, in each store: a folder (SQLite), then a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "archive")
    return request.getfixturevalue("postgres")


@pytest.fixture(scope="session")
def web():
    """One headless Debian chromium (Playwright) for the session's browser tests; see tests/web_browser.py."""
    from web_browser import Browser, require_chromium

    require_chromium()
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for localhost and 127.0.0.1, as a floor laptop would make one (TLS tests)."""
    import shutil
    import subprocess

    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed (./dev installs it as root)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)
