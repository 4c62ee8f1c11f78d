"""The configured database: FOLIO_DATABASE_URL, or the embedded server under FOLIO_HOME (started on first use)."""

from sqlalchemy import Engine

from db.passwords import passfile, password
from db.query import read_only_query
from db.roles import READER
from db.server import sqlalchemy_url, start_embedded
from db.session import pooled_database
from folio.settings import Settings, get_settings


def database_url(settings: Settings | None = None) -> str:
    """The SQLAlchemy URL of FOLIO_DATABASE_URL, or of the embedded server (started if it is not running)."""
    settings = settings or get_settings()
    if settings.database_url:
        return sqlalchemy_url(settings.database_url)
    return sqlalchemy_url(start_embedded(settings.pgdata))


def database(settings: Settings | None = None) -> Engine:
    """The pooled handle of the configured database."""
    return pooled_database(database_url(settings))


def analyst_query(query: str, limit: int | None, settings: Settings | None = None) -> tuple[list[str], list[tuple]]:
    """One statement run as folio_reader (db.query.read_only_query) with its password and FOLIO_SQL_TIMEOUT."""
    settings = settings or get_settings()
    return read_only_query(database(settings), query, password(passfile(settings.home_dir), READER),
                           settings.sql_timeout_seconds, limit)
