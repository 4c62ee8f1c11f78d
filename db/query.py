"""Read-only access for people: one SQL query in a read-only transaction, and status counts."""

from sqlalchemy import Engine, func, select, text

from db.models import Document, Page
from db.session import get_engine

STATEMENT_TIMEOUT_MS = 300_000


def read_only_query(query: str, limit: int = 1000, engine: Engine | None = None) -> tuple[list[str], list[tuple]]:
    """Column names and up to `limit` rows; any write is refused by PostgreSQL itself."""
    engine = engine or get_engine()
    with engine.connect() as connection:
        connection = connection.execution_options(postgresql_readonly=True)
        with connection.begin() as transaction:
            connection.execute(text(f"SET LOCAL statement_timeout = {STATEMENT_TIMEOUT_MS}"))
            result = connection.execute(text(query))
            if not result.returns_rows:
                transaction.rollback()
                return ["result"], [("statement returned no rows",)]
            columns = list(result.keys())
            rows = [tuple(row) for row in result.fetchmany(limit)]
            transaction.rollback()
    return columns, rows


def status_counts(engine: Engine | None = None) -> dict[str, list[tuple[str, int]]]:
    """{"documents": [(status, n), ...], "pages": [...]}."""
    engine = engine or get_engine()
    with engine.connect() as connection:
        return {
            name: [tuple(row) for row in connection.execute(
                select(column, func.count()).group_by(column).order_by(column))]
            for name, column in (("documents", Document.status), ("pages", Page.status))
        }
