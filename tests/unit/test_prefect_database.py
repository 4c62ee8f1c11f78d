"""Prefect's temporary server in a new home starts from the migrated database the first new home's server left
(folio/cli/prefect_database.py)."""

import sqlite3
from contextlib import closing

from prefect.settings import PREFECT_SERVER_DATABASE_CONNECTION_URL, temporary_settings

from folio.cli.prefect_database import database_file, keep_database, seed_database, template_path


def test_the_servers_own_sqlite_file_is_the_database_and_an_operators_server_is_none():
    with temporary_settings(updates={PREFECT_SERVER_DATABASE_CONNECTION_URL: "sqlite+aiosqlite:////srv/p/prefect.db"}):
        assert str(database_file()) == "/srv/p/prefect.db"
    with temporary_settings(updates={PREFECT_SERVER_DATABASE_CONNECTION_URL: "postgresql+asyncpg://u:p@db/prefect"}):
        assert database_file() is None


def test_the_template_is_kept_per_prefect_version_in_the_users_cache(tmp_path, monkeypatch):
    import prefect

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert template_path() == tmp_path / "folio" / "prefect" / f"prefect-{prefect.__version__}.db"


def test_a_live_database_is_kept_whole_once_and_a_new_home_starts_from_it(tmp_path):
    """The copy is SQLite's online backup of a database in WAL mode with its last rows still in the log, taken
    while a connection holds it open; a kept copy is not replaced, and a home that has a database keeps its own."""
    source, template = tmp_path / "first" / "prefect.db", tmp_path / "cache" / "prefect-3.db"
    source.parent.mkdir()
    with closing(sqlite3.connect(source)) as live:
        live.execute("PRAGMA journal_mode=WAL")
        live.execute("CREATE TABLE alembic_version (version_num TEXT)")
        live.execute("INSERT INTO alembic_version VALUES ('head')")
        live.commit()
        keep_database(source, template)
        live.execute("UPDATE alembic_version SET version_num = 'later'")
        live.commit()
        keep_database(source, template)
    with closing(sqlite3.connect(template)) as kept:
        assert kept.execute("SELECT version_num FROM alembic_version").fetchall() == [("head",)]
    new_home = tmp_path / "second" / "prefect.db"
    assert seed_database(new_home, template)
    with closing(sqlite3.connect(new_home)) as seeded:
        assert seeded.execute("SELECT version_num FROM alembic_version").fetchall() == [("head",)]
    assert not seed_database(source, template)
    with closing(sqlite3.connect(source)) as own:
        assert own.execute("SELECT version_num FROM alembic_version").fetchall() == [("later",)]
    assert not seed_database(tmp_path / "third" / "prefect.db", tmp_path / "cache" / "none.db")
