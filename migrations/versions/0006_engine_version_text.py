"""pages.engine_version as text: a VLM engine's version names its model (vlm:<model>:<format>:<engine version>)

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.alter_column("pages", "engine_version", type_=sa.Text(), existing_type=sa.String(length=32),
                    existing_nullable=True)


def downgrade() -> None:
    # versions longer than the old column are cut, not refused: they can only name a VLM engine's pages
    op.alter_column("pages", "engine_version", type_=sa.String(length=32), existing_type=sa.Text(),
                    existing_nullable=True, postgresql_using="left(engine_version, 32)")
