"""crash recovery: the process running each run (machine, pid and its start) and its last heartbeat

Revision ID: 0007
Revises: 0006
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (("host", sa.Text()), ("machine", sa.Text()), ("pid", sa.Integer()),
           ("pid_started_at", sa.DateTime(timezone=True)), ("heartbeat_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    for name, kind in COLUMNS:
        op.add_column("runs", sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    for name, _ in reversed(COLUMNS):
        op.drop_column("runs", name)
