"""Runs whose process died are found by the next command: marked crashed, their documents free at once."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from prefect import flow
from prefect.client.orchestration import get_client
from prefect.states import Crashed, Running
from sqlalchemy import Engine, select, text

from db.models import Run
from db.processes import ProcessId, machine
from db.session import session_scope
from db.store import Claim, SourceFile, claim_document, claim_for_run
from flows.digitize import digitize
from runs.recovery import recover_crashed_runs
from tests.integration.folio_process import FolioProcess

LEASE = 1800  # the default: only a run found dead loses its claims before it ends


def ended_process() -> ProcessId:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    found = ProcessId.of(process.pid)
    process.wait()
    return found


def add_run(database: Engine, name: str, claims: int = 1, **values) -> None:
    """A running run, flow run id `name`, holding claims on documents of its own."""
    with session_scope(database) as session:
        session.add(Run(source="/archive", flow_run_id=name, status="running", **values))
        for number in range(claims):
            document_id, _ = claim_document(session, f"{name}-{number}".ljust(64, "0"),
                                            SourceFile(uri=f"/archive/{name}-{number}.pdf", size_bytes=1))
            assert claim_for_run(session, document_id, Claim(name, LEASE))


def here(process: ProcessId) -> dict:
    """A run's columns naming a process of this machine that beat a moment ago."""
    return {"machine": machine(), "host": "this host", "pid": process.pid,
            "pid_started_at": datetime.fromtimestamp(process.started, UTC), "heartbeat_at": datetime.now(UTC)}


def elsewhere(heartbeat_age: timedelta) -> dict:
    """A run's columns naming a process of another machine that beat heartbeat_age ago."""
    return {"machine": "another-boot/4026531836", "host": "scanner-2", "pid": os.getpid(),
            "pid_started_at": datetime.now(UTC) - timedelta(hours=1), "heartbeat_at": datetime.now(UTC) - heartbeat_age}


def outcome(database: Engine) -> dict[str, tuple[str, int]]:
    """For each run: its status, and how many documents are still claimed by it."""
    with database.connect() as connection:
        return dict((name, (status, claimed)) for name, status, claimed in connection.execute(text(
            "SELECT r.flow_run_id, r.status, (SELECT count(*) FROM documents d WHERE d.claimed_by = r.flow_run_id) "
            "FROM runs r ORDER BY r.id")))


def test_the_next_command_marks_a_run_of_a_dead_process_crashed_and_frees_its_documents(
        database: Engine, empty_database: str, tmp_path: Path):
    add_run(database, "killed", claims=2, **here(ended_process()))
    add_run(database, "alive", **here(ProcessId.current()))
    status = FolioProcess(["status"], empty_database, tmp_path / "home")
    assert status.finish() == 0, "".join(status.lines)
    assert outcome(database) == {"killed": ("crashed", 0), "alive": ("running", 1)}
    with database.connect() as connection:
        finished, heartbeat = connection.execute(
            select(Run.finished_at, Run.heartbeat_at).where(Run.flow_run_id == "killed")).one()
    assert finished == heartbeat  # the last time it was known alive


def test_a_run_on_another_machine_is_crashed_once_its_heartbeat_stops(database: Engine):
    add_run(database, "silent", **elsewhere(timedelta(minutes=10)))
    add_run(database, "beating", **elsewhere(timedelta(seconds=5)))
    long_ago = {"started_at": datetime.now(UTC) - timedelta(hours=2)}
    add_run(database, "old-folio-done", claims=0, **long_ago)  # a folio from before heartbeats
    add_run(database, "old-folio-working", **long_ago)  # its claims renewed: its lease has not ended
    recover_crashed_runs(database)
    assert outcome(database) == {"silent": ("crashed", 0), "beating": ("running", 1),
                                 "old-folio-done": ("crashed", 0), "old-folio-working": ("running", 1)}


@flow
def on_another_machine() -> None:
    """A flow run of another machine, as the shared Prefect API knows it."""


def test_a_run_on_another_machine_is_crashed_when_prefect_says_its_flow_run_crashed(database: Engine):
    with get_client(sync_client=True) as client:
        crashed = client.create_flow_run(on_another_machine, state=Crashed())
        running = client.create_flow_run(on_another_machine, state=Running())
    add_run(database, str(crashed.id), **elsewhere(timedelta(seconds=5)))
    add_run(database, str(running.id), **elsewhere(timedelta(seconds=5)))
    recover_crashed_runs(database)
    assert outcome(database) == {str(crashed.id): ("crashed", 0), str(running.id): ("running", 1)}


def test_a_run_names_its_process_and_beats(database: Engine, tmp_path: Path):
    digitize(source=str(tmp_path))
    with database.connect() as connection:
        run = connection.execute(select(Run.status, Run.pid, Run.pid_started_at, Run.machine, Run.heartbeat_at)).one()
    assert tuple(run[:4]) == ("completed", os.getpid(), datetime.fromtimestamp(ProcessId.current().started, UTC),
                              machine())
    assert run.heartbeat_at is not None
