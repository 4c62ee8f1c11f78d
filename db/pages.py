"""Reads of stored pages for reuse: a parsed page by fingerprint and pipeline version, its result read back whole,
and its failed checks copied to the pages that reuse it."""

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from db import models
from db.statuses import PageStatus


def reusable_pages(session: Session, fingerprints: set[str], engine_version: str) -> dict[str, int]:
    """For each fingerprint with a parsed page stored by this engine version: that page's id."""
    if not fingerprints:
        return {}
    rows = session.execute(
        select(models.Page.fingerprint, models.Page.id)
        .where(models.Page.fingerprint.in_(fingerprints), models.Page.status == PageStatus.DONE,
               models.Page.engine_version == engine_version)
        .order_by(models.Page.id)
    ).all()
    found: dict[str, int] = {}
    for fingerprint, page_id in rows:
        found.setdefault(fingerprint, page_id)
    return found


def stored_page(session: Session, page_id: int) -> models.Page:
    """A stored page with its blocks and their lines, their tables with cells and their formulas loaded."""
    return session.execute(
        select(models.Page).where(models.Page.id == page_id).options(
            selectinload(models.Page.blocks).undefer(models.Block.lines),
            selectinload(models.Page.blocks).selectinload(models.Block.table).selectinload(models.PageTable.cells),
            selectinload(models.Page.blocks).selectinload(models.Block.formula),
        )
    ).scalar_one()


def copy_issues(session: Session, copies: dict[models.Page, int]) -> None:
    """Pages that copy a stored page's result get its issues too, each against the same block (by reading order)."""
    if not copies:
        return
    found: dict[int, list[models.PageIssue]] = {}
    for issue in session.execute(select(models.PageIssue).where(models.PageIssue.page_id.in_(set(copies.values())))
                                 .options(selectinload(models.PageIssue.block))
                                 .order_by(models.PageIssue.id)).scalars():
        found.setdefault(issue.page_id, []).append(issue)
    for page, origin in copies.items():
        by_order = {block.reading_order: block for block in page.blocks}
        for issue in found.get(origin, []):
            session.add(models.PageIssue(
                page=page, rule=issue.rule, expectation=issue.expectation, blocks=list(issue.blocks),
                observed=list(issue.observed), action=issue.action,
                block=by_order.get(issue.block.reading_order) if issue.block is not None else None))
