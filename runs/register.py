"""Registering listed files: sha256, a claim in PostgreSQL, and a first look inside each new PDF."""

import logging
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from base.settings import get_settings
from db.session import session_scope
from db.statuses import FINISHED, DocumentStatus, Registration
from db.store import (
    Claim,
    Sighting,
    SourceFile,
    claim_document,
    claim_for_run,
    clear_pages,
    fail_document,
    finished_before,
    forget_unread,
    mark_seen,
    record_unread,
    sightings,
    start_processing,
    stored_page_numbers,
    unread_key,
)
from sources.failures import BadDocument, is_transient, reason
from sources.files import FileIdentity, HeldFile, hash_file, too_large


@dataclass(frozen=True)
class Registered:
    """A listed file after registration: its document and what is left to do for it."""

    file: SourceFile
    sha256: str
    document_id: int
    outcome: Registration
    pages_todo: tuple[int, ...] = ()
    identity: FileIdentity | None = None  # the file's when its bytes were hashed (see sources.files)


def read_bytes(file: SourceFile, max_file_bytes: int, spool: Path) -> tuple[SourceFile, str, FileIdentity]:
    """The file with a local path to read it from (an S3 object is streamed to the run's `spool`), its sha256 and its
    identity; BadDocument, before anything is read, for a file larger than max_file_bytes."""
    if file.refused:
        raise BadDocument(file.refused)
    if file.size_bytes > max_file_bytes:
        raise too_large(file.size_bytes, max_file_bytes)
    if file.path is not None:
        return file, *hash_file(file.path, max_file_bytes)
    from sources.s3 import fetch

    return fetch(file, spool)


def register_files(files: list[SourceFile], database: Engine, max_file_bytes: int, claim: Claim,
                   log: logging.Logger | logging.LoggerAdapter | None = None,
                   force: bool = False) -> list[Registered]:
    """Claim a document for every file; a file whose bytes are already known becomes another source.

    A file seen before at the same path or URI, as it was then (`Sighting.unchanged`), is not read at all
    (Registration.UNCHANGED): one query looks them all up. A file read again (touched) and found to hold the
    bytes it held there is unchanged too; the same bytes seen only elsewhere are a duplicate, and so is a
    document another run holds an unexpired claim on (left to that run).
    With force, every file is read and finished documents are parsed again: their stored pages are cleared.
    A file that cannot be read or opened is recorded as a failed document with the reason; only an
    infrastructure error (the database unreachable) fails the registration.
    """
    log = log or logging.getLogger(__name__)
    with session_scope(database) as session:
        seen = {} if force else sightings(session, [file.uri for file in files])
        unchanged = unchanged_files(files, seen)
        mark_seen(session, [sighting.source_id for sighting in unchanged.values()])
    if unchanged:
        log.info("%d of %d files unchanged since they were last seen: not read again", len(unchanged), len(files))
    claimed_now: set[int] = set()
    registered, read, to_read = [], 0, len(files) - len(unchanged)
    for file in files:
        if (sighting := unchanged.get(file.uri)) is not None:
            registered.append(Registered(file, sighting.sha256, sighting.document_id, Registration.UNCHANGED))
            continue
        seen_here = {sighting.document_id for sighting in seen.get(file.uri, ())}
        registered.append(_register(file, database, max_file_bytes, claim, claimed_now, seen_here, force))
        read += 1
        if read % 25 == 0 or read == to_read:
            log.info("registered %d/%d files to read", read, to_read)
    return registered


def unchanged_files(files: list[SourceFile], seen: dict[str, list[Sighting]]) -> dict[str, Sighting]:
    """By URI, the sighting each listed file is unchanged since; files refused at listing never are."""
    found = {}
    for file in files:
        if file.refused is None and file.uri in seen:
            if (sighting := next((s for s in seen[file.uri] if s.unchanged(file)), None)) is not None:
                found[file.uri] = sighting
    return found


def _register(file: SourceFile, database: Engine, max_file_bytes: int, claim: Claim,
              claimed_now: set[int], seen_here: set[int], force: bool) -> Registered:
    """Read the file and claim its document; `seen_here`: the documents this URI was seen holding before."""
    listed = file  # as listed (an S3 object fetched gets a path): what document_sources records
    try:
        file, sha256, identity = read_bytes(file, max_file_bytes, get_settings().run_spool(claim.claimant))
    except Exception as error:  # noqa: BLE001 - whatever stops this file stops only this file
        if is_transient(error):
            raise
        with session_scope(database) as session:
            return Registered(file, unread_key(file.uri), record_unread(session, listed, reason(error)),
                              Registration.FAILED)
    with session_scope(database) as session:
        forget_unread(session, file.uri)
        document_id, created = claim_document(session, sha256, listed)
        status, done_before = (DocumentStatus.PENDING, False) if created else finished_before(session, document_id)
        if done_before and not force:
            outcome = Registration.UNCHANGED if document_id in seen_here else Registration.DUPLICATE
            return Registered(file, sha256, document_id, outcome)
        if document_id in claimed_now or not claim_for_run(session, document_id, claim):
            return Registered(file, sha256, document_id, Registration.DUPLICATE)
        claimed_now.add(document_id)
        if status in FINISHED:
            clear_pages(session, document_id)
    return start_document(database, file, sha256, document_id, max_file_bytes, identity)


def start_document(database: Engine, file: SourceFile, sha256: str, document_id: int, max_file_bytes: int,
                   identity: FileIdentity | None) -> Registered:
    """A first look inside a claimed document's file: its pages to parse, or the document failed with the reason."""
    from pages.pdf import inspect_document  # PyMuPDF is imported by a run that opens a file, not by a no-op run

    try:
        with HeldFile(file.path, sha256, identity, max_file_bytes) as held:
            info = inspect_document(Path(held.path))
        with session_scope(database) as session:
            start_processing(session, document_id, info.page_count, info.metadata)
            stored = stored_page_numbers(session, document_id)
    except Exception as error:  # noqa: BLE001 - whatever stops this file stops only this file
        if is_transient(error):
            raise
        with session_scope(database) as session:
            fail_document(session, document_id, reason(error))
        return Registered(file, sha256, document_id, Registration.FAILED, identity=identity)
    todo = tuple(n for n in range(1, info.page_count + 1) if n not in stored)
    return Registered(file, sha256, document_id, Registration.NEW, todo, identity)
