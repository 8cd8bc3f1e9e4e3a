"""The broker's secrets: random passwords and their hashes as Mosquitto reads them.

The password file holds them as ``mosquitto_passwd`` writes them (``$7$``, PBKDF2-SHA512): the only
place a password is checked (the client-id plugin ties client ids to logins, and reads the same file only to
tell a session it was taken over by its own login).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

PBKDF2_ITERATIONS = 101  # mosquitto_passwd's own default; passwords here are random 128-bit tokens


def new_password() -> str:
    """A fresh random password (18 bytes, URL-safe base64: 24 characters)."""
    return secrets.token_urlsafe(18)


def _digest(password: str, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)


def hash_password(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """A ``mosquitto_passwd``-compatible hash: ``$7$<iterations>$<salt b64>$<PBKDF2-SHA512 b64>``."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = _digest(password, salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check_password(password: str, hashed: str) -> bool:
    """True when ``password`` matches a ``$7$`` hash from :func:`hash_password` or mosquitto_passwd."""
    try:
        _, kind, iterations, salt, _ = hashed.split("$")
        if kind != "7":
            return False
        return hash_password(password, base64.b64decode(salt), int(iterations)) == hashed
    except ValueError:
        return False
