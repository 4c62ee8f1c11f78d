"""Read-only access for people: one SQL query in a read-only transaction, and status counts."""

from sqlalchemy import Engine, func, select, text

from db.models import SEARCH_CONFIG, Document, Page
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


SEARCH_QUERY = f"""
SELECT d.first_source AS source, p.page_no AS page, b.type,
       round(ts_rank_cd(b.search, q)::numeric, 3) AS rank,
       ts_headline('{SEARCH_CONFIG}', b.text, q, 'StartSel=[, StopSel=], MaxWords=25, MinWords=10') AS snippet
FROM blocks b
JOIN pages p ON p.id = b.page_id
JOIN documents d ON d.id = p.document_id,
     websearch_to_tsquery('{SEARCH_CONFIG}', :query) AS q
WHERE b.search @@ q
ORDER BY rank DESC, d.id, p.page_no, b.reading_order
LIMIT :limit
"""


def search_blocks(query: str, limit: int = 20, engine: Engine | None = None) -> tuple[list[str], list[tuple]]:
    """The blocks that match a web-search style query ("a phrase", or, -word), best first, with a snippet."""
    engine = engine or get_engine()
    with engine.connect() as connection:
        result = connection.execute(text(SEARCH_QUERY), {"query": query, "limit": limit})
        return list(result.keys()), [tuple(row) for row in result]
