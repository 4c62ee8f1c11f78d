"""Registering listed files: sha256, a claim in PostgreSQL, and a first look inside each new PDF."""

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from prefect import task
from prefect.logging import get_run_logger
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from db.session import get_engine, session_scope
from db.store import (
    FINISHED,
    Claim,
    SourceRecord,
    claim_document,
    claim_for_run,
    clear_pages,
    document_status,
    fail_document,
    start_processing,
    stored_page_numbers,
    unchanged_source,
)
from folio.settings import get_settings
from tasks.discover import SourceFile
from tasks.pdf import BadDocument, inspect_document
from tasks.policy import task_options

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Registered:
    """A listed file after registration: its document and what is left to do for it."""

    file: SourceFile
    sha256: str
    document_id: int
    outcome: str  # "new": to parse; "duplicate": bytes already known; "failed": unreadable
    pages_todo: tuple[int, ...] = ()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def read_bytes(file: SourceFile, max_file_bytes: int) -> tuple[SourceFile, str]:
    """The file with a local path to read it from (an S3 object is streamed to the spool) and its sha256."""
    if file.path is not None:
        return file, sha256_file(file.path)
    from tasks.s3 import fetch

    return fetch(file, get_settings().spool, max_file_bytes)


def register_files(files: list[SourceFile], engine: Engine, max_file_bytes: int, claim: Claim,
                   log: logging.Logger | logging.LoggerAdapter | None = None,
                   force: bool = False) -> list[Registered]:
    """Claim a document for every file; a file whose bytes are already known becomes another source.

    A document another run holds an unexpired claim on is left to that run (outcome "duplicate").
    With force, finished documents are parsed again: their stored pages are cleared.
    """
    log = log or logging.getLogger(__name__)
    claimed_now: set[int] = set()
    registered = []
    for number, file in enumerate(files, 1):
        registered.append(_register(file, engine, max_file_bytes, claim, claimed_now, force))
        if number % 25 == 0 or number == len(files):
            log.info("registered %d/%d files", number, len(files))
    return registered


def _register(file: SourceFile, engine: Engine, max_file_bytes: int, claim: Claim,
              claimed_now: set[int], force: bool) -> Registered:
    source = SourceRecord(uri=file.uri, size_bytes=file.size_bytes, modified_at=file.modified_at, etag=file.etag)
    with session_scope(engine) as session:
        known = None if force else unchanged_source(session, source)
    if known is not None:  # a nightly re-listing: the file is as it was, its bytes are not read again
        return Registered(file, known[1], known[0], "duplicate")
    file, sha256 = read_bytes(file, max_file_bytes)
    with session_scope(engine) as session:
        document_id, created = claim_document(session, sha256, source)
        status = "pending" if created else document_status(session, document_id)
        done_before = status in FINISHED and not force
        if document_id in claimed_now or done_before or not claim_for_run(session, document_id, claim):
            return Registered(file, sha256, document_id, "duplicate")
        claimed_now.add(document_id)
        if status in FINISHED:
            clear_pages(session, document_id)
        return start_document(session, file, sha256, document_id, max_file_bytes)


def start_document(session: Session, file: SourceFile, sha256: str, document_id: int,
                   max_file_bytes: int) -> Registered:
    """A first look inside a claimed document's file: its pages to parse, or the document failed."""
    try:
        if file.size_bytes > max_file_bytes:
            raise BadDocument(f"too large: {file.size_bytes} bytes, the limit is {max_file_bytes}")
        info = inspect_document(file.path)
    except BadDocument as error:
        fail_document(session, document_id, str(error))
        return Registered(file, sha256, document_id, "failed")
    start_processing(session, document_id, info.page_count, info.metadata)
    stored = stored_page_numbers(session, document_id)
    todo = tuple(n for n in range(1, info.page_count + 1) if n not in stored)
    return Registered(file, sha256, document_id, "new", todo)


@task(name="register-files", **task_options())
def register(files: list[SourceFile], claim: Claim, force: bool = False) -> list[Registered]:
    settings = get_settings()
    return register_files(files, get_engine(settings), settings.max_file_bytes, claim, get_run_logger(), force)
