"""page reuse: pages copied from a stored page with the same fingerprint; reused pages and documents per run

Revision ID: 0002
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("pages", sa.Column("reused_from", sa.BigInteger(), nullable=True))
    op.create_foreign_key("pages_reused_from_fkey", "pages", "pages", ["reused_from"], ["id"], ondelete="SET NULL")
    op.add_column("runs", sa.Column("documents_reused", sa.Integer(), server_default="0", nullable=False))
    op.add_column("runs", sa.Column("pages_reused", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("runs", "pages_reused")
    op.drop_column("runs", "documents_reused")
    op.drop_constraint("pages_reused_from_fkey", "pages", type_="foreignkey")
    op.drop_column("pages", "reused_from")
