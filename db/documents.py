"""Stored documents found from what a person types: a path they were seen at, a sha256 or its first characters,
ids, source globs, a date."""

import string
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import ColumnElement, exists, or_, select
from sqlalchemy.orm import Session

from db.models import Document, DocumentSource

MIN_PREFIX = 8  # shorter sha256 prefixes name too many documents in a large archive to be a reference


class NoSuchDocument(ValueError):
    """No stored document (or more than one) matches what was asked for."""


def sha256_prefix(value: str) -> str:
    """The prefix in lower case; a ValueError that says why when it is too short or not hexadecimal."""
    prefix = value.strip().lower()
    if not prefix or len(prefix) > 64 or any(char not in string.hexdigits for char in prefix):
        raise ValueError(f"not a sha256 or a prefix of one (hexadecimal): {value}")
    if len(prefix) < MIN_PREFIX:
        raise ValueError(f"a sha256 prefix needs at least {MIN_PREFIX} characters: {value}")
    return prefix


def find_document_id(session: Session, reference: str) -> int:
    """The one document a path it was seen at, its sha256, or a prefix of 8+ characters of it names."""
    candidate = Path(reference).expanduser()
    paths = {reference, str(candidate.resolve())} if candidate.exists() else {reference}
    found = session.execute(select(DocumentSource.document_id).where(DocumentSource.uri.in_(paths))).scalars().first()
    if found is not None:
        return found
    if not all(char in string.hexdigits for char in reference) or candidate.exists():
        raise NoSuchDocument(f"no stored document was seen at {reference}")
    prefix = sha256_prefix(reference)
    ids = session.execute(select(Document.id).where(Document.sha256.startswith(prefix)).limit(2)).scalars().all()
    if len(ids) != 1:
        raise NoSuchDocument(f"no stored document's sha256 starts with {prefix}" if not ids else
                             f"more than one stored document's sha256 starts with {prefix}: give more characters")
    return ids[0]


def glob_to_like(pattern: str) -> str:
    """A shell glob (* and ?) as a LIKE pattern with backslash as its escape."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%").replace("?", "_")


@dataclass(frozen=True)
class DocumentFilter:
    """Which documents: any of these ids, sha256 prefixes or source globs (each given kind must match), changed
    since a time. Empty: every document."""

    ids: tuple[int, ...] = ()
    sha256: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    since: datetime | None = None

    def conditions(self) -> list[ColumnElement[bool]]:
        conditions: list[ColumnElement[bool]] = []
        if self.ids:
            conditions.append(Document.id.in_(self.ids))
        if self.sha256:
            conditions.append(or_(*(Document.sha256.startswith(sha256_prefix(p)) for p in self.sha256)))
        if self.sources:
            conditions.append(exists().where(DocumentSource.document_id == Document.id, or_(
                *(DocumentSource.uri.like(glob_to_like(glob), escape="\\") for glob in self.sources))))
        if self.since is not None:
            conditions.append(Document.updated_at >= self.since)
        return conditions

    def check_ids(self, session: Session) -> None:
        """NoSuchDocument when an id asked for by name is not stored at all."""
        known = set(session.execute(select(Document.id).where(Document.id.in_(self.ids))).scalars())
        if missing := [str(i) for i in self.ids if i not in known]:
            raise NoSuchDocument(f"no stored document has id {', '.join(missing)}")


EVERY_DOCUMENT = DocumentFilter()
