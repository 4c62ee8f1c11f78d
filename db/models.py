"""The relational schema: documents, their sources, pages, blocks, tables, cells, formulas, runs."""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Computed,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from db.statuses import DocumentStatus, PageStatus, RunStatus

BLOCK_TYPES = (
    "title", "text", "list_item", "table", "formula", "figure",
    "caption", "header", "footer", "footnote", "page_number",
)


NO_LINES = text("'[]'::jsonb")
SEARCH_CONFIG = "simple"
SEARCH_VECTOR = f"to_tsvector('{SEARCH_CONFIG}'::regconfig, coalesce(text, ''))"


def _allowed(table: str, column: str, values: Iterable[str]) -> CheckConstraint:
    """The check `<table>_<column>_valid` that keeps a vocabulary column inside its values."""
    listed = ", ".join(repr(str(v)) for v in values)
    return CheckConstraint(f"{column} IN ({listed})", name=f"{table}_{column}_valid")


def _fraction(table: str, column: str) -> CheckConstraint:
    """The check `<table>_<column>_range`: the column is empty or between 0 and 1."""
    return CheckConstraint(f"{column} IS NULL OR {column} BETWEEN 0 AND 1", name=f"{table}_{column}_range")


class Base(DeclarativeBase):
    """Every table's base. A rule on one column is declared with the column, a rule on several in the table's
    `__table_args__`."""


class Document(Base):
    """One distinct file, by the sha256 of its bytes."""

    __tablename__ = "documents"
    __table_args__ = (Index("ix_documents_claimed_by", "claimed_by", postgresql_where=text("claimed_by IS NOT NULL")),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(16), _allowed("documents", "status", DocumentStatus),
                                        default=DocumentStatus.PENDING, index=True)
    error: Mapped[str | None] = mapped_column(Text)
    page_count: Mapped[int | None] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    first_source: Mapped[str] = mapped_column(Text)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSONB, default=dict)
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )

    sources: Mapped[list["DocumentSource"]] = relationship(back_populates="document", order_by="DocumentSource.id")
    pages: Mapped[list["Page"]] = relationship(back_populates="document", order_by="Page.page_no")


