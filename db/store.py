"""Writes and reads of the processing state: claims, sources, page sets, document outcomes, runs."""

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, Text, any_, bindparam, delete, exists, func, or_, select, update
from sqlalchemy.dialects.postgresql import ARRAY, insert
from sqlalchemy.orm import Session

from db.models import Document, DocumentSource, Page, Run
from db.statuses import FINISHED, DocumentStatus, PageStatus, RunStatus

FILE_FAILURES = ("vanished during the run", "changed during the run", "unreadable:")  # the file's doing, not its bytes'
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")  # NUL and lone UTF-16 surrogates: PostgreSQL text holds neither


def storable(text: str) -> str:
    """The text with what PostgreSQL cannot store (NUL, lone UTF-16 surrogates) replaced by U+FFFD."""
    return _UNSTORABLE.sub("\ufffd", text)


def storable_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """PDF metadata as it can be stored: text values made storable, and the keys that had to be listed under
    "sanitized"."""
    clean = {key: storable(value) if isinstance(value, str) else value for key, value in metadata.items()}
    changed = sorted(key for key, value in metadata.items() if clean[key] != value)
    return {**clean, "sanitized": changed} if changed else clean


@dataclass(frozen=True)
class SourceFile:
    """A file found in a source, with what is known before reading it; its uri, size and modification time or
    ETag are recorded where its document was seen (document_sources)."""

    uri: str
    size_bytes: int
    modified_at: datetime | None = None  # None: not known (a file no longer there)
    etag: str | None = None  # S3 objects
    path: Path | None = None  # where its bytes are read; None for an S3 object not fetched yet
    refused: str | None = None  # why the file is not read at all (found when it was listed)


def claim_document(session: Session, sha256: str, source: SourceFile) -> tuple[int, bool]:
    """(document id, True if this call created it); the source is recorded either way."""
    created = session.execute(
        insert(Document)
        .values(sha256=sha256, status=DocumentStatus.PENDING, size_bytes=source.size_bytes, first_source=source.uri,
                metadata_={})
        .on_conflict_do_nothing(index_elements=[Document.sha256])
        .returning(Document.id)
    ).scalar()
    document_id = created or session.execute(select(Document.id).where(Document.sha256 == sha256)).scalar_one()
    add_source(session, document_id, source)
    return document_id, created is not None


def add_source(session: Session, document_id: int, source: SourceFile) -> None:
    values = {"size_bytes": source.size_bytes, "modified_at": source.modified_at, "etag": source.etag}
    session.execute(
        insert(DocumentSource)
        .values(document_id=document_id, uri=source.uri, **values)
        .on_conflict_do_update(
            constraint="document_sources_document_uri_key", set_={**values, "last_seen_at": func.now()}
        )
    )


@dataclass(frozen=True)
class Sighting:
    """A path or URI as it was last seen holding a document, and whether that document is finished for good."""

    source_id: int  # its document_sources row
    uri: str
    document_id: int
    sha256: str
    size_bytes: int
    modified_at: datetime | None
    etag: str | None
    finished: bool

    def unchanged(self, source: SourceFile) -> bool:
        """Whether the listed file is as it was seen here and its document needs nothing more: the same size and
        ETag (an S3 object) or modification time (a file), and the document finished for good."""
        same_version = self.etag == source.etag if source.etag else \
            source.modified_at is not None and self.modified_at == source.modified_at
        return self.finished and same_version and self.size_bytes == source.size_bytes


def sightings(session: Session, uris: list[str]) -> dict[str, list[Sighting]]:
    """Every earlier sighting of these paths or URIs, by URI, in one query."""
    if not uris:
        return {}
    rows = session.execute(
        select(DocumentSource.id, DocumentSource.uri, DocumentSource.document_id, Document.sha256,
               DocumentSource.size_bytes, DocumentSource.modified_at, DocumentSource.etag, Document.status,
               Document.error)
        .join(Document, Document.id == DocumentSource.document_id)
        .where(DocumentSource.uri == any_(bindparam("uris", uris, type_=ARRAY(Text))))
        .order_by(DocumentSource.last_seen_at.desc(), DocumentSource.id.desc())
    )
    found: dict[str, list[Sighting]] = {}
    for row in rows:
        found.setdefault(row.uri, []).append(Sighting(row.id, row.uri, row.document_id, row.sha256, row.size_bytes,
                                                      row.modified_at, row.etag,
                                                      finished_for_good(row.status, row.error)))
    return found


