"""The broker's client-id plugin: its C source (``plugin/client_ids.c``, Mosquitto's v5 plugin API) built
into a broker's folder with the machine's C compiler, against the installed Mosquitto's headers.

It is built where the broker runs (``broker-config`` does it), so it matches that Mosquitto and that CPU.
Debian's packages that build it are :data:`BUILD_PACKAGES`; a missing one is named in one line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from shotclock.errors import ShotclockError

PLUGIN_FILE = "client-ids.so"
# Debian's packages that build the plugin: the compiler and C library, Mosquitto's plugin headers
# (mosquitto_broker.h, mosquitto_plugin.h), its client headers (mosquitto.h) and OpenSSL's (the passwords'
# PBKDF2-SHA512). tests/test_client_id_binding.py checks each name against the package index.
BUILD_PACKAGES = ("gcc", "libc6-dev", "mosquitto-dev", "libmosquitto-dev", "libssl-dev")
APT_COMMAND = "sudo apt-get install " + " ".join(BUILD_PACKAGES)
# What the compiler says is missing -> the package that has it.
_MISSING = (("mosquitto_broker.h", "mosquitto-dev"), ("mosquitto_plugin.h", "mosquitto-dev"),
            ("mosquitto.h", "libmosquitto-dev"), ("openssl/", "libssl-dev"), ("-lcrypto", "libssl-dev"),
            ("stdio.h", "libc6-dev"), ("crti.o", "libc6-dev"))


class PluginBuildError(ShotclockError):
    """The client-id plugin could not be built here (no compiler, a header missing)."""


def plugin_source() -> str:
    """The plugin's C source."""
    return resources.files("shotclock.floor.broker").joinpath("plugin", "client_ids.c").read_text(encoding="utf-8")


def build_plugin(out: str | Path) -> Path:
    """Build the plugin into ``out`` (replaced whole, so a running broker keeps the one it loaded); return it.

    Raises :class:`PluginBuildError` naming what is missing and the packages that build it.
    """
    out = Path(out)
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        raise PluginBuildError(f"cannot build the broker's client-id plugin: no C compiler ({APT_COMMAND})")
    out.parent.mkdir(parents=True, exist_ok=True)
    source = out.parent / f".{out.name}.c"
    partial = out.parent / f".{out.name}.part"
    source.write_text(plugin_source(), encoding="utf-8")
    try:
        try:
            done = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(partial), str(source), "-lcrypto"],
                                  capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PluginBuildError(f"cannot build the broker's client-id plugin: {cc}: {exc}") from None
        if done.returncode != 0:
            raise PluginBuildError(f"cannot build the broker's client-id plugin: {_what_is_missing(done.stderr)} "
                                   f"({APT_COMMAND})")
        os.chmod(partial, 0o644)
        os.replace(partial, out)
    finally:
        for path in (source, partial):
            path.unlink(missing_ok=True)
    return out


def _what_is_missing(errors: str) -> str:
    """One line for the compiler's complaint: the missing file and its package, else its first error."""
    for needle, package in _MISSING:
        if needle in errors:
            return f"{needle.lstrip('-')} is missing (Debian's {package})"
    first = next((line for line in errors.splitlines() if re.search(r"error|undefined", line)), "")
    return first.strip()[:200] or "the compiler failed"
