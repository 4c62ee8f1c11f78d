"""The JSON export (shared/contract/export-format.md), read back from PostgreSQL."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, selectinload

from db.models import Block, Document, Page, PageTable

_LOAD = (
    selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.table).selectinload(PageTable.cells),
    selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.formula),
)
EXPORTED_STATUSES = ("done", "failed", "quarantined")


def document_export(document: Document) -> dict[str, Any]:
    """One document with its pages and blocks, in the export format."""
    return {
        "document": {
            "sha256": document.sha256,
            "source": document.first_source,
            "page_count": document.page_count or 0,
            "status": document.status,
            "error": document.error,
        },
        "pages": [_page(page) for page in document.pages],
    }


def _page(page: Page) -> dict[str, Any]:
    return {
        "page_no": page.page_no,
        "width": page.width,
        "height": page.height,
        "text_layer": page.text_layer,
        "fingerprint": page.fingerprint,
        "status": page.status,
        "error": page.error,
        "blocks": [_block(block) for block in page.blocks],
    }


def _block(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {
        "order": block.reading_order,
        "type": block.type,
        "bbox": [block.x0, block.y0, block.x1, block.y1],
        "text": block.text,
    }
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


def iter_exports(session: Session, batch: int = 50) -> Iterator[dict[str, Any]]:
    """Every finished document's export, loaded a few documents at a time."""
    ids = list(
        session.execute(
            select(Document.id).where(Document.status.in_(EXPORTED_STATUSES)).order_by(Document.id)
        ).scalars()
    )
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        documents = session.execute(
            select(Document).where(Document.id.in_(chunk)).order_by(Document.id).options(*_LOAD)
        ).scalars()
        for document in documents:
            yield document_export(document)
        session.expunge_all()


def export_files(engine: Engine) -> Iterator[tuple[str, bytes]]:
    """(<sha256>.json, its bytes) for every finished document."""
    with Session(engine) as session:
        for export in iter_exports(session):
            body = json.dumps(export, ensure_ascii=False, indent=1) + "\n"
            yield f"{export['document']['sha256']}.json", body.encode("utf-8")


def write_exports(engine: Engine, out_dir: Path) -> int:
    """Write <sha256>.json for every finished document; returns how many were written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, body in export_files(engine):
        (out_dir / name).write_bytes(body)
        count += 1
    return count
