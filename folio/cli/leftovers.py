"""Prefect's temporary server kept for as long as its folio process lives, and no longer.

Prefect's temporary API server (ephemeral mode) is a child that Prefect stops at exit, which a killed process never
reaches: folio starts it itself and records it with its owner in FOLIO_HOME, and the next command stops those whose
owner is gone. The embedded PostgreSQL is stopped when no live folio process uses it any more. While folio runs,
a server that dies (killed, out of memory, a terminal's Ctrl-C to the whole process group) is started again on its
port (`ServerKeeper`).
"""

import atexit
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import fasteners

from base.settings import Settings
from db.embedded import stop_abandoned
from db.processes import ProcessId
from folio.cli.prefect_database import database_file, keep_database, seed_database, template_path
from folio.cli.progress import say

log = logging.getLogger(__name__)

RECORD = "temporary-servers.json"
RESTARTS = 5  # a server that dies more often than this under one folio process is left dead: the run fails
CHECK_SECONDS = 0.5


def start_temporary_server(home: Path) -> None:
    """Prefect's temporary server, started now rather than by the flow (in a new home from the migrated database
    the first new home's server left: folio/cli/prefect_database.py), recorded with this process as its owner and
    kept alive by a ServerKeeper until this process exits.

    Nothing is started when PREFECT_API_URL names a server.
    """
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        return
    database, template = database_file(), template_path()
    new_home = database is not None and not database.exists() and not seed_database(database, template)
    server = SubprocessASGIServer()  # the one instance Prefect's clients use in ephemeral mode
    server.start()
    if new_home:
        keep_database(database, template)
    _record_server(home, server)
    keeper = ServerKeeper(server, home)
    keeper.start()
    atexit.register(keeper.stop)  # runs before Prefect's own atexit stop of the server (registered earlier)


class ServerKeeper(threading.Thread):
    """Starts Prefect's temporary server again on its port when it dies while folio runs.

    Prefect's clients retry a refused connection for about a minute (PREFECT_CLIENT_MAX_RETRIES, doubling delays),
    and the server keeps its state in its database under PREFECT_HOME, so a flow run goes on where it was: its
    task runs report their states, its batches are counted, its summary is true. After RESTARTS restarts the
    server is left dead, and the run ends failed with the API's error.
    """

    def __init__(self, server, home: Path):
        super().__init__(name="folio-prefect-server-keeper", daemon=True)
        self.server, self.home = server, home
        self.stopping = threading.Event()
        self.restarts = 0

    def run(self) -> None:
        while not self.stopping.wait(CHECK_SECONDS):
            process = self.server.server_process
            if process is None or not self.server.running or process.poll() is None:
                continue
            if self.restarts >= RESTARTS:
                say(f"Prefect's temporary server stopped again (exit code {process.returncode}); it was started "
                    f"{RESTARTS} times already and is left stopped")
                return
            self.restarts += 1
            say(f"Prefect's temporary server stopped (exit code {process.returncode}); starting it again on "
                f"{self.server.address}")
            self.server.server_process = self.server._run_uvicorn_command()  # the same port and settings
            _record_server(self.home, self.server)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=5)


def _record_server(home: Path, server) -> None:
    if server.server_process is not None and (started := ProcessId.of(server.server_process.pid)) is not None:
        record_child(home, started)


def record_child(home: Path, child: ProcessId) -> None:
    """Record a process that must not outlive this one."""
    owner = ProcessId.current()
    with _entries(home) as entries:
        entries.append({"child": [child.pid, child.started], "owner": [owner.pid, owner.started]})


def stop_orphans(home: Path) -> list[int]:
    """Stop the recorded processes whose owner is gone; forget those and the ones that ended; returns their pids."""
    stopped = []
    with _entries(home) as entries:
        for entry in list(entries):
            child, owner = ProcessId(*entry["child"]), ProcessId(*entry["owner"])
            if owner.alive():
                continue
            if child.alive():
                log.warning("stopping process %d, Prefect's temporary server of folio process %d, which was killed",
                            child.pid, owner.pid)
                child.stop()
                stopped.append(child.pid)
            entries.remove(entry)
    return stopped


def stop_leftovers(settings: Settings) -> None:
    """Stop what killed folio processes of this FOLIO_HOME left running: temporary servers, the embedded server."""
    stop_orphans(settings.home_dir)
    stop_abandoned(settings.pgdata)


@contextmanager
def _entries(home: Path) -> Iterator[list[dict]]:
    """The record's entries, written back when the block ends, under a lock between folio processes."""
    path = home / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    with fasteners.InterProcessLock(home / f".{RECORD}.lock"):
        entries = json.loads(path.read_text()) if path.exists() else []
        yield entries
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(json.dumps(entries))
        temporary.replace(path)
