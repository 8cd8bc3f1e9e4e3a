"""Who a table is on the floor network and how it proves it: its boot id, its login (a credentials file), the
TLS context it trusts, a client id only its password can name (paho-mqtt's side is :mod:`shotclock.adapters.mqtt`)."""

from __future__ import annotations

import hashlib
import socket
import ssl
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

from shotclock.errors import ShotclockError
from shotclock.input_files import read_input_text


def new_boot_id() -> str:
    """A random 12-hex-digit id for this run of the device."""
    return uuid.uuid4().hex[:12]


def no_delay(client, userdata, sock) -> None:
    """paho's ``on_socket_open``: turn Nagle's algorithm off, so a small event leaves at once
    (with it on, a message waits up to ~40 ms for the previous one's TCP ACK)."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # not TCP (a unix socket), or a websocket wrapper
        pass


def private_client_id(prefix: str, password: str) -> str:
    """A client id only the holder of ``password`` can know: ``prefix`` and 16 hex digits derived from it.

    MQTT gives a session to whoever connects last with its client id, and Mosquitto 2.0's password
    file cannot tie a client id to a user: a credential that could name another's client id could take
    its session (and knock it offline). Derived from the password, no other credential can name it.

        >>> private_client_id("shotclock-casino-7", "s3cret")
        'shotclock-casino-7-d80b33ee399f3bcb'
    """
    digest = hashlib.sha256(b"shotclock client id\0" + password.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}-{digest[:16]}"


def read_credentials(path: str | Path) -> tuple[str, str]:
    """(username, password) from a credentials file written by ``shotclock broker-config``."""
    text = read_input_text(path, what="credentials file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(data.get("username"), str) or not isinstance(data.get("password"), str):
        raise ShotclockError(f"{path}: needs 'username' and 'password' strings")
    return data["username"], data["password"]


class LoginProblem(Exception):
    """A mistake on the device's side that no wait mends: the credentials file or the CA file.

    :param kind: ``credentials`` or ``tls`` (the screen's words for it).
    :param detail: one line naming the file and what is wrong.
    """

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def tls_context(ca_file: str) -> ssl.SSLContext:
    """The TLS context that trusts ``ca_file`` (PEM; empty: the system's CAs). Raises :class:`LoginProblem`."""
    try:
        return ssl.create_default_context(cafile=ca_file or None)
    except (ssl.SSLError, ValueError) as exc:  # first: an SSLError is an OSError too
        raise LoginProblem("tls", f"the CA file {ca_file} holds no PEM certificate ({exc})") from None
    except FileNotFoundError:
        raise LoginProblem("tls", f"the CA file {ca_file} does not exist") from None
    except OSError as exc:
        raise LoginProblem("tls", f"cannot read the CA file {ca_file}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class LinkSettings:
    """Where and who: broker, TLS, venue, table id, login, keep-alive.

    With ``credentials`` (a file's path) the login is read from that file when the link starts, and
    read again while it cannot be (a mistake there never stops the device): ``username`` and
    ``password`` are then ignored.
    """

    host: str
    port: int
    venue: str
    table: str
    username: str
    password: str
    tls: bool = False
    ca_file: str = ""
    keepalive: int = 5
    credentials: str = ""

    @classmethod
    def from_config(cls, config) -> "LinkSettings":
        """From the ``[network]`` section (the credentials file is read when the link starts)."""
        n = config.network
        return cls(n.host, n.port, n.venue, n.table_id, "", "", n.tls, n.ca_file, n.keepalive, n.credentials)

    def login(self) -> tuple[str, str, ssl.SSLContext | None]:
        """(username, password, TLS context or None), reading the files now. Raises :class:`LoginProblem`."""
        username, password = self.username, self.password
        if self.credentials:
            try:
                username, password = read_credentials(self.credentials)
            except ShotclockError as exc:
                raise LoginProblem("credentials", str(exc)) from None
        return username, password, tls_context(self.ca_file) if self.tls else None

    def files_signature(self) -> tuple:
        """What the login's files look like now (a change is worth another try at once)."""
        out = []
        for path in (self.credentials, self.ca_file if self.tls else ""):
            try:
                st = Path(path).stat() if path else None
                out.append(st and (st.st_mtime_ns, st.st_size, st.st_mode, st.st_uid, st.st_ino))
            except OSError as exc:
                out.append(exc.errno)
        return tuple(out)
