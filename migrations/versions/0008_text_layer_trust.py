"""pages.text_layer_trust: whether the page's text layer was used, why, and the measures behind the decision

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("pages", sa.Column("text_layer_trust", JSONB(), nullable=True))


def downgrade() -> None:
    op.drop_column("pages", "text_layer_trust")
