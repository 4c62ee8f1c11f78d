"""Choosing finished documents to parse again, and clearing their stored pages under this run's claim."""

import logging
from pathlib import Path

from sqlalchemy import Engine

from base.engines import engine_identity
from base.settings import get_settings
from db.session import session_scope
from db.statuses import Registration
from db.store import (
    Claim,
    Selection,
    SourceFile,
    claim_for_run,
    clear_pages,
    document_sha256,
    document_sources,
    documents_to_reprocess,
    fail_document,
)
from runs.register import Registered, read_bytes, start_document
from sources.failures import BadDocument
from sources.files import FileIdentity
from sources.listing import list_source, uri_path


def select_documents(database: Engine, selection: Selection) -> list[int]:
    """Ids of the documents the selection names, judged against the configured engine's version (its identity)."""
    with session_scope(database) as session:
        return documents_to_reprocess(session, selection, engine_identity().version)


def reopen_documents(document_ids: list[int], database: Engine, max_file_bytes: int, claim: Claim,
                     log: logging.Logger | logging.LoggerAdapter | None = None) -> list[Registered]:
    """Claim each document, find a file with its bytes, delete its stored pages and list them all to parse.

    A document another run holds is left to it (a duplicate); one whose bytes are no longer at any of
    its sources is failed with that reason, its stored pages kept.
    """
    log = log or logging.getLogger(__name__)
    return [_reopen(database, document_id, max_file_bytes, claim, log) for document_id in document_ids]


def _reopen(database: Engine, document_id: int, max_file_bytes: int, claim: Claim,
            log: logging.Logger | logging.LoggerAdapter) -> Registered:
    with session_scope(database) as session:
        sha256, uris = document_sha256(session, document_id), document_sources(session, document_id)
    found = file_with_bytes(uris, sha256, max_file_bytes, get_settings().run_spool(claim.claimant))
    with session_scope(database) as session:
        if not claim_for_run(session, document_id, claim):
            return Registered(found[0] if found else _vanished(uris[0]), sha256, document_id, Registration.DUPLICATE)
        if found is None:
            fail_document(session, document_id, "no source holds these bytes any more: " + ", ".join(uris))
            return Registered(_vanished(uris[0]), sha256, document_id, Registration.FAILED)
        cleared = clear_pages(session, document_id)
    file, identity = found
    log.info("document %d: %d stored pages cleared, reading %s again", document_id, cleared, file.uri)
    return start_document(database, file, sha256, document_id, max_file_bytes, identity)


def file_with_bytes(uris: list[str], sha256: str, max_file_bytes: int,
                    spool: Path) -> tuple[SourceFile, FileIdentity] | None:
    """The first source still holding exactly these bytes, with its identity (an S3 object streamed to `spool`)."""
    for uri in uris:
        try:
            (file,) = list_source(uri)
            file, found, identity = read_bytes(file, max_file_bytes, spool)
        except (FileNotFoundError, NotImplementedError, ValueError, BadDocument):
            continue
        if found == sha256:
            return file, identity
    return None


def _vanished(uri: str) -> SourceFile:
    return SourceFile(uri=uri, path=uri_path(uri), size_bytes=0, modified_at=None)
