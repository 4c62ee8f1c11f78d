"""The configured database: FOLIO_DATABASE_URL, or the embedded server under FOLIO_HOME (started on first use)."""

import socket

from sqlalchemy import Engine

from base.settings import Settings, get_settings
from db.identity import DatabaseIdentity, database_identity, shown_url
from db.passwords import passfile, password
from db.query import read_only_query
from db.roles import READER
from db.server import sqlalchemy_url, start_embedded
from db.session import pooled_database


def database_url(settings: Settings | None = None) -> str:
    """The SQLAlchemy URL of FOLIO_DATABASE_URL, or of the embedded server (started if it is not running)."""
    settings = settings or get_settings()
    if settings.database_url:
        return sqlalchemy_url(settings.database_url)
    return sqlalchemy_url(start_embedded(settings.pgdata))


def database(settings: Settings | None = None) -> Engine:
    """The pooled handle of the configured database."""
    return pooled_database(database_url(settings))


class NotTheRunsDatabase(ValueError):
    """A batch task whose settings name another database than its run's (a Dask worker configured apart from the
    flow): its pages would be stored where the run never looks."""


def identity(settings: Settings | None = None) -> DatabaseIdentity:
    """The configured database's identity, for the run's batch tasks to check theirs against (run_database)."""
    settings = settings or get_settings()
    handle = database(settings)
    if settings.database_url:
        return database_identity(handle, shown_url(handle))
    return database_identity(handle, f"the embedded PostgreSQL in {settings.pgdata} on {socket.gethostname()}",
                             str(settings.pgdata))


def run_database(run: DatabaseIdentity | None, settings: Settings | None = None) -> Engine:
    """The configured database when it is the run's (None: not checked); NotTheRunsDatabase, naming
    FOLIO_DATABASE_URL, when it is another. Without FOLIO_DATABASE_URL, an embedded server is started or joined
    only in the run's own data folder: a Dask worker does not start an empty one of its own."""
    settings = settings or get_settings()
    if run is None:
        return database(settings)
    here = socket.gethostname()
    if not settings.database_url and run.embedded != str(settings.pgdata):
        if run.embedded:
            raise NotTheRunsDatabase(
                f"FOLIO_DATABASE_URL is not set on {here}, where this batch ran, and the run's database is "
                f"{run.shown}: set FOLIO_DATABASE_URL, for the flow and every Dask worker, to a PostgreSQL server "
                "they all reach")
        raise NotTheRunsDatabase(f"FOLIO_DATABASE_URL is not set on {here}, where this batch ran: set it on every "
                                 f"Dask worker to the run's database, {run.shown}")
    found = identity(settings)
    if not found.same(run):
        raise NotTheRunsDatabase(f"FOLIO_DATABASE_URL on {here}, where this batch ran, names {found.shown}, not the "
                                 f"run's database {run.shown}: set it on every Dask worker to the run's")
    return database(settings)


def analyst_query(query: str, limit: int | None, settings: Settings | None = None) -> tuple[list[str], list[tuple]]:
    """One statement run as folio_reader (db.query.read_only_query) with its password and FOLIO_SQL_TIMEOUT."""
    settings = settings or get_settings()
    return read_only_query(database(settings), query, password(passfile(settings.home_dir), READER),
                           settings.sql_timeout_seconds, limit)
