"""SQLAlchemy engines and sessions for the configured database."""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

from db.server import sqlalchemy_url, start_embedded
from folio.settings import Settings, get_settings

_engines: dict[str, Engine] = {}


def database_url(settings: Settings | None = None) -> str:
    """FOLIO_DATABASE_URL, or the embedded server's (started on first use)."""
    settings = settings or get_settings()
    if settings.database_url:
        return sqlalchemy_url(settings.database_url)
    return sqlalchemy_url(start_embedded(settings.pgdata))


def get_engine(settings: Settings | None = None) -> Engine:
    """One pooled engine per database URL in this process."""
    url = database_url(settings)
    if url not in _engines:
        _engines[url] = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    return _engines[url]


def dispose_engines() -> None:
    """Close every pooled connection (before the embedded server stops, or in tests)."""
    for engine in _engines.values():
        engine.dispose()
    _engines.clear()


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back on any error."""
    with sessionmaker(engine, expire_on_commit=False).begin() as session:
        yield session
