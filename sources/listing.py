"""Listing a source: every PDF under a folder, or a single file."""

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from base.settings import get_settings
from db.store import SourceFile
from sources.failures import unreadable

_ESCAPE = re.compile(rb"\\(\\|x([0-9a-fA-F]{2}))")


def path_uri(path: Path) -> str:
    """The path as text that PostgreSQL stores and people read: as it is when its name is UTF-8 without a
    backslash; otherwise each byte that is not UTF-8 written as \\xNN and a backslash as \\\\, so that
    `uri_path` gives the very same path back."""
    return os.fsencode(path).replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def uri_path(uri: str) -> Path:
    """The local path a URI made by `path_uri` names."""
    if "\\" not in uri:
        return Path(uri)
    raw = _ESCAPE.sub(lambda m: b"\\" if m[2] is None else bytes([int(m[2], 16)]), uri.encode())
    return Path(os.fsdecode(raw))


def list_source(source: str) -> list[SourceFile]:
    """The PDFs of a folder or an S3 prefix (recursively, by name, hidden files skipped) or the one file given.

    A local source is given as `path_uri` writes it (a path whose name is UTF-8 as it is). A symbolic link
    that leads out of the folder is listed as refused unless FOLIO_FOLLOW_SYMLINKS=1; a file that cannot be
    looked at is listed with the reason.
    """
    if source.startswith("s3://"):
        from sources.s3 import list_objects

        return list_objects(source)
    root = uri_path(source).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"source not found: {source}")
    if root.is_file():
        return [_source_file(root, None, True)]
    paths = sorted(p for p in root.rglob("*") if _is_pdf_name(p) and not _hidden(p, root))
    return [_source_file(p, root.resolve(), get_settings().follow_symlinks) for p in paths]


def _is_pdf_name(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() == ".pdf"


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _source_file(path: Path, root: Path | None, follow_symlinks: bool) -> SourceFile:
    """The file as listed: at its resolved path; refused when it is a link out of `root` that may not be followed,
    or with the reason it could not be looked at."""
    try:
        resolved = path.resolve(strict=True)
        info = resolved.stat()
    except OSError as error:
        return SourceFile(uri=path_uri(path.absolute()), path=path, size_bytes=0, modified_at=None,
                          refused=str(unreadable(error)))
    if root is not None and not follow_symlinks and not resolved.is_relative_to(root):
        return SourceFile(uri=path_uri(path.absolute()), path=path, size_bytes=0, modified_at=None,
                          refused="refused: a symbolic link out of the source folder (FOLIO_FOLLOW_SYMLINKS=1 "
                                  "follows it)")
    return SourceFile(uri=path_uri(resolved), path=resolved, size_bytes=info.st_size,
                      modified_at=datetime.fromtimestamp(info.st_mtime, tz=UTC))
