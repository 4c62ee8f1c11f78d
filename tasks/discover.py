"""Listing a source: every PDF under a folder, or a single file."""

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from prefect import task

from tasks.policy import task_options


@dataclass(frozen=True)
class SourceFile:
    """A file found in a source, with what is known before reading it."""

    uri: str
    path: Path | None  # where its bytes are read; None for an S3 object not fetched yet
    size_bytes: int
    modified_at: datetime | None  # None: not known (a file no longer there)
    etag: str | None = None  # S3 objects


def list_source(source: str) -> list[SourceFile]:
    """The PDFs of a folder or an S3 prefix (recursively, by name, hidden files skipped) or the one file given."""
    if source.startswith("s3://"):
        from tasks.s3 import list_objects

        return list_objects(source)
    root = Path(source).expanduser()
    if not root.exists():
        raise FileNotFoundError(f"source not found: {source}")
    if root.is_file():
        paths = [root]
    else:
        paths = sorted(p for p in root.rglob("*") if _is_pdf_name(p) and not _hidden(p, root))
    return [_source_file(p.resolve()) for p in paths]


def _is_pdf_name(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() == ".pdf"


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _source_file(path: Path) -> SourceFile:
    stat = path.stat()
    return SourceFile(uri=str(path), path=path, size_bytes=stat.st_size,
                      modified_at=datetime.fromtimestamp(stat.st_mtime, tz=UTC))


@task(name="discover", **task_options())
def discover(source: str) -> list[SourceFile]:
    return list_source(source)
