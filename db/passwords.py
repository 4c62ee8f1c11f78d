"""folio's generated database passwords: a libpq password file (0600) under FOLIO_HOME, and SCRAM verifiers."""

import base64
import fcntl
import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

PASSFILE = "pgpass"
SCRAM_ITERATIONS = 4096


def passfile(home: Path) -> Path:
    """The password file of a FOLIO_HOME (libpq's format: host:port:database:user:password)."""
    return home / PASSFILE


def read_password(path: Path, user: str) -> str | None:
    """The password kept for `user`, or None."""
    if not path.exists():
        return None
    with _locked(path) as file:
        return _find(file.read(), user)


def password(path: Path, user: str) -> str:
    """The password kept for `user`; a new random one is generated and kept when there is none."""
    with _locked(path) as file:
        text = file.read()
        if (found := _find(text, user)) is not None:
            return found
        generated = secrets.token_urlsafe(32)
        file.write(("\n" if text and not text.endswith("\n") else "") + f"*:*:*:{_escape(user)}:{generated}\n")
        file.flush()
        os.fsync(file.fileno())
        return generated


def scram_verifier(secret: str, iterations: int = SCRAM_ITERATIONS) -> str:
    """What PostgreSQL stores for a SCRAM-SHA-256 password (RFC 5803), made here so the password never travels."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
    stored_key = hashlib.sha256(hmac.digest(salted, b"Client Key", "sha256")).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    b64 = lambda value: base64.b64encode(value).decode()  # noqa: E731
    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


@contextmanager
def _locked(path: Path) -> Iterator[TextIO]:
    """The file opened for reading and appending under an exclusive lock; created 0600, kept 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600), "r+", encoding="utf-8") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        if stat.S_IMODE(os.fstat(file.fileno()).st_mode) & 0o077:
            os.fchmod(file.fileno(), 0o600)  # libpq ignores a password file others may read
        yield file


def _find(text: str, user: str) -> str | None:
    for line in text.splitlines():
        fields = _split(line)
        if len(fields) == 5 and fields[3] == user:
            return fields[4]
    return None


def _split(line: str) -> list[str]:
    fields, current, escaped = [], "", False
    for char in line:
        if escaped:
            current, escaped = current + char, False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append(current)
            current = ""
        else:
            current += char
    return [*fields, current]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")
