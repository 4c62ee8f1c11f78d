"""The database to use: FOLIO_DATABASE_URL, or an embedded PostgreSQL under FOLIO_HOME."""

import logging
from pathlib import Path
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql

log = logging.getLogger(__name__)

EMBEDDED_DATABASE = "folio"


def sqlalchemy_url(url: str) -> str:
    """The URL with the psycopg 3 driver named, as SQLAlchemy wants it."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise ValueError(f"not a PostgreSQL URL: {url.split('@')[-1]}")


def libpq_url(url: str) -> str:
    """The URL as libpq (psycopg, psql) wants it, without a SQLAlchemy driver name."""
    return "postgresql://" + sqlalchemy_url(url)[len("postgresql+psycopg://"):]


def start_embedded(pgdata: Path) -> str:
    """Start (or join) the embedded server in pgdata; return a URL of its folio database.

    The server stops when the last process that started or joined it exits. Its superuser's password is kept in
    the password file beside pgdata (FOLIO_HOME/pgpass), which the URL names.
    """
    from db.embedded import get_server
    from db.passwords import passfile

    pgdata = pgdata.expanduser().resolve()
    server = get_server(pgdata, passfile(pgdata.parent))
    _ensure_database(embedded_url(server.socket_dir, server.passfile, "postgres"), EMBEDDED_DATABASE)
    log.info("embedded PostgreSQL running in %s", pgdata)
    return embedded_url(server.socket_dir, server.passfile, EMBEDDED_DATABASE)


def embedded_url(socket_dir: Path, passfile: Path, database: str) -> str:
    """A URL of the embedded server's superuser: its socket folder, and the password file libpq reads."""
    from db.embedded import SUPERUSER

    query = urlencode({"host": str(socket_dir), "passfile": str(passfile)}, quote_via=quote)
    return f"postgresql://{SUPERUSER}@/{quote(database)}?{query}"


def error_line(error: BaseException) -> str:
    """PostgreSQL's message in one line: the main text, where in the statement, and the detail (no hint)."""
    error = getattr(error, "orig", None) or error  # SQLAlchemy's wrapper
    diagnostic = getattr(error, "diag", None)
    if diagnostic is None or not diagnostic.message_primary:
        return str(error).strip().splitlines()[0]
    position = f" at character {diagnostic.statement_position}" if diagnostic.statement_position else ""
    detail = f" ({diagnostic.message_detail})" if diagnostic.message_detail else ""
    return diagnostic.message_primary + position + detail


def _ensure_database(admin_uri: str, name: str) -> None:
    with psycopg.connect(admin_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                pass  # another process created it between the check and now (or at the same moment)