def mark_seen(session: Session, source_ids: list[int]) -> None:
    """These sources were seen again now, as they were."""
    if source_ids:
        session.execute(update(DocumentSource)
                        .where(DocumentSource.id == any_(bindparam("ids", source_ids, type_=ARRAY(BigInteger))))
                        .values(last_seen_at=func.now()))


@dataclass(frozen=True)
class Claim:
    """Who takes documents (a flow run's id) and how long its claims last without renewal."""

    claimant: str
    lease_seconds: int


def claim_for_run(session: Session, document_id: int, claim: Claim) -> bool:
    """Take the document for this run unless another run holds an unexpired claim on it."""
    claimed = session.execute(
        update(Document)
        .where(Document.id == document_id,
               or_(Document.claimed_by.is_(None), Document.claimed_by == claim.claimant,
                   Document.claimed_until < func.now()))
        .values(claimed_by=claim.claimant, claimed_until=func.now() + timedelta(seconds=claim.lease_seconds))
        .returning(Document.id)
    ).first()
    return claimed is not None


def held_documents(session: Session, document_ids: set[int], claim: Claim) -> set[int]:
    """Of these documents, those this run holds, locked until the transaction ends (a run that would take one over
    waits, then finds the claim renewed): its own claims, and any left unclaimed or lapsed and unfinished, taken
    back. One another run took over, or finished, is not held."""
    rows = session.execute(select(Document.id, Document.claimed_by, Document.claimed_until < func.now(),
                                  Document.status)
                           .where(Document.id.in_(document_ids)).with_for_update()).all()
    held = {id_ for id_, claimant, _, _ in rows if claimant == claim.claimant}
    free = [id_ for id_, claimant, lapsed, status in rows
            if claimant != claim.claimant and (claimant is None or lapsed) and status not in FINISHED]
    return held | {id_ for id_ in free if claim_for_run(session, id_, claim)}


def renew_claims(session: Session, document_ids: set[int], claim: Claim) -> None:
    """Extend this run's claims (each stored batch does), so that only a run that stopped loses them."""
    session.execute(
        update(Document)
        .where(Document.id.in_(document_ids), Document.claimed_by == claim.claimant)
        .values(claimed_until=func.now() + timedelta(seconds=claim.lease_seconds))
    )


def release_claims(session: Session, document_ids: list[int], claim: Claim) -> None:
    session.execute(
        update(Document)
        .where(Document.id.in_(document_ids), Document.claimed_by == claim.claimant)
        .values(claimed_by=None, claimed_until=None)
    )


def finished_before(session: Session, document_id: int) -> tuple[str, bool]:
    """The document's status, and whether it is finished for good: not failed for what its file did (it vanished,
    changed or could not be read while the run held it), which a later sighting of its bytes parses again."""
    status, error = session.execute(select(Document.status, Document.error)
                                    .where(Document.id == document_id)).one()
    return status, finished_for_good(status, error)


def finished_for_good(status: str, error: str | None) -> bool:
    """Whether a document with this status and error needs no more work when its bytes are seen again: finished,
    and not failed for what its file did (it vanished, changed or could not be read while a run held it)."""
    return status in FINISHED and not (status == DocumentStatus.FAILED and (error or "").startswith(FILE_FAILURES))


def start_processing(session: Session, document_id: int, page_count: int, metadata: dict[str, Any]) -> None:
    session.execute(
        update(Document)
        .where(Document.id == document_id)
        .values(status=DocumentStatus.PROCESSING, page_count=page_count, metadata_=storable_metadata(metadata),
                error=None)
    )


def fail_document(session: Session, document_id: int, error: str) -> None:
    session.execute(update(Document).where(Document.id == document_id)
                    .values(status=DocumentStatus.FAILED, error=storable(error)))


def unread_key(uri: str) -> str:
    """What a file whose bytes were never read (gone, unreadable, too large, refused) is recorded under instead of
    their sha256: the sha256 of its URI behind a prefix, one per URI."""
    return hashlib.sha256(b"folio: file not read\0" + uri.encode()).hexdigest()


