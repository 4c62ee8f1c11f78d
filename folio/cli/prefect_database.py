"""Prefect's temporary server started from a migrated database: a new home's server otherwise builds its SQLite
database from Prefect's migrations on every first start (3-4 of its 7-10 seconds on two cores).

The first server of a Prefect version that starts in a home leaves a copy of its database, migrated and with
Prefect's block types registered and nothing run yet, in the user's cache; a server of the same version starting
in a home without a database starts from that copy. Only Prefect's own SQLite file under PREFECT_HOME is touched:
a database that PREFECT_SERVER_DATABASE_CONNECTION_URL names elsewhere is the operator's.
"""

import logging
import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

SQLITE_PREFIX = "sqlite+aiosqlite:///"


def template_path() -> Path:
    """The migrated database kept for this Prefect version ($XDG_CACHE_HOME/folio/prefect, else ~/.cache)."""
    import prefect

    cache = Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser()
    return cache / "folio" / "prefect" / f"prefect-{prefect.__version__}.db"


def database_file() -> Path | None:
    """The SQLite file Prefect's server keeps its state in, when it is one."""
    from prefect.settings import get_current_settings

    url = get_current_settings().server.database.connection_url
    url = url.get_secret_value() if url is not None else ""
    return Path(url[len(SQLITE_PREFIX):]) if url.startswith(SQLITE_PREFIX) else None


def seed_database(target: Path, template: Path) -> bool:
    """Put the kept migrated database where the server will look for its own, when it has none yet; whether one
    was put there."""
    if target.exists() or not template.is_file():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(handle)
    shutil.copyfile(template, partial)
    os.replace(partial, target)
    return True


def keep_database(source: Path, template: Path) -> None:
    """Keep a consistent copy of the database a server has just made in a new home (SQLite's online backup) for
    the next new home, unless one is kept already; a copy that cannot be made is only logged."""
    if not source.is_file() or template.is_file():
        return
    partial = None
    try:
        template.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=template.parent, prefix=f".{template.name}.")
        os.close(handle)
        with closing(sqlite3.connect(source)) as live, closing(sqlite3.connect(partial)) as copy:
            live.backup(copy)
        os.replace(partial, template)
    except (OSError, sqlite3.Error) as error:
        log.warning("could not keep Prefect's migrated database in %s: %s", template, error)
        if partial is not None:
            Path(partial).unlink(missing_ok=True)
