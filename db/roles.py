"""A read-only role for analysts: it can read every table and view of folio's schema, and write nothing."""

from psycopg import sql
from sqlalchemy import Engine


def grant_reader(engine: Engine, name: str, password: str | None = None) -> None:
    """Create the login role `name` (or update it) with SELECT on all tables and views, now and later."""
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
        exists = cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
        verb = sql.SQL("ALTER ROLE" if exists else "CREATE ROLE")
        login = sql.SQL("{} {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(verb, role)
        cursor.execute(login + (sql.SQL(" PASSWORD {}").format(sql.Literal(password)) if password else sql.SQL("")))
        for statement in statements:
            cursor.execute(statement)
