"""What a folio process killed with SIGKILL leaves running, stopped by the next folio command.

Prefect's temporary API server (ephemeral mode) is a child that Prefect stops at exit, which a killed process never
reaches: folio starts it itself and records it with its owner in FOLIO_HOME, and the next command stops those whose
owner is gone. The embedded PostgreSQL is stopped when no live folio process uses it any more.
"""

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import fasteners

from db.embedded import stop_abandoned
from db.processes import ProcessId
from folio.settings import Settings

log = logging.getLogger(__name__)

RECORD = "temporary-servers.json"


def start_temporary_server(home: Path) -> None:
    """Prefect's temporary server, started now rather than by the flow, and recorded with this process as its owner.

    Nothing is started when PREFECT_API_URL names a server.
    """
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        return
    server = SubprocessASGIServer()  # the one instance Prefect's clients use in ephemeral mode
    server.start()
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
