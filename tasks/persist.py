"""Engine results turned into database rows; one batch is written in one transaction."""

from dataclasses import dataclass

from sqlalchemy import Engine

from db import models
from db.session import session_scope
from db.store import stored_page_numbers
from engine.types import Block, PageResult


@dataclass(frozen=True)
class PageOutcome:
    """What happened to one page of a batch: a result to store, or an error."""

    document_id: int
    page_no: int
    fingerprint: str | None
    result: PageResult | None = None
    error: str | None = None


def save_batch(engine: Engine, outcomes: list[PageOutcome]) -> int:
    """Store every page of the batch, or none of them; returns how many pages were written.

    A page that is already stored (a retried batch) is left as it is.
    """
    written = 0
    with session_scope(engine) as session:
        stored: dict[int, set[int]] = {}
        for outcome in outcomes:
            if outcome.document_id not in stored:
                stored[outcome.document_id] = stored_page_numbers(session, outcome.document_id)
            if outcome.page_no in stored[outcome.document_id]:
                continue
            session.add(page_row(outcome))
            written += 1
    return written


def page_row(outcome: PageOutcome) -> models.Page:
    result = outcome.result
    if result is None:
        return models.Page(document_id=outcome.document_id, page_no=outcome.page_no, status="failed",
                           error=outcome.error, fingerprint=outcome.fingerprint)
    return models.Page(
        document_id=outcome.document_id,
        page_no=outcome.page_no,
        width=result.width,
        height=result.height,
        text_layer=result.text_layer,
        fingerprint=outcome.fingerprint,
        status="done",
        engine_version=result.engine_version,
        parse_seconds=result.seconds,
        blocks=[block_row(block, result.width, result.height) for block in result.blocks],
    )


def block_row(block: Block, width: float, height: float) -> models.Block:
    x0, y0, x1, y1 = _clamped(block.bbox, width, height)
    row = models.Block(reading_order=block.order, type=block.type, x0=x0, y0=y0, x1=x1, y1=y1,
                       text=block.text, confidence=block.confidence)
    if block.table is not None:
        row.table = models.PageTable(
            n_rows=block.table.rows,
            n_cols=block.table.cols,
            html=block.table.html,
            cells=[
                models.TableCell(row=c.row, col=c.col, row_span=c.row_span, col_span=c.col_span,
                                 text=c.text, is_header=c.header)
                for c in block.table.cells
            ],
        )
    if block.formula is not None:
        row.formula = models.Formula(latex=block.formula.latex, display=block.formula.display,
                                     confidence=block.formula.confidence)
    return row


def _clamped(bbox: tuple[float, float, float, float], width: float, height: float) -> tuple[float, ...]:
    """The box inside the page, corners in order, rounded to a hundredth of a point."""
    x0, x1 = sorted((min(max(bbox[0], 0.0), width), min(max(bbox[2], 0.0), width)))
    y0, y1 = sorted((min(max(bbox[1], 0.0), height), min(max(bbox[3], 0.0), height)))
    return tuple(round(v, 2) for v in (x0, y0, x1, y1))
