"""The floor's own certificate authority and the broker's certificate (``broker-config --make-certs``).

Made with the ``openssl`` command (Debian's ``openssl`` package) into ``DIR/tls/``: ``ca.pem`` (what
every table and tablet trusts: ``provision --ca-file``), ``ca.key`` (mode 0600: keep it off the
network), ``server.pem`` and ``server.key`` (the broker's, for every name and address the tables and
tablets use). Files already there are kept, so running broker-config again never changes the CA the
tables were given.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from shotclock.errors import ShotclockError
from shotclock.floor.broker.render import template

CA_DAYS = 3650
SERVER_DAYS = 825  # the longest validity Apple's devices accept for a server certificate


def subject_names(names: list[str]) -> str:
    """``DNS:floor.local,IP:192.168.10.2``: the subjectAltName of the broker's certificate."""
    parts = []
    for name in names:
        try:
            parts.append(f"IP:{ipaddress.ip_address(name)}")
        except ValueError:
            if not name or not all(c.isalnum() or c in "-." for c in name):
                raise ShotclockError(f"--make-certs: {name!r} is neither a host name nor an address") from None
            parts.append(f"DNS:{name}")
    if not parts:
        raise ShotclockError("--make-certs needs the broker's names, for example floor.local,192.168.10.2")
    return ",".join(parts)


def _openssl(*args: str) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        raise ShotclockError("--make-certs needs the openssl command: apt-get install openssl")
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ShotclockError(f"openssl {args[0]} failed: {last}")


def make_certs(folder: Path, names: list[str], venue: str) -> tuple[Path, Path, Path]:
    """Make (or keep) ``tls/ca.pem``, ``tls/server.pem`` and ``tls/server.key`` under ``folder``;
    return (certfile, keyfile, cafile), absolute."""
    tls = (folder / "tls").resolve()
    tls.mkdir(parents=True, exist_ok=True)
    ca, ca_key, cert, key = tls / "ca.pem", tls / "ca.key", tls / "server.pem", tls / "server.key"
    san = subject_names(names)
    old = os.umask(0o077)  # the keys are born private
    try:
        if not (ca.exists() and ca_key.exists()):
            _openssl("req", "-x509", "-newkey", "rsa:3072", "-nodes", "-days", str(CA_DAYS), "-sha256",
                     "-subj", f"/CN=shotclock {venue} floor CA", "-keyout", str(ca_key), "-out", str(ca),
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        if not (cert.exists() and key.exists()):
            with tempfile.TemporaryDirectory() as tmp:
                csr, ext = Path(tmp) / "server.csr", Path(tmp) / "server.ext"
                ext.write_text(template("server.ext", names=san), encoding="utf-8")
                _openssl("req", "-newkey", "rsa:3072", "-nodes", "-sha256", "-subj", f"/CN={names[0]}",
                         "-keyout", str(key), "-out", str(csr))
                _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
                         "-CAserial", str(tls / "ca.srl"), "-days", str(SERVER_DAYS), "-sha256",
                         "-extfile", str(ext), "-out", str(cert))
    finally:
        os.umask(old)
    os.chmod(ca, 0o644)
    os.chmod(cert, 0o644)
    return cert, key, ca
