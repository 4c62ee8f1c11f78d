"""validation per block: what was done about each failed check, and the stored block it is about

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # every issue stored before this revision belongs to a quarantined page
    op.add_column("page_issues", sa.Column("action", sa.Text(), server_default="page quarantined", nullable=False))
    op.alter_column("page_issues", "action", server_default=None)
    op.add_column("page_issues", sa.Column("block_id", sa.BigInteger(), nullable=True))
    op.create_foreign_key("page_issues_block_id_fkey", "page_issues", "blocks", ["block_id"], ["id"],
                          ondelete="SET NULL")
    op.create_index(op.f("ix_page_issues_block_id"), "page_issues", ["block_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_page_issues_block_id"), table_name="page_issues")
    op.drop_constraint("page_issues_block_id_fkey", "page_issues", type_="foreignkey")
    op.drop_column("page_issues", "block_id")
    op.drop_column("page_issues", "action")