def record_unread(session: Session, source: SourceFile, error: str) -> int:
    """A failed document for a file whose bytes could not be read; returns its id. Its source is recorded
    without modification time or ETag, so that the next listing reads the file again."""
    document_id, _ = claim_document(session, unread_key(source.uri), replace(source, modified_at=None, etag=None))
    fail_document(session, document_id, error)
    return document_id


def forget_unread(session: Session, uri: str) -> None:
    """Remove the failed record of an earlier try at reading the file at this URI (it has been read now)."""
    session.execute(delete(Document).where(Document.sha256 == unread_key(uri)))


def stored_page_numbers(session: Session, document_id: int) -> set[int]:
    return set(session.execute(select(Page.page_no).where(Page.document_id == document_id)).scalars())


def finish_documents(session: Session, document_ids: list[int], reason: str = "") -> dict[int, str]:
    """Set each document's final status from its pages; returns {id: status}.

    All pages stored: done (quarantined if any page is, failed if none could be read).
    Pages missing: the document stays as it is, to be completed by a later run; `reason` says why.
    """
    outcome: dict[int, str] = {}
    for document in session.execute(select(Document).where(Document.id.in_(document_ids))).scalars():
        if document.status not in FINISHED and not _finish(session, document):
            stored = session.execute(select(func.count()).where(Page.document_id == document.id)).scalar_one()
            document.error = (f"incomplete: {document.page_count - stored} of {document.page_count} pages not "
                              f"stored ({reason or 'the run ended early'}); a retry or a later run completes it")
        outcome[document.id] = document.status
    return outcome


def finish_complete(session: Session, document_ids: set[int]) -> list[int]:
    """Give each of these documents whose pages are all stored its final status; returns their ids."""
    documents = session.execute(select(Document).where(Document.id.in_(document_ids),
                                                       Document.status.not_in(FINISHED))).scalars()
    return [document.id for document in documents if _finish(session, document)]


def _finish(session: Session, document: Document) -> bool:
    """The final status of a document whose pages are all stored; False (and nothing set) when some are not."""
    counts = dict(
        session.execute(
            select(Page.status, func.count()).where(Page.document_id == document.id).group_by(Page.status)
        ).all()
    )
    stored, failed = sum(counts.values()), counts.get(PageStatus.FAILED, 0)
    if stored < (document.page_count or 0):
        return False
    if failed == document.page_count:
        errors = set(session.execute(select(Page.error).where(Page.document_id == document.id)).scalars())
        document.status = DocumentStatus.FAILED
        document.error = f"no page could be read: {errors.pop()}" if len(errors) == 1 else "no page could be read"
        return True
    quarantined = counts.get(PageStatus.QUARANTINED, 0)
    document.status = DocumentStatus.QUARANTINED if quarantined else DocumentStatus.DONE
    notes = [f"{failed} of {document.page_count} pages could not be read" if failed else "",
             f"{quarantined} of {document.page_count} pages quarantined by validation" if quarantined else ""]
    document.error = "; ".join(note for note in notes if note) or None
    return True


def failed_documents(session: Session, document_ids: set[int]) -> dict[int, str]:
    """The failed documents among these, with their errors."""
    rows = session.execute(select(Document.id, Document.error)
                           .where(Document.id.in_(document_ids), Document.status == DocumentStatus.FAILED))
    return {document_id: error or "failed" for document_id, error in rows}


def fully_reused(session: Session, document_ids: list[int]) -> set[int]:
    """The documents among these whose every page copies a stored page (a re-saved or re-assembled file)."""
    if not document_ids:
        return set()
    rows = session.execute(
        select(Page.document_id)
        .where(Page.document_id.in_(document_ids))
        .group_by(Page.document_id)
        .having(func.count() == func.count(Page.reused_from))
    ).scalars()
    return set(rows)


OTHER_VERSIONS = "other"  # Selection.engine_version: results from any engine version but the current one


