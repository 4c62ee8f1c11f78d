"""Engine results turned into database rows; one batch is written in one transaction."""

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import DataError
from sqlalchemy.orm import Session

from db import models
from db.pages import copy_issues, stored_page
from db.session import session_scope
from db.statuses import PageStatus
from db.store import (
    Claim,
    fail_document,
    finish_complete,
    held_documents,
    release_claims,
    renew_claims,
    storable,
    stored_page_numbers,
)
from engine.types import Block, Formula, Line, PageResult, Table, TableCell, Word
from validation.gate import BLOCK, QUARANTINED, Issue, flagged_blocks


@dataclass(frozen=True)
class PageOutcome:
    """What happened to one page of a batch: a result to store, or an error."""

    document_id: int
    page_no: int
    fingerprint: str | None
    result: PageResult | None = None
    error: str | None = None
    reused_from: int | None = None  # a stored page whose result this page copies
    same_as: tuple[int, int] | None = None  # (document id, page no) of a page of this batch with the same result
    issues: tuple[Issue, ...] = ()  # validation checks the result failed, each with what was done about it
    row: models.Page | None = None  # the row it was stored as (save_batch)

    @property
    def quarantined(self) -> bool:
        """Whether validation found nothing on the page to trust: it is stored without blocks."""
        return self.result is not None and any(issue.action == QUARANTINED for issue in self.issues)

    @property
    def flagged_blocks(self) -> int:
        """How many of the page's blocks failed a block-level check and were repaired, demoted or dropped."""
        return flagged_blocks(self.issues) if self.result is not None else 0

    @property
    def failed_checks(self) -> str:
        """The names of the validation checks the result failed, for people."""
        return "; ".join(sorted({issue.check for issue in self.issues}))


@dataclass(frozen=True)
class Saved:
    """What a batch stored: its pages written now, and the documents it found another run had taken over."""

    pages: list[PageOutcome]
    lost: frozenset[int] = frozenset()


def save_batch(database: Engine, outcomes: list[PageOutcome], claim: Claim | None = None,
               failed: dict[int, str] | None = None) -> Saved:
    """Store every page of the batch, or none of them; returns the pages written.

    With the run's claim, only the documents the run holds are touched (`held_documents`, locked for the
    transaction): the pages of one another run took over are not stored, and it is reported lost. A page that
    is already stored (a retried batch, or one stored by the run that took its document over) is left as it is;
    one whose result the database refuses is stored as failed, with why. The documents in `failed` (id: reason)
    are failed; each document whose pages are all stored now gets its final status and its claim released, in
    the same transaction, so that no later failure of the run leaves it unfinished. The run's claims on the
    batch's other documents are renewed.
    """
    failed = failed or {}
    with session_scope(database) as session:
        lost: set[int] = set()
        if claim is not None:
            wanted = {outcome.document_id for outcome in outcomes} | set(failed)
            lost = wanted - held_documents(session, wanted, claim)
            outcomes = [outcome for outcome in outcomes if outcome.document_id not in lost]
            failed = {document_id: why for document_id, why in failed.items() if document_id not in lost}
        stored: dict[int, set[int]] = {}
        rows: dict[tuple[int, int], models.Page] = {}
        kept: list[PageOutcome] = []
        for outcome in outcomes:
            if outcome.document_id not in stored:
                stored[outcome.document_id] = stored_page_numbers(session, outcome.document_id)
            if outcome.page_no in stored[outcome.document_id]:
                continue
            outcome = _add_page(session, outcome)
            rows[outcome.document_id, outcome.page_no] = outcome.row
            kept.append(outcome)
        for outcome in kept:
            original = rows.get(outcome.same_as) if outcome.same_as and outcome.result is not None else None
            if original is not None:
                rows[outcome.document_id, outcome.page_no].reused_from = original.id
        copy_issues(session, {rows[outcome.document_id, outcome.page_no]: outcome.reused_from for outcome in kept
                               if outcome.reused_from is not None and outcome.result is not None})
        for document_id, reason in failed.items():
            fail_document(session, document_id, reason)
        document_ids = {outcome.document_id for outcome in outcomes}
        finished = set(finish_complete(session, document_ids)) | set(failed)
        if claim is not None:
            renew_claims(session, document_ids - finished, claim)
            release_claims(session, list(finished), claim)
    return Saved(kept, frozenset(lost))


def _add_page(session: Session, outcome: PageOutcome) -> PageOutcome:
    """The page's row added (in `row` of the outcome returned); a result the database refuses is stored as the
    page failed with the database's reason."""
    row = page_row(outcome)
    try:
        with session.begin_nested():
            session.add(row)
    except (DataError, ValueError) as error:  # what no sanitizing foresaw must still cost only this page
        detail = getattr(error, "orig", None) or error
        outcome = replace(outcome, result=None, error=storable(f"not storable: {detail}".splitlines()[0]),
                          reused_from=None, same_as=None, issues=())
        row = page_row(outcome)
        session.add(row)
        session.flush()
    return replace(outcome, row=row)


