"""Read-only access for people: one SQL statement as the read-only role, status counts, full-text search."""

import json
from decimal import Decimal
from functools import partial

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg.types.json import set_json_loads
from psycopg.types.string import TextLoader
from sqlalchemy import Engine, func, select, text

from db.models import SEARCH_CONFIG, Document, Page
from db.roles import reader_connection


class QueryRefused(Exception):
    """`folio sql` does not run this query; the message says why."""


def read_only_query(database: Engine, query: str, secret: str, timeout_seconds: float,
                    limit: int | None = 1000) -> tuple[list[str], list[tuple]]:
    """Column names and up to `limit` rows (None: all) of one statement, run as folio_reader in a read-only
    transaction; no columns for a statement that returns no rows.

    The text goes to PostgreSQL unchanged (no parameters are parsed from it, so ':name' and '%' are literal) in the
    extended protocol, which takes one statement only. folio_reader may SELECT folio's tables and nothing else:
    writes, COPY to a program or file, and the server's files are refused by PostgreSQL itself. Values keep what
    they hold: json and jsonb with their numbers as Decimal, intervals as ISO 8601 text (P1Y2M3DT4H), dates
    and timestamps that Python cannot hold (infinity, after 9999) as PostgreSQL writes them.
    """
    with reader_connection(database, secret, timeout_seconds) as connection:
        set_json_loads(partial(json.loads, parse_float=Decimal), context=connection)
        connection.adapters.register_loader("interval", TextLoader)
        for name in ("date", "timestamp", "timestamptz"):
            oid = connection.adapters.types[name].oid
            connection.adapters.register_loader(oid, _lenient(connection.adapters.get_loader(oid, Format.TEXT)))
        connection.execute("SET intervalstyle = iso_8601")
        cursor = connection.cursor()
        try:
            cursor.execute(query, prepare=True)
        except psycopg.errors.SyntaxError as error:
            if "multiple commands" in str(error):  # PostgreSQL's words for a batch in one prepared statement
                raise QueryRefused("one statement per call: this query holds several, separated by ';'") from None
            raise
        except psycopg.ProgrammingError as error:
            if error.sqlstate is None and "COPY" in str(error):  # psycopg's own refusal of COPY ... TO STDOUT
                raise QueryRefused("COPY is not supported: SELECT the rows (or use psql's \\copy)") from None
            raise
        if cursor.description is None:
            return [], []
        names = [column.name for column in cursor.description]
        if limit is None:
            return names, cursor.fetchall()
        return names, cursor.fetchmany(limit) if limit else []  # fetchmany(0) would fetch one row


def _lenient(loader: type[Loader]) -> type[Loader]:
    """The loader, but a value Python cannot hold (infinity, a year after 9999) stays PostgreSQL's text."""

    class Lenient(Loader):
        def __init__(self, oid: int, context=None):
            super().__init__(oid, context)
            self.loader = loader(oid, context)

        def load(self, data):
            try:
                return self.loader.load(data)
            except psycopg.DataError:
                return bytes(data).decode()

    return Lenient


def status_counts(database: Engine) -> dict[str, list[tuple[str, int]]]:
    """{"documents": [(status, n), ...], "pages": [...]}."""
    with database.connect() as connection:
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


def search_blocks(database: Engine, query: str, limit: int = 20) -> tuple[list[str], list[tuple]]:
    """The blocks that match a web-search style query ("a phrase", or, -word), best first, with a snippet."""
    with database.connect() as connection:
        result = connection.execute(text(SEARCH_QUERY), {"query": query, "limit": limit})
        return list(result.keys()), [tuple(row) for row in result]
