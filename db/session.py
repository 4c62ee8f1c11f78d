"""SQLAlchemy engines (one pool per database URL) and sessions."""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

_pools: dict[str, Engine] = {}


def pooled_database(url: str) -> Engine:
    """One pooled handle per SQLAlchemy database URL in this process."""
    if url not in _pools:
        _pools[url] = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    return _pools[url]


def dispose_databases() -> None:
    """Close every pooled connection (before the embedded server stops, or in tests)."""
    for database in _pools.values():
        database.dispose()
    _pools.clear()


@contextmanager
def session_scope(database: Engine) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back on any error."""
    with sessionmaker(database, expire_on_commit=False).begin() as session:
        yield session
