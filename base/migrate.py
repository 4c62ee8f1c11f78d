"""Schema migrations with Alembic, run from code (no alembic.ini to find)."""

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

import migrations

_LOCK_KEY = 0x666F6C696F  # "folio": one migration at a time across processes


def alembic_config(database: Engine) -> Config:
    config = _script_config()
    config.set_main_option("sqlalchemy.url", database.url.render_as_string(hide_password=False).replace("%", "%%"))
    return config


def upgrade(database: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision`; concurrent callers wait for each other."""
    _run(database, lambda config: command.upgrade(config, revision))


def downgrade(database: Engine, revision: str) -> None:
    _run(database, lambda config: command.downgrade(config, revision))


def head_revision() -> str:
    """The newest revision the shipped migrations define."""
    return ScriptDirectory.from_config(_script_config()).get_current_head()


def _script_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return config


def current_revision(database: Engine) -> str | None:
    with database.connect() as connection:
        exists = connection.execute(text("SELECT to_regclass('alembic_version')")).scalar()
        if exists is None:
            return None
        return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _run(database: Engine, action) -> None:
    config = alembic_config(database)
    with database.begin() as connection:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        config.attributes["connection"] = connection
        action(config)