def stored_result(session: Session, page_id: int, key: str) -> PageResult:
    """A stored page read back as the engine's result, to be stored again for a page with its fingerprint."""
    page = stored_page(session, page_id)
    return PageResult(key=key, width=page.width, height=page.height, text_layer=page.text_layer,
                      blocks=[_engine_block(row) for row in page.blocks], engine_version=page.engine_version,
                      stage_seconds={}, layer_trust=page.text_layer_trust)


def _engine_block(row: models.Block) -> Block:
    block = Block(type=row.type, bbox=(row.x0, row.y0, row.x1, row.y1), text=row.text, confidence=row.confidence,
                  order=row.reading_order, lines=[stored_line(record) for record in row.lines])
    if row.table is not None:
        block.table = Table(rows=row.table.n_rows, cols=row.table.n_cols, html=row.table.html, cells=[
            TableCell(row=c.row, col=c.col, text=c.text, row_span=c.row_span, col_span=c.col_span,
                      header=c.is_header) for c in row.table.cells])
    if row.formula is not None:
        block.formula = Formula(latex=row.formula.latex, display=row.formula.display,
                                confidence=row.formula.confidence)
    return block


def page_row(outcome: PageOutcome) -> models.Page:
    result = outcome.result
    if result is None:
        return models.Page(document_id=outcome.document_id, page_no=outcome.page_no, status=PageStatus.FAILED,
                           error=storable(outcome.error or PageStatus.FAILED), fingerprint=outcome.fingerprint)
    if outcome.quarantined:  # nothing of a result without anything to trust reaches the tables but what was wrong
        return models.Page(
            document_id=outcome.document_id, page_no=outcome.page_no, width=result.width, height=result.height,
            text_layer=result.text_layer, text_layer_trust=result.layer_trust, fingerprint=outcome.fingerprint,
            status=PageStatus.QUARANTINED,
            error=f"failed validation: {outcome.failed_checks}",
            engine_version=result.engine_version, parse_seconds=result.seconds,
            issues=[issue_row(issue, []) for issue in outcome.issues],
        )
    blocks = [block_row(block, result.width, result.height) for block in result.blocks]
    return models.Page(
        document_id=outcome.document_id,
        page_no=outcome.page_no,
        width=result.width,
        height=result.height,
        text_layer=result.text_layer,
        text_layer_trust=result.layer_trust,
        fingerprint=outcome.fingerprint,
        status=PageStatus.DONE,
        engine_version=result.engine_version,
        parse_seconds=result.seconds,
        reused_from=outcome.reused_from,
        blocks=blocks,
        issues=[issue_row(issue, blocks) for issue in outcome.issues],  # flagged blocks, a renumbered order
    )


def issue_row(issue: Issue, blocks: list[models.Block]) -> models.PageIssue:
    """A failed check as stored: against the stored block it is about, if that block was kept."""
    block = blocks[issue.position] if issue.scope == BLOCK and issue.position is not None else None
    return models.PageIssue(rule=issue.check, expectation=issue.expectation, blocks=list(issue.blocks),
                            observed=[storable(value) for value in issue.observed], action=issue.action,
                            block=block)


def block_row(block: Block, width: float, height: float) -> models.Block:
    x0, y0, x1, y1 = _clamped(block.bbox, width, height)
    row = models.Block(reading_order=block.order, type=block.type, x0=x0, y0=y0, x1=x1, y1=y1,
                       text=storable(block.text), confidence=block.confidence,
                       lines=[line_record(line, width, height) for line in block.lines])
    if block.table is not None:
        row.table = models.PageTable(
            n_rows=block.table.rows,
            n_cols=block.table.cols,
            html=storable(block.table.html),
            cells=[
                models.TableCell(row=c.row, col=c.col, row_span=c.row_span, col_span=c.col_span,
                                 text=storable(c.text), is_header=c.header)
                for c in block.table.cells
            ],
        )
    if block.formula is not None:
        row.formula = models.Formula(latex=storable(block.formula.latex), display=block.formula.display,
                                     confidence=block.formula.confidence)
    return row


def line_record(line: Line, width: float, height: float) -> dict[str, Any]:
    """A line as `blocks.lines` keeps it: text, box, confidence (None from a text layer) and words with boxes."""
    return {"text": storable(line.text), "bbox": list(_clamped(line.bbox, width, height)),
            "confidence": None if line.confidence is None else round(line.confidence, 4),
            "words": [[storable(word.text), *_clamped(word.bbox, width, height)] for word in line.words]}


def stored_line(record: dict[str, Any]) -> Line:
    """A stored line read back as the engine's (its font size estimated from its box, as OCR's is)."""
    x0, y0, x1, y1 = record["bbox"]
    return Line(text=record["text"], bbox=(x0, y0, x1, y1), size=y1 - y0, confidence=record["confidence"],
                words=[Word(text, (a, b, c, d)) for text, a, b, c, d in record["words"]])


def _clamped(bbox: tuple[float, float, float, float], width: float, height: float) -> tuple[float, ...]:
    """The box inside the page, corners in order, rounded to a hundredth of a point."""
    x0, x1 = sorted((min(max(bbox[0], 0.0), width), min(max(bbox[2], 0.0), width)))
    y0, y1 = sorted((min(max(bbox[1], 0.0), height), min(max(bbox[3], 0.0), height)))
    return tuple(round(v, 2) for v in (x0, y0, x1, y1))