@dataclass(frozen=True)
class Selection:
    """Which finished documents to parse again; the filters combine with AND.

    Done documents are chosen only by engine version (their results came from another engine) or with
    force; without either, the statuses default to failed and quarantined.
    """

    statuses: tuple[str, ...] = ()
    ids: tuple[int, ...] = ()
    since: datetime | None = None  # last changed at or after
    until: datetime | None = None  # last changed before
    engine_version: str | None = None  # a version (0.3.2 names every 0.3.2+<identity>), or OTHER_VERSIONS
    force: bool = False

    def __post_init__(self) -> None:
        if not (self.statuses or self.ids or self.since or self.until or self.engine_version):
            raise ValueError("say which documents: by status, id, date or engine version")
        if unknown := set(self.statuses) - set(FINISHED):
            raise ValueError(f"only finished documents are reprocessed ({', '.join(FINISHED)}), not "
                             f"{', '.join(sorted(unknown))}")
        if DocumentStatus.DONE in self.statuses and not (self.force or self.engine_version):
            raise ValueError("done documents are parsed again only with an engine version or force")

    def describe(self) -> str:
        parts = [f"status {','.join(self.statuses)}" if self.statuses else "",
                 f"id {','.join(map(str, self.ids))}" if self.ids else "",
                 f"since {self.since.isoformat()}" if self.since else "",
                 f"until {self.until.isoformat()}" if self.until else "",
                 f"engine version {self.engine_version}" if self.engine_version else "",
                 "forced" if self.force else ""]
        return "; ".join(part for part in parts if part)


def documents_to_reprocess(session: Session, selection: Selection, current_version: str) -> list[int]:
    """Ids of the finished documents the selection names, in id order."""
    everything = selection.force or selection.engine_version
    statuses = selection.statuses or (FINISHED if everything else (DocumentStatus.FAILED, DocumentStatus.QUARANTINED))
    query = select(Document.id).where(Document.status.in_(statuses)).order_by(Document.id)
    if selection.ids:
        query = query.where(Document.id.in_(selection.ids))
    if selection.since:
        query = query.where(Document.updated_at >= selection.since)
    if selection.until:
        query = query.where(Document.updated_at < selection.until)
    if selection.engine_version:
        version = Page.engine_version != current_version if selection.engine_version == OTHER_VERSIONS \
            else or_(Page.engine_version == selection.engine_version,
                     func.starts_with(Page.engine_version, selection.engine_version + "+"))
        query = query.where(exists(select(Page.id).where(Page.document_id == Document.id, version)))
    return list(session.execute(query).scalars())


def document_errors(session: Session, document_ids: list[int]) -> dict[int, str]:
    if not document_ids:
        return {}
    rows = session.execute(select(Document.id, Document.error).where(Document.id.in_(document_ids)))
    return {document_id: error or "" for document_id, error in rows}


def document_sha256(session: Session, document_id: int) -> str:
    return session.execute(select(Document.sha256).where(Document.id == document_id)).scalar_one()


def document_sources(session: Session, document_id: int) -> list[str]:
    """The URIs a document was seen at, most recently seen first."""
    return list(session.execute(
        select(DocumentSource.uri).where(DocumentSource.document_id == document_id)
        .order_by(DocumentSource.last_seen_at.desc(), DocumentSource.id.desc())
    ).scalars())


def clear_pages(session: Session, document_id: int) -> int:
    """Delete a document's pages with their blocks, tables and formulas (pages that copied them keep their
    copies); returns how many."""
    return session.execute(delete(Page).where(Page.document_id == document_id)).rowcount


def start_run(session: Session, source: str, flow_run_id: str | None) -> int:
    run = Run(source=source, flow_run_id=flow_run_id, status=RunStatus.RUNNING)
    session.add(run)
    session.flush()
    return run.id


def finish_run(session: Session, run_id: int, status: RunStatus, counts: dict[str, int], seconds: float) -> None:
    session.execute(
        update(Run)
        .where(Run.id == run_id)
        .values(status=status, finished_at=func.now(), seconds=seconds, **counts)
    )


def close_unfinished_run(session: Session, run_id: int, seconds: float) -> None:
    """A run still `running` marked failed: its flow ended before it could count what it did."""
    session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status == RunStatus.RUNNING)
        .values(status=RunStatus.FAILED, finished_at=func.now(), seconds=seconds)
    )
