"""Local source files read safely: the size checked before reading, the sha256 taken with the file's identity,
and the file held open for parsing only while it still holds the bytes that were hashed.

A file is opened without following a symbolic link in its last part (listing decides which links are
followed, and a link put in a file's place later is not). Its identity (device, inode, size, modification and
change times) is taken when it is hashed; when it is opened again to be parsed, the same identity says the
bytes are the same (any write changes the change time, a replacement the inode), and another one has the
file hashed again: other bytes fail the document as changed. The parser reads the open file itself
(/proc/self/fd on Linux), and the identity is checked again once the pages are parsed.
"""

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from sources.failures import BadDocument, unreadable

_CHUNK = 1 << 20
_PROC = Path("/proc")


@dataclass(frozen=True)
class FileIdentity:
    """What changes when a file's bytes may have: its inode, size, and modification and change times."""

    device: int
    inode: int
    size: int
    modified_ns: int
    changed_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> "FileIdentity":
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def too_large(size: int, max_bytes: int) -> BadDocument:
    return BadDocument(f"too large: {size} bytes, the limit is {max_bytes}")


def hash_file(path: Path, max_bytes: int) -> tuple[str, FileIdentity]:
    """The file's sha256 and identity; BadDocument if it is not a regular file, is larger than max_bytes
    (known before a byte is read), cannot be read, or changed while it was read."""
    fd = _open(path)
    try:
        identity = _identity(fd)
        if identity.size > max_bytes:
            raise too_large(identity.size, max_bytes)
        digest = _digest(fd, max_bytes)
        if FileIdentity.of(os.fstat(fd)) != identity:
            raise BadDocument("changed during the run: written to while it was read")
        return digest, identity
    except OSError as error:
        raise unreadable(error) from error
    finally:
        os.close(fd)


class HeldFile:
    """A source file held open while its pages are read and parsed, known to hold the bytes hashed as `sha256`.

    Opening raises BadDocument when the file is gone, unreadable, or holds other bytes now.
    """

    def __init__(self, path: Path, sha256: str, identity: FileIdentity | None, max_bytes: int):
        self.fd = _open(path)
        self.sha256, self.max_bytes = sha256, max_bytes
        try:
            self.identity = _identity(self.fd)
            if self.identity != identity and not self._same_bytes():  # touched, copied again or replaced
                raise BadDocument(f"changed during the run: the file no longer holds the bytes of sha256 "
                                  f"{sha256[:16]}…")
        except OSError as error:
            os.close(self.fd)
            raise unreadable(error) from error
        except BaseException:
            os.close(self.fd)
            raise
        # the open file by its descriptor, a path that engine worker processes (same user) open too
        self.path = str(_PROC / str(os.getpid()) / "fd" / str(self.fd)) if _PROC.is_dir() else str(path)

    def unchanged(self) -> bool:
        """Whether the file still holds the bytes it was opened with (its identity alone says so, unless it was
        renamed, touched or written to: then its bytes)."""
        try:
            return _identity(self.fd) == self.identity or self._same_bytes()
        except (OSError, BadDocument):
            return False

    def _same_bytes(self) -> bool:
        identity = _identity(self.fd)
        same = identity.size <= self.max_bytes and _digest(self.fd, self.max_bytes) == self.sha256
        if same and _identity(self.fd) != identity:
            raise BadDocument("changed during the run: written to while it was checked")
        return same

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> "HeldFile":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        raise unreadable(error) from error


def _identity(fd: int) -> FileIdentity:
    """The open file's identity; BadDocument if it is not a regular file (a pipe or device put in its place)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise BadDocument("unreadable: not a regular file")
    return FileIdentity.of(info)


def _digest(fd: int, max_bytes: int) -> str:
    """sha256 of the open file's bytes from the start; BadDocument if it grew past max_bytes meanwhile."""
    digest, offset = hashlib.sha256(), 0
    while chunk := os.pread(fd, _CHUNK, offset):
        digest.update(chunk)
        offset += len(chunk)
        if offset > max_bytes:
            raise BadDocument("changed during the run: it grew past the size limit while it was read")
    return digest.hexdigest()
