"""initial schema

Revision ID: 0001
Revises: 
Create Date: 2026-12-02 14:33:07.188601
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('documents',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('page_count', sa.Integer(), nullable=True),
    sa.Column('size_bytes', sa.BigInteger(), nullable=False),
    sa.Column('first_source', sa.Text(), nullable=False),
    sa.Column('metadata', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('claimed_by', sa.String(length=64), nullable=True),
    sa.Column('claimed_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('pending', 'processing', 'done', 'failed', 'quarantined')", name='documents_status_valid'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256')
    )
    op.create_index(op.f('ix_documents_status'), 'documents', ['status'], unique=False)
    op.create_table('runs',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('flow_run_id', sa.String(length=64), nullable=True),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('files_listed', sa.Integer(), nullable=False),
    sa.Column('documents_done', sa.Integer(), nullable=False),
    sa.Column('documents_duplicate', sa.Integer(), nullable=False),
    sa.Column('documents_failed', sa.Integer(), nullable=False),
    sa.Column('documents_quarantined', sa.Integer(), nullable=False),
    sa.Column('pages_parsed', sa.Integer(), nullable=False),
    sa.Column('seconds', sa.Float(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_runs_flow_run_id'), 'runs', ['flow_run_id'], unique=False)
    op.create_table('document_sources',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('document_id', sa.BigInteger(), nullable=False),
    sa.Column('uri', sa.Text(), nullable=False),
    sa.Column('size_bytes', sa.BigInteger(), nullable=False),
    sa.Column('modified_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('etag', sa.Text(), nullable=True),
    sa.Column('first_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('document_id', 'uri', name='document_sources_document_uri_key')
    )
    op.create_index(op.f('ix_document_sources_uri'), 'document_sources', ['uri'], unique=False)
    op.create_table('pages',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('document_id', sa.BigInteger(), nullable=False),
    sa.Column('page_no', sa.Integer(), nullable=False),
    sa.Column('width', sa.Float(), nullable=True),
    sa.Column('height', sa.Float(), nullable=True),
    sa.Column('text_layer', sa.Boolean(), nullable=True),
    sa.Column('fingerprint', sa.String(length=64), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('engine_version', sa.String(length=32), nullable=True),
    sa.Column('parse_seconds', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.CheckConstraint("status IN ('done', 'failed', 'quarantined')", name='pages_status_valid'),
    sa.CheckConstraint('page_no >= 1', name='pages_page_no_positive'),
    sa.ForeignKeyConstraint(['document_id'], ['documents.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('document_id', 'page_no', name='pages_document_page_key')
    )
    op.create_index(op.f('ix_pages_fingerprint'), 'pages', ['fingerprint'], unique=False)
    op.create_table('blocks',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('page_id', sa.BigInteger(), nullable=False),
    sa.Column('reading_order', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=16), nullable=False),
    sa.Column('x0', sa.Float(), nullable=False),
    sa.Column('y0', sa.Float(), nullable=False),
    sa.Column('x1', sa.Float(), nullable=False),
    sa.Column('y1', sa.Float(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=True),
    sa.CheckConstraint("type IN ('title', 'text', 'list_item', 'table', 'formula', 'figure', 'caption', 'header', 'footer', 'footnote', 'page_number')", name='blocks_type_valid'),
    sa.CheckConstraint('confidence IS NULL OR confidence BETWEEN 0 AND 1', name='blocks_confidence_range'),
    sa.CheckConstraint('x0 <= x1 AND y0 <= y1', name='blocks_bbox_ordered'),
    sa.ForeignKeyConstraint(['page_id'], ['pages.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('page_id', 'reading_order', name='blocks_page_order_key')
    )
    op.create_table('formulas',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('block_id', sa.BigInteger(), nullable=False),
    sa.Column('latex', sa.Text(), nullable=False),
    sa.Column('display', sa.Boolean(), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=True),
    sa.CheckConstraint('confidence IS NULL OR confidence BETWEEN 0 AND 1', name='formulas_confidence_range'),
    sa.ForeignKeyConstraint(['block_id'], ['blocks.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('block_id')
    )
    op.create_table('tables',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('block_id', sa.BigInteger(), nullable=False),
    sa.Column('n_rows', sa.Integer(), nullable=False),
    sa.Column('n_cols', sa.Integer(), nullable=False),
    sa.Column('html', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['block_id'], ['blocks.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('block_id')
    )
    op.create_table('table_cells',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('table_id', sa.BigInteger(), nullable=False),
    sa.Column('row', sa.Integer(), nullable=False),
    sa.Column('col', sa.Integer(), nullable=False),
    sa.Column('row_span', sa.Integer(), nullable=False),
    sa.Column('col_span', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('is_header', sa.Boolean(), nullable=False),
    sa.CheckConstraint('row >= 0 AND col >= 0 AND row_span >= 1 AND col_span >= 1', name='table_cells_grid_valid'),
    sa.ForeignKeyConstraint(['table_id'], ['tables.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('table_id', 'row', 'col', name='table_cells_slot_key')
    )


def downgrade() -> None:
    op.drop_table('table_cells')
    op.drop_table('tables')
    op.drop_table('formulas')
    op.drop_table('blocks')
    op.drop_index(op.f('ix_pages_fingerprint'), table_name='pages')
    op.drop_table('pages')
    op.drop_index(op.f('ix_document_sources_uri'), table_name='document_sources')
    op.drop_table('document_sources')
    op.drop_index(op.f('ix_runs_flow_run_id'), table_name='runs')
    op.drop_table('runs')
    op.drop_index(op.f('ix_documents_status'), table_name='documents')
    op.drop_table('documents')
