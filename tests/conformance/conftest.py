"""The broker under test for the conformance suite: the venue's own (``SHOTCLOCK_BROKER_URL``) or Mosquitto
started here from ``broker-config`` output, single and bridged (a room broker for the tables, the venue broker
for the floor and the collector).

Environment (see docs/network.md, "Checking your own broker"):

* ``SHOTCLOCK_BROKER_URL``: ``mqtt://HOST[:PORT]`` (1883) or ``mqtts://HOST[:PORT]`` (8883). Unset: Mosquitto here.
* ``SHOTCLOCK_BROKER_CA``: the CA file for ``mqtts`` (default: the system's CAs).
* ``SHOTCLOCK_BROKER_VENUE``: the venue name in the topics (default ``conformance``).
* ``SHOTCLOCK_BROKER_CREDENTIALS``: a ``credentials/`` folder from ``broker-config``: takes ``table-1``,
  ``table-2``, ``floor`` and ``collector`` from it, unless the variables below name others.
* ``SHOTCLOCK_BROKER_TABLE_USER`` / ``_PASSWORD``, ``SHOTCLOCK_BROKER_TABLE2_USER`` / ``_PASSWORD`` (two tables;
  the table id is the user name after ``table-``, or ``SHOTCLOCK_BROKER_TABLE_ID`` / ``TABLE2_ID``),
  ``SHOTCLOCK_BROKER_FLOOR_USER`` / ``_PASSWORD``, ``SHOTCLOCK_BROKER_COLLECTOR_USER`` / ``_PASSWORD``.
"""

from __future__ import annotations

import os
import ssl
import threading
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROLES = ("table", "table2", "floor", "collector")
CONNECT_TIMEOUT = 30.0  # bounds a hang only


@dataclass
class Login:
    """Where and as whom one role connects."""

    host: str
    port: int
    username: str
    password: str
    tls: bool = False
    ca: str | None = None


class Target:
    """A broker (or a bridged pair) and a login per role: ``table`` and ``table2`` (two tables), ``floor``,
    ``collector``. The tables may be on another broker than the floor and the collector (bridged)."""

    def __init__(self, name: str, venue: str, logins: dict[str, Login], tables: dict[str, str],
                 external: bool = False):
        self.name, self.venue, self.logins, self.tables, self.external = name, venue, logins, tables, external
        self._clients: list = []

    def client(self, role: str, *, client_id: str | None = None, connect: bool = True, clean_start: bool = True,
               session_expiry: int | None = None, will: tuple[str, bytes] | None = None, password: str | None = None,
               anonymous: bool = False, on_message=None, refusal: bool = False):
        """A paho MQTT 5 client for ``role``, its network thread running; ``client.connack`` holds the CONNACK's
        reason code. ``client_id`` None: a fresh one under the role's usual prefix. A refused connection or none
        fails the test, naming it, unless ``refusal`` (the test expects one)."""
        import paho.mqtt.client as mqtt
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        from shotclock.adapters.mqtt_login import private_client_id

        login = self.logins[role]
        if client_id is None:
            prefix = (f"shotclock-{self.venue}-{self.tables[role]}" if role in self.tables
                      else f"shotclock-{role}-{self.venue}")
            client_id = f"{private_client_id(prefix, login.password)}-{uuid.uuid4().hex[:6]}"
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        if login.tls:
            c.tls_set(ca_certs=login.ca, cert_reqs=ssl.CERT_REQUIRED)
        if not anonymous:
            c.username_pw_set(login.username, login.password if password is None else password)
        if will:
            c.will_set(will[0], will[1], qos=1, retain=True)
        c.connack = None
        c.connected_event = threading.Event()
        c.disconnected = threading.Event()
        if on_message is not None:
            c.on_message = on_message

        def on_connect(client, userdata, flags, reason_code, properties):
            client.connack = reason_code
            client.connected_event.set()

        def on_disconnect(client, userdata, flags, reason_code, properties):
            client.disconnected.set()
            client.connected_event.set()  # a refused login may close without a CONNACK the caller can wait on

        c.on_connect, c.on_disconnect = on_connect, on_disconnect
        self._clients.append(c)
        properties = None
        if session_expiry is not None:
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = session_expiry
        if connect:
            c.connect(login.host, login.port, keepalive=30, clean_start=clean_start, properties=properties)
            c.loop_start()
            c.connected_event.wait(CONNECT_TIMEOUT)
            if not refusal and (c.connack is None or c.connack.is_failure):
                pytest.fail(f"the broker did not accept an MQTT 5 connection as {login.username!r} "
                            f"({c.connack or 'no CONNACK'})", pytrace=False)
        return c

    def close(self) -> None:
        for c in self._clients:
            try:
                c.disconnect()
                c.loop_stop()
            except Exception:
                pass
        self._clients.clear()


