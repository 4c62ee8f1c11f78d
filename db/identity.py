"""Which PostgreSQL database a handle reaches: a batch task checks that its database is its run's."""

from dataclasses import dataclass
from urllib.parse import unquote

from sqlalchemy import Engine, text


@dataclass(frozen=True)
class DatabaseIdentity:
    system_id: int  # the PostgreSQL cluster's (pg_control_system): a new one for every initdb
    name: str  # the database in that cluster
    shown: str  # for messages: the URL without its password, or where the embedded server is
    embedded: str = ""  # the embedded server's data folder, when the database is one

    def same(self, other: "DatabaseIdentity") -> bool:
        return (self.system_id, self.name) == (other.system_id, other.name)


def database_identity(database: Engine, shown: str, embedded: str = "") -> DatabaseIdentity:
    with database.connect() as connection:
        system_id, name = connection.execute(
            text("SELECT system_identifier, current_database() FROM pg_control_system()")).one()
    return DatabaseIdentity(system_id, name, shown, embedded)


def shown_url(database: Engine) -> str:
    """The handle's URL as a message may show it: no password, no driver name, its socket folder readable."""
    return unquote(database.url.set(drivername="postgresql").render_as_string(hide_password=True))
