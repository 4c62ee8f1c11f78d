"""for the people who use the data: full-text search over block text, views for common questions

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VIEWS = {
    # one row per document: its body text in reading order, page by page (running headers, footers
    # and page numbers left out)
    "document_text": """
        SELECT d.id AS document_id, d.sha256, d.first_source AS source, d.status,
               string_agg(b.text, E'\\n\\n' ORDER BY p.page_no, b.reading_order) AS text
        FROM documents d
        JOIN pages p ON p.document_id = d.id
        JOIN blocks b ON b.page_id = p.id
        WHERE b.type NOT IN ('header', 'footer', 'page_number') AND b.text <> ''
        GROUP BY d.id""",
    # one row per block with its document and page: what full-text search and most questions start from
    "block_details": """
        SELECT b.id AS block_id, d.id AS document_id, d.sha256, d.first_source AS source, p.page_no,
               b.reading_order, b.type, b.text, b.confidence, b.x0, b.y0, b.x1, b.y1, b.search
        FROM blocks b
        JOIN pages p ON p.id = b.page_id
        JOIN documents d ON d.id = p.document_id""",
    # one row per table cell, with its table, page and document
    "table_cell_details": """
        SELECT c.id AS cell_id, t.id AS table_id, b.id AS block_id, d.id AS document_id, d.sha256,
               d.first_source AS source, p.page_no, t.n_rows, t.n_cols, c.row, c.col, c.row_span, c.col_span,
               c.is_header, c.text
        FROM table_cells c
        JOIN tables t ON t.id = c.table_id
        JOIN blocks b ON b.id = t.block_id
        JOIN pages p ON p.id = b.page_id
        JOIN documents d ON d.id = p.document_id""",
    # one row per display formula, with its page and box
    "formula_details": """
        SELECT f.id AS formula_id, b.id AS block_id, d.id AS document_id, d.sha256, d.first_source AS source,
               p.page_no, b.reading_order, f.latex, f.confidence, b.x0, b.y0, b.x1, b.y1
        FROM formulas f
        JOIN blocks b ON b.id = f.block_id
        JOIN pages p ON p.id = b.page_id
        JOIN documents d ON d.id = p.document_id""",
    # one row per document: status, every place it was seen, and its pages by status
    "document_overview": """
        SELECT d.id AS document_id, d.sha256, d.status, d.error, d.page_count, d.size_bytes,
               (SELECT array_agg(s.uri ORDER BY s.first_seen_at) FROM document_sources s
                WHERE s.document_id = d.id) AS sources,
               (SELECT count(*) FROM pages p WHERE p.document_id = d.id AND p.status = 'done') AS pages_done,
               (SELECT count(*) FROM pages p WHERE p.document_id = d.id AND p.status = 'failed') AS pages_failed,
               (SELECT count(*) FROM pages p WHERE p.document_id = d.id AND p.status = 'quarantined')
                   AS pages_quarantined,
               d.created_at AS first_seen_at, d.updated_at
        FROM documents d""",
}


def upgrade() -> None:
    op.add_column("blocks", sa.Column(
        "search", postgresql.TSVECTOR(),
        sa.Computed("to_tsvector('simple'::regconfig, coalesce(text, ''))", persisted=True), nullable=True))
    op.create_index("ix_blocks_search", "blocks", ["search"], unique=False, postgresql_using="gin")
    for name, query in VIEWS.items():
        op.execute(f"CREATE VIEW {name} AS {query}")


def downgrade() -> None:
    for name in reversed(VIEWS):
        op.execute(f"DROP VIEW {name}")
    op.drop_index("ix_blocks_search", table_name="blocks", postgresql_using="gin")
    op.drop_column("blocks", "search")