def _external() -> Target:
    """The venue's broker named by the environment (one clear failure naming what is missing)."""
    url = urlsplit(os.environ["SHOTCLOCK_BROKER_URL"])
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname:
        pytest.fail(f"SHOTCLOCK_BROKER_URL {os.environ['SHOTCLOCK_BROKER_URL']!r} must be mqtt://HOST[:PORT] "
                    "or mqtts://HOST[:PORT]")
    tls = url.scheme == "mqtts"
    port = url.port or (8883 if tls else 1883)
    folder = os.environ.get("SHOTCLOCK_BROKER_CREDENTIALS")
    defaults = {"table": "table-1", "table2": "table-2", "floor": "floor", "collector": "collector"}
    logins, tables, missing = {}, {}, []
    for role in ROLES:
        key = f"SHOTCLOCK_BROKER_{role.upper()}"
        user, password = os.environ.get(f"{key}_USER"), os.environ.get(f"{key}_PASSWORD")
        if folder and not (user and password):
            path = Path(folder) / f"{os.environ.get(f'{key}_USER', defaults[role])}.toml"
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                user, password = data["username"], data["password"]
            except (OSError, KeyError, tomllib.TOMLDecodeError):
                pass
        if not (user and password):
            missing.append(f"{key}_USER/_PASSWORD")
            continue
        logins[role] = Login(url.hostname, port, user, password, tls, os.environ.get("SHOTCLOCK_BROKER_CA"))
        if role.startswith("table"):
            tables[role] = os.environ.get(f"{key}_ID") or user.removeprefix("table-")
    if missing:
        pytest.fail("SHOTCLOCK_BROKER_URL is set, so the credentials are needed too: " + ", ".join(missing)
                    + " (or SHOTCLOCK_BROKER_CREDENTIALS=DIR, broker-config's credentials/ folder)")
    return Target(f"{url.scheme}://{url.hostname}:{port}", os.environ.get("SHOTCLOCK_BROKER_VENUE", "conformance"),
                  logins, tables, external=True)


def _local_logins(broker, roles) -> dict[str, Login]:
    users = {"table": "table-1", "table2": "table-2", "floor": "floor", "collector": "collector"}
    return {r: Login("127.0.0.1", broker.port, users[r], broker.passwords[users[r]]) for r in roles}


KINDS = ["external"] if os.environ.get("SHOTCLOCK_BROKER_URL") else ["mosquitto", "bridged"]


@pytest.fixture(scope="module", params=KINDS)
def target(request, tmp_path_factory):
    """The broker under test, one per module and kind."""
    if request.param == "external":
        t = _external()
        yield t
        t.close()
        return
    from mqtt_broker import MosquittoBroker, require_mosquitto

    require_mosquitto()
    folder = tmp_path_factory.mktemp(request.param)
    venue = "conformance"
    tables = {"table": "1", "table2": "2"}
    if request.param == "mosquitto":
        with MosquittoBroker(folder / "broker", venue=venue, tables=["1", "2"], websockets=False) as broker:
            t = Target("mosquitto", venue, _local_logins(broker, ROLES), tables)
            yield t
            t.close()
        return
    venue_broker = MosquittoBroker(folder / "venue", venue=venue, tables=["1", "2"], websockets=False)
    room = MosquittoBroker(folder / "room", venue=venue, tables=["1", "2"], websockets=False,
                           bridge_to=venue_broker, room="east")
    try:
        venue_broker.start()
        room.start()
        logins = {**_local_logins(room, ("table", "table2")), **_local_logins(venue_broker, ("floor", "collector"))}
        t = Target("mosquitto bridged", venue, logins, tables)
        _wait_bridged(t, venue_broker)
        yield t
        t.close()
    finally:
        room.close()
        venue_broker.close()


def _wait_bridged(target: Target, venue_broker) -> None:
    """Until the room's bridge is connected (its retained state on the venue broker says 1)."""
    from mqtt_broker import Inbox

    from shotclock.floor.broker_config import bridge_state_topic

    inbox = Inbox(target.client("floor"), bridge_state_topic(target.venue, "east"))
    if inbox.wait_for(lambda m: m.payload == b"1", timeout=60) is None:
        raise RuntimeError(f"the bridge did not connect:\n{venue_broker.log_text()}")
