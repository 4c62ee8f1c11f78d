"""The JSON export (shared/contract/export-format.md), read back from PostgreSQL, of every document or those a
filter chooses; other formats render the same dictionaries (the archival ones, ALTO and the searchable PDF, with each
block's lines and every place the document was seen: `full`)."""

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, selectinload

from db.documents import EVERY_DOCUMENT, DocumentFilter, NoSuchDocument, find_document_id
from db.models import Block, Document, Page, PageTable
from db.statuses import FINISHED

_LOAD = (
    selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.table).selectinload(PageTable.cells),
    selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.formula),
)
_FULL = (selectinload(Document.pages).selectinload(Page.blocks).undefer(Block.lines),
         selectinload(Document.sources))


def document_export(document: Document, full: bool = False) -> dict[str, Any]:
    """One document with its pages and blocks, in the export format; `full`: with each block's `lines` (as
    `blocks.lines` holds them) and the document's `sources` (every URI it was seen at, first seen first)."""
    out = {
        "document": {
            "sha256": document.sha256,
            "source": document.first_source,
            "page_count": document.page_count or 0,
            "status": document.status,
            "error": document.error,
        },
        "pages": [_page(page, full) for page in document.pages],
    }
    if full:
        out["document"]["sources"] = [source.uri for source in document.sources]
    return out


def _page(page: Page, full: bool) -> dict[str, Any]:
    out = {
        "page_no": page.page_no,
        "width": page.width,
        "height": page.height,
        "text_layer": page.text_layer,
        "fingerprint": page.fingerprint,
        "status": page.status,
        "error": page.error,
        "blocks": [_block(block, full) for block in page.blocks],
    }
    if full:
        out["engine_version"] = page.engine_version
    return out


def _block(block: Block, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "order": block.reading_order,
        "type": block.type,
        "bbox": [block.x0, block.y0, block.x1, block.y1],
        "text": block.text,
    }
    if full:
        out["lines"] = block.lines
    if block.confidence is not None:
        out["confidence"] = block.confidence
    if block.table is not None:
        out["table"] = {
            "rows": block.table.n_rows,
            "cols": block.table.n_cols,
            "html": block.table.html,
            "cells": [
                {"row": c.row, "col": c.col, "row_span": c.row_span, "col_span": c.col_span,
                 "text": c.text, "header": c.is_header}
                for c in block.table.cells
            ],
        }
    if block.type == "formula":
        out["latex"] = block.formula.latex if block.formula is not None else None
        out["display"] = block.formula.display if block.formula is not None else True
    return out


def json_body(export: dict[str, Any]) -> str:
    """A document's export as the contract's JSON."""
    return json.dumps(export, ensure_ascii=False, indent=1) + "\n"


def exported_ids(session: Session, chosen: DocumentFilter = EVERY_DOCUMENT) -> list[int]:
    """The finished documents the filter chooses, in id order; NoSuchDocument for an id that is not stored."""
    if chosen.ids:
        chosen.check_ids(session)
    return list(session.execute(
        select(Document.id).where(Document.status.in_(FINISHED), *chosen.conditions()).order_by(Document.id)
    ).scalars())


def iter_exports(session: Session, ids: list[int] | None = None, batch: int = 50,
                 full: bool = False) -> Iterator[dict[str, Any]]:
    """These documents' exports (default: every finished document's), loaded a few documents at a time; `full`:
    see document_export."""
    ids = exported_ids(session) if ids is None else ids
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        loads = (*_LOAD, *_FULL) if full else _LOAD
        documents = session.execute(
            select(Document).where(Document.id.in_(chunk)).order_by(Document.id).options(*loads)
        ).scalars()
        for document in documents:
            yield document_export(document, full)
        session.expunge_all()


# A document's export rendered as text or bytes; None leaves the document out (the renderer said why)
Render = Callable[[dict[str, Any]], str | bytes | None]


def export_files(database: Engine, chosen: DocumentFilter = EVERY_DOCUMENT, render: Render = json_body,
                 suffix: str = ".json", full: bool = False) -> Iterator[tuple[str, bytes]]:
    """(<sha256><suffix>, its bytes) for every finished document the filter chooses and the renderer renders."""
    with Session(database) as session:
        for export in iter_exports(session, exported_ids(session, chosen), full=full):
            body = render(export)
            if body is not None:
                yield f"{export['document']['sha256']}{suffix}", body.encode("utf-8") if isinstance(body, str) else body


def write_exports(database: Engine, out_dir: Path, chosen: DocumentFilter = EVERY_DOCUMENT,
                  render: Render = json_body, suffix: str = ".json", full: bool = False) -> int:
    """Write <sha256><suffix> for every finished document the filter chooses; returns how many were written."""
    count = 0
    for name, body in export_files(database, chosen, render, suffix, full):
        if not count:  # made only once a document is chosen: a filter that fails leaves nothing behind
            out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / name).write_bytes(body)
        count += 1
    return count


def one_export(database: Engine, chosen: DocumentFilter = EVERY_DOCUMENT, reference: str | None = None,
               full: bool = False) -> dict:
    """The export of the document a reference names (path, sha256 or prefix), else of the one the filter chooses."""
    with Session(database) as session:
        ids = [find_document_id(session, reference)] if reference is not None else exported_ids(session, chosen)
        if len(ids) != 1:
            raise NoSuchDocument(f"{len(ids) or 'no'} finished documents match, not one: choose one with the filters"
                                 " (--id, --sha256, --source, --since)")
        [export] = iter_exports(session, ids, full=full)
    return export
