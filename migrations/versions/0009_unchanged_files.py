"""unchanged files: listed files seen before at the same path as they were then, not read again, per run

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("documents_unchanged", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("runs", "documents_unchanged")
