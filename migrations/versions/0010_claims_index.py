"""claims index: the documents a run holds, found without a scan of every document (each heartbeat renews them)

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_documents_claimed_by", "documents", ["claimed_by"],
                    postgresql_where="claimed_by IS NOT NULL")


def downgrade() -> None:
    op.drop_index("ix_documents_claimed_by", table_name="documents")