class DocumentSource(Base):
    """A path or URI at which a document's bytes were seen."""

    __tablename__ = "document_sources"
    __table_args__ = (UniqueConstraint("document_id", "uri", name="document_sources_document_uri_key"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    uri: Mapped[str] = mapped_column(Text, index=True)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    modified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    etag: Mapped[str | None] = mapped_column(Text)
    first_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    document: Mapped[Document] = relationship(back_populates="sources")


class Page(Base):
    """One page of a document and how it was read."""

    __tablename__ = "pages"
    __table_args__ = (UniqueConstraint("document_id", "page_no", name="pages_document_page_key"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    page_no: Mapped[int] = mapped_column(Integer, CheckConstraint("page_no >= 1", name="pages_page_no_positive"))
    width: Mapped[float | None] = mapped_column(Float)  # None only for a page that failed to load
    height: Mapped[float | None] = mapped_column(Float)
    text_layer: Mapped[bool | None] = mapped_column(Boolean)
    # the text layer's verdict (trusted/untrusted), its reason and measures (engine/layer_trust.py)
    text_layer_trust: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    fingerprint: Mapped[str | None] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), _allowed("pages", "status", PageStatus))
    error: Mapped[str | None] = mapped_column(Text)
    engine_version: Mapped[str | None] = mapped_column(Text)  # "0.3.1+<12 hex>", "vlm:<model>:<format>:0.3.1+<12 hex>"
    parse_seconds: Mapped[float | None] = mapped_column(Float)
    reused_from: Mapped[int | None] = mapped_column(  # the page whose stored result this one copies
        ForeignKey("pages.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    document: Mapped[Document] = relationship(back_populates="pages")
    blocks: Mapped[list["Block"]] = relationship(
        back_populates="page", order_by="Block.reading_order", cascade="all, delete-orphan"
    )
    issues: Mapped[list["PageIssue"]] = relationship(
        back_populates="page", order_by="PageIssue.id", cascade="all, delete-orphan"
    )


class PageIssue(Base):
    """A validation check a page's output failed: which, on which block, with what values, and what was done.

    A flagged block's row points at the block as stored (repaired or kept as text); a block that was
    dropped, a renumbered reading order and the checks of a quarantined page point at no block.
    """

    __tablename__ = "page_issues"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"), index=True)
    rule: Mapped[str] = mapped_column(Text)  # the check's name, e.g. "box inside the page"
    expectation: Mapped[str] = mapped_column(Text)  # the Great Expectations expectation behind it
    blocks: Mapped[list[int]] = mapped_column(JSONB)  # the engine's block indices; -1 is the page itself
    observed: Mapped[list[str]] = mapped_column(JSONB)  # the offending values, at most 20
    action: Mapped[str] = mapped_column(Text)  # what was done: "page quarantined", "kept as text", "block dropped", …
    block_id: Mapped[int | None] = mapped_column(ForeignKey("blocks.id", ondelete="SET NULL"), index=True)

    page: Mapped[Page] = relationship(back_populates="issues")
    block: Mapped["Block | None"] = relationship()


class Block(Base):
    """A layout region of a page, in reading order; bbox in PDF points from the top-left."""

    __tablename__ = "blocks"
    __table_args__ = (
        UniqueConstraint("page_id", "reading_order", name="blocks_page_order_key"),
        CheckConstraint("x0 <= x1 AND y0 <= y1", name="blocks_bbox_ordered"),
        Index("ix_blocks_search", "search", postgresql_using="gin"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    page_id: Mapped[int] = mapped_column(ForeignKey("pages.id", ondelete="CASCADE"))
    reading_order: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(16), _allowed("blocks", "type", BLOCK_TYPES))
    x0: Mapped[float] = mapped_column(Float)
    y0: Mapped[float] = mapped_column(Float)
    x1: Mapped[float] = mapped_column(Float)
    y1: Mapped[float] = mapped_column(Float)
    text: Mapped[str] = mapped_column(Text, default="")
    confidence: Mapped[float | None] = mapped_column(Float, _fraction("blocks", "confidence"))
    # the block's lines as the engine read them: [{"text", "bbox": [x0, y0, x1, y1], "confidence" (OCR; null from a
    # text layer), "words": [[text, x0, y0, x1, y1], ...]}, ...] in reading order (pages/rows.py)
    lines: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list, server_default=NO_LINES, deferred=True)
    # kept in step with `text` by PostgreSQL itself; 'simple': words as written, no stemming (any language)
    search: Mapped[Any] = mapped_column(TSVECTOR, Computed(SEARCH_VECTOR, persisted=True), deferred=True)

    page: Mapped[Page] = relationship(back_populates="blocks")
    table: Mapped["PageTable | None"] = relationship(back_populates="block", cascade="all, delete-orphan")
    formula: Mapped["Formula | None"] = relationship(back_populates="block", cascade="all, delete-orphan")


class PageTable(Base):
    """The structure of a table block (SQL name: tables)."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    block_id: Mapped[int] = mapped_column(ForeignKey("blocks.id", ondelete="CASCADE"), unique=True)
    n_rows: Mapped[int] = mapped_column(Integer)
    n_cols: Mapped[int] = mapped_column(Integer)
    html: Mapped[str] = mapped_column(Text)

    block: Mapped[Block] = relationship(back_populates="table")
    cells: Mapped[list["TableCell"]] = relationship(
        back_populates="table", order_by="(TableCell.row, TableCell.col)", cascade="all, delete-orphan"
    )


class TableCell(Base):
    """One cell of a table, at its top-left grid slot, with its spans."""

    __tablename__ = "table_cells"
    __table_args__ = (
        UniqueConstraint("table_id", "row", "col", name="table_cells_slot_key"),
        CheckConstraint("row >= 0 AND col >= 0 AND row_span >= 1 AND col_span >= 1", name="table_cells_grid_valid"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    row: Mapped[int] = mapped_column(Integer)
    col: Mapped[int] = mapped_column(Integer)
    row_span: Mapped[int] = mapped_column(Integer, default=1)
    col_span: Mapped[int] = mapped_column(Integer, default=1)
    text: Mapped[str] = mapped_column(Text, default="")
    is_header: Mapped[bool] = mapped_column(Boolean, default=False)

    table: Mapped[PageTable] = relationship(back_populates="cells")


class Formula(Base):
    """The LaTeX of a display-formula block."""

    __tablename__ = "formulas"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    block_id: Mapped[int] = mapped_column(ForeignKey("blocks.id", ondelete="CASCADE"), unique=True)
    latex: Mapped[str] = mapped_column(Text)
    display: Mapped[bool] = mapped_column(Boolean, default=True)
    confidence: Mapped[float | None] = mapped_column(Float, _fraction("formulas", "confidence"))

    block: Mapped[Block] = relationship(back_populates="formula")


class Run(Base):
    """One run of the digitize flow and what became of every file it listed.

    Its status is running, completed, failed, or crashed: its process died, as the next folio command found.
    """

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    flow_run_id: Mapped[str | None] = mapped_column(String(64), index=True)
    source: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=RunStatus.RUNNING)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    files_listed: Mapped[int] = mapped_column(Integer, default=0)
    documents_done: Mapped[int] = mapped_column(Integer, default=0)
    documents_duplicate: Mapped[int] = mapped_column(Integer, default=0)
    documents_failed: Mapped[int] = mapped_column(Integer, default=0)
    documents_quarantined: Mapped[int] = mapped_column(Integer, default=0)
    documents_reused: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    documents_unchanged: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    pages_parsed: Mapped[int] = mapped_column(Integer, default=0)
    pages_reused: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    seconds: Mapped[float | None] = mapped_column(Float)
    # the process running the flow (the latest one, when the flow run was retried) and its last sign of life
    host: Mapped[str | None] = mapped_column(Text)  # its host name, for people
    machine: Mapped[str | None] = mapped_column(Text)  # processes with the same machine see each other's pids
    pid: Mapped[int | None] = mapped_column(Integer)
    pid_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

