"""Runs whose process died: each run's heartbeat, the running runs to judge, those found dead marked crashed."""

import socket
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, exists, func, literal, select, text, update
from sqlalchemy.orm import Session

from db.models import Document, Run
from db.processes import ProcessId, machine
from db.statuses import RunStatus


@dataclass(frozen=True)
class RunningRun:
    """A run whose row says `running`, with what tells whether its process still runs."""

    id: int
    flow_run_id: str | None
    machine: str | None  # None: a run of a folio from before heartbeats
    process: ProcessId | None
    heartbeat_at: datetime | None
    silent: bool  # its last heartbeat is older than the interval (by the database's clock)
    lease_ended: bool  # it started more than a lease ago and holds no unexpired claim


def tracks_processes(session: Session) -> bool:
    """Whether the schema has the runs' heartbeats (a database not yet upgraded has not)."""
    return session.execute(text(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'runs' "
        "AND column_name = 'heartbeat_at'")).first() is not None


def beat(session: Session, run_id: int, lease_seconds: int) -> None:
    """The run's row names this process and the time: it is alive (again, when its flow run is retried); and every
    claim it holds lasts a lease from now, so that a live run keeps its documents however long it takes to reach
    them, and a run that stops beating loses them a lease after its last beat."""
    process = ProcessId.current()
    claimant = session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status.in_((RunStatus.RUNNING, RunStatus.CRASHED)))
        .values(status=RunStatus.RUNNING, finished_at=None, host=socket.gethostname(), machine=machine(),
                pid=process.pid, pid_started_at=datetime.fromtimestamp(process.started, UTC), heartbeat_at=func.now())
        .returning(Run.flow_run_id)
    ).scalar_one_or_none()
    if claimant is not None:  # a document locked now is being stored or contested: its batch renews it itself
        held = select(Document.id).where(Document.claimed_by == claimant).with_for_update(skip_locked=True)
        session.execute(update(Document).where(Document.id.in_(held.scalar_subquery()))  # no change of the document:
                        .values(claimed_until=func.now() + timedelta(seconds=lease_seconds),  # updated_at stays
                                updated_at=Document.updated_at))


def running_runs(session: Session, silent_seconds: float, lease_seconds: int) -> list[RunningRun]:
    """The runs whose rows say `running`."""
    live_claim = exists().where(Document.claimed_by == Run.flow_run_id, Document.claimed_until >= func.now())
    rows = session.execute(
        select(Run.id, Run.flow_run_id, Run.machine, Run.pid, Run.pid_started_at, Run.heartbeat_at,
               func.coalesce(Run.heartbeat_at < func.now() - timedelta(seconds=silent_seconds), literal(False)),
               and_(Run.started_at < func.now() - timedelta(seconds=lease_seconds), ~live_claim))
        .where(Run.status == RunStatus.RUNNING)
        .order_by(Run.id)
    ).all()
    return [RunningRun(id_, flow_run_id, machine_, None if pid is None else ProcessId(pid, started.timestamp()),
                       heartbeat_at, silent, lease_ended)
            for id_, flow_run_id, machine_, pid, started, heartbeat_at, silent, lease_ended in rows]


def mark_crashed(session: Session, run: RunningRun) -> int | None:
    """Mark the run crashed and release its claims, unless it beat since it was judged; how many it held.

    Its finish time is its last heartbeat, the last time it was known alive.
    """
    marked = session.execute(
        update(Run)
        .where(Run.id == run.id, Run.status == RunStatus.RUNNING,
               Run.heartbeat_at.is_not_distinct_from(run.heartbeat_at))
        .values(status=RunStatus.CRASHED, finished_at=func.coalesce(Run.heartbeat_at, func.now()))
        .returning(Run.id)
    ).first()
    if marked is None or run.flow_run_id is None:
        return None if marked is None else 0
    return session.execute(
        update(Document)
        .where(Document.claimed_by == run.flow_run_id)
        .values(claimed_by=None, claimed_until=None)
    ).rowcount

