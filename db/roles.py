"""Read-only roles: folio_reader, as which `folio sql` runs, and the analysts' login roles (grant-reader)."""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

import psycopg
from psycopg import Cursor, sql
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from db.server import error_line, libpq_url

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
def reader_connection(database: Engine, password: str, timeout_seconds: float) -> Iterator[psycopg.Connection]:
    """A read-only connection as folio_reader to the engine's database, each statement limited to timeout_seconds.

    The owner (the engine's user) creates the role, or sets `password` again, when folio_reader cannot log in (no
    such role yet, or another FOLIO_HOME set its password), and grants it SELECT where a table is not readable yet.
    """
    url = database.url.set(username=READER, password=password).render_as_string(hide_password=False)
    conninfo, options = libpq_url(url), f"-c statement_timeout={round(timeout_seconds * 1000)}"
    try:
        connection = _connect_reader(conninfo, options)
        renew, what = partial(grant_reading, database, READER), f"grant {READER} SELECT"
    except psycopg.OperationalError:  # no such role yet, or another FOLIO_HOME set its password
        connection = None
        renew, what = partial(grant_reader, database, READER, password), f"create or update the role {READER}"
    if connection is None:
        try:
            renew()
        except (DBAPIError, psycopg.Error) as error:
            raise ReaderUnavailable(f"{database.url.username} could not {what}: {error_line(error)}") from error
        if (connection := _connect_reader(conninfo, options)) is None:
            raise ReaderUnavailable(f"{READER} still cannot read every table after it was granted SELECT")
    try:
        yield connection
    finally:
        connection.close()


def _connect_reader(conninfo: str, options: str) -> psycopg.Connection | None:
    """The connection, or None when the role may not read every table."""
    connection = psycopg.connect(conninfo, options=options)
    connection.read_only = True
    reads_everything = connection.execute(_READS_EVERYTHING).fetchone()[0]
    connection.rollback()
    if reads_everything:
        return connection
    connection.close()
    return None


def grant_reader(database: Engine, name: str, password: str | None = None) -> None:
    """Create the login role `name` (or update it) with SELECT on all tables and views, now and later.

    The password, when given, is sent already hashed (SCRAM), so it appears in no statement or server log.
    """
    role = sql.Identifier(name)
    with database.begin() as connection:
        cursor = _locked_cursor(connection)
        found = cursor.execute("SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = %s",
                               (name,)).fetchone()
        login = sql.SQL("{} {} LOGIN").format(sql.SQL("ALTER ROLE" if found else "CREATE ROLE"), role)
        for attribute, held in zip(("SUPERUSER", "CREATEDB", "CREATEROLE"), found or ()):
            if held:  # a new role has none; naming one needs it, which a CREATEROLE owner may lack
                login += sql.SQL(" NO" + attribute)
        if password:
            login += sql.SQL(" PASSWORD {}").format(sql.Literal(_hashed(cursor, name, password)))
        cursor.execute(login)
        cursor.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(role))
        _grant_reading(cursor, name, database.url.database)


def grant_reading(database: Engine, name: str) -> None:
    """Grant an existing role SELECT on all tables and views of the engine's database, now and later."""
    with database.begin() as connection:
        _grant_reading(_locked_cursor(connection), name, database.url.database)


def _grant_reading(cursor: Cursor, name: str, database: str) -> None:
    role = sql.Identifier(name)
    for statement in (
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), role),
        sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role),
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(role),
        sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {}").format(role),
    ):
        cursor.execute(statement)


def _locked_cursor(connection: Connection) -> Cursor:
    """A psycopg cursor of the transaction, which holds the lock that keeps role changes one at a time."""
    cursor = connection.connection.driver_connection.cursor()
    cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
    return cursor


def _hashed(cursor: Cursor, name: str, password: str) -> str:
    """The password as the server stores it (its password_encryption: SCRAM-SHA-256 by default)."""
    return cursor.connection.pgconn.encrypt_password(password.encode(), name.encode()).decode()
