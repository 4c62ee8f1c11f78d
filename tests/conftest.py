"""Shared fixtures: one embedded PostgreSQL per test session, a fresh database per test that needs one, the PDFs of
the pages a test runs stages on."""

import os
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

_SESSION_DIR = Path(tempfile.mkdtemp(prefix="folio-tests-"))
_SESSION_DIR.chmod(0o711)  # as root, the embedded PostgreSQL runs as another user, which must reach the folders in it
# Prefect reads its home when first imported: point it at a folder of this test session.
os.environ["PREFECT_HOME"] = str(_SESSION_DIR / "prefect")
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["DO_NOT_TRACK"] = "1"
os.environ["FOLIO_HOME"] = str(_SESSION_DIR / "home")
# What folio keeps once per user (Prefect's migrated database) is kept once per test session.
os.environ["XDG_CACHE_HOME"] = str(_SESSION_DIR / "cache")
# Derived models (the int8 recognizer, the formula model's graphs) are made once per test session.
os.environ.setdefault("FOLIO_ENGINE_CACHE", str(_SESSION_DIR / "engines"))
# Flows run their batches one at a time in this process, where a test can reach the engine (a monkeypatched stage):
# FOLIO_WORKERS' default would hand them to engine worker processes. Tests of several workers set it themselves.
os.environ.setdefault("FOLIO_WORKERS", "1")

from base.database import database as configured_database  # noqa: E402
from base.migrate import upgrade  # noqa: E402
from base.settings import get_settings  # noqa: E402
from db.server import libpq_url, start_embedded  # noqa: E402
from db.session import dispose_databases  # noqa: E402
from engine.page_source import PageSource  # noqa: E402


@pytest.fixture(scope="session")
def session_dir() -> Path:
    return _SESSION_DIR


@pytest.fixture(scope="session")
def server_url() -> str:
    """A PostgreSQL server for the whole session: FOLIO_TEST_DATABASE_URL, or an embedded one."""
    return os.environ.get("FOLIO_TEST_DATABASE_URL") or start_embedded(_SESSION_DIR / "pgdata")


@pytest.fixture
def new_database_url(server_url: str) -> Iterator[Callable[[], str]]:
    """Makes new, empty databases on the session's server; all are dropped after the test."""
    admin = libpq_url(server_url)
    names: list[str] = []

    def make() -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        names.append(name)
        return make_url(admin).set(database=name).render_as_string(hide_password=False)

    yield make
    dispose_databases()
    with psycopg.connect(admin, autocommit=True) as connection:
        for name in names:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def empty_database(new_database_url: Callable[[], str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new, empty database; FOLIO_DATABASE_URL points at it for the test."""
    url = new_database_url()
    monkeypatch.setenv("FOLIO_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


@pytest.fixture
def database(empty_database: str) -> Engine:
    """A new database at the schema's head revision."""
    migrated = configured_database()
    upgrade(migrated)
    return migrated


@pytest.fixture
def page_source() -> Iterator[PageSource]:
    """The PDFs of the pages a test runs stages on outside the pipeline, as the pipeline's batch holds them; closed
    after the test."""
    with PageSource() as source:
        yield source
