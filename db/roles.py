"""Read-only roles: folio_reader, as which `folio sql` runs, and the analysts' login roles (grant-reader)."""

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import Cursor, sql
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from db.server import libpq_url

READER = "folio_reader"
_LOCK_KEY = 0x666F6C696F + 1  # one role change at a time in a database (0x666F6C696F is the migrations' lock)

# True when the role may use the public schema and read every table and view in it.
_READS_EVERYTHING = """
SELECT has_schema_privilege('public', 'USAGE') AND NOT EXISTS (
    SELECT FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT has_table_privilege(c.oid, 'SELECT'))
"""


class ReaderUnavailable(Exception):
    """folio_reader could not be made ready; the message says why."""


@contextmanager
def reader_connection(engine: Engine, password: str, timeout_seconds: float) -> Iterator[psycopg.Connection]:
    """A read-only connection as folio_reader to the engine's database, each statement limited to timeout_seconds.

    The owner (the engine's user) creates the role, or renews its grants and sets `password` again, when it is
    missing, its password differs (another FOLIO_HOME set it) or a table is not readable by it yet.
    """
    url = engine.url.set(username=READER, password=password).render_as_string(hide_password=False)
    conninfo, options = libpq_url(url), f"-c statement_timeout={round(timeout_seconds * 1000)}"
    try:
        connection = _connect_reader(conninfo, options)
    except psycopg.OperationalError:  # no such role yet, or another password
        connection = None
    if connection is None:
        _renew_reader(engine, password)
        if (connection := _connect_reader(conninfo, options)) is None:
            raise ReaderUnavailable(f"the role {READER} still cannot read every table after its grants were renewed")
    try:
        yield connection
    finally:
        connection.close()


def _renew_reader(engine: Engine, password: str) -> None:
    try:
        grant_reader(engine, READER, password)
    except DBAPIError as error:
        hint = " (it needs CREATEROLE)" if isinstance(error.orig, psycopg.errors.InsufficientPrivilege) else ""
        cause = str(error.orig).strip().splitlines()[0]
        raise ReaderUnavailable(f"{engine.url.username} could not create or update the read-only role {READER}: "
                                f"{cause}{hint}") from None


def _connect_reader(conninfo: str, options: str) -> psycopg.Connection | None:
    """The connection, or None when the role may not read everything (its grants are renewed, then)."""
    connection = psycopg.connect(conninfo, options=options)
    connection.read_only = True
    reads_everything = connection.execute(_READS_EVERYTHING).fetchone()[0]
    connection.rollback()
    if reads_everything:
        return connection
    connection.close()
    return None


def grant_reader(engine: Engine, name: str, password: str | None = None) -> None:
    """Create the login role `name` (or update it) with SELECT on all tables and views, now and later.

    The password, when given, is sent already hashed (SCRAM), so it appears in no statement or server log.
    """
    role = sql.Identifier(name)
    statements = [
        sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(role),
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(engine.url.database), role),
        sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role),
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(role),
        sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {}").format(role),
    ]
    with engine.begin() as connection:
        cursor = connection.connection.driver_connection.cursor()
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        exists = cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
        verb = sql.SQL("ALTER ROLE" if exists else "CREATE ROLE")
        login = sql.SQL("{} {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(verb, role)
        if password:
            login += sql.SQL(" PASSWORD {}").format(sql.Literal(_hashed(cursor, name, password)))
        cursor.execute(login)
        for statement in statements:
            cursor.execute(statement)


def _hashed(cursor: Cursor, name: str, password: str) -> str:
    """The password as the server stores it (its password_encryption: SCRAM-SHA-256 by default)."""
    return cursor.connection.pgconn.encrypt_password(password.encode(), name.encode()).decode()
