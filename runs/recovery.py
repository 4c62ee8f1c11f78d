"""Runs whose process died are marked crashed and their claims released, so that the next run takes them at once."""

import logging
import uuid

from sqlalchemy import Engine

from base.settings import get_settings
from db.crashes import RunningRun, mark_crashed, running_runs, tracks_processes
from db.processes import machine
from db.session import session_scope

log = logging.getLogger(__name__)

SILENT_BEATS = 4  # a run on another machine whose heartbeat is older than this many intervals is taken for dead


def recover_crashed_runs(database: Engine) -> list[int]:
    """Mark crashed every running run whose process is dead, releasing its claims; returns their ids.

    On this machine a run is dead when its process (pid and start time) is gone; on another, when its heartbeat
    is older than 4 intervals, or the Prefect API in PREFECT_API_URL calls its flow run crashed or cancelled; a
    run of a folio from before heartbeats, when it holds no claim whose lease has not ended.
    """
    settings = get_settings()
    silent_seconds = SILENT_BEATS * settings.heartbeat_seconds
    with session_scope(database) as session:
        if not tracks_processes(session):
            return []
        suspects = running_runs(session, silent_seconds, settings.claim_lease_seconds)
    verdicts = {run.id: why_dead(run, silent_seconds) for run in suspects}
    elsewhere = {run.flow_run_id: run.id for run in suspects
                 if verdicts[run.id] is None and run.machine not in (None, machine()) and run.flow_run_id}
    for flow_run_id in ended_in_prefect(list(elsewhere)):
        verdicts[elsewhere[flow_run_id]] = "Prefect calls its flow run crashed or cancelled"
    crashed = []
    with session_scope(database) as session:
        for run in suspects:
            if verdicts[run.id] is None or (released := mark_crashed(session, run)) is None:
                continue
            log.warning("run %d crashed (%s): marked crashed, %d documents it claimed are free again", run.id,
                        verdicts[run.id], released)
            crashed.append(run.id)
    return crashed


def why_dead(run: RunningRun, silent_seconds: float) -> str | None:
    """Why the run's process is dead, or None while it may be alive."""
    if run.machine is None:
        return "a run from before heartbeats whose claims' lease ended" if run.lease_ended else None
    if run.machine == machine():
        if run.process is not None and run.process.alive():
            return None
        return f"its process {run.process.pid} is gone" if run.process else "its process is gone"
    return f"no heartbeat from its machine for more than {silent_seconds:g} s" if run.silent else None


def ended_in_prefect(flow_run_ids: list[str]) -> set[str]:
    """Those of these flow runs that the Prefect API in PREFECT_API_URL knows as crashed or cancelled.

    Without such an API (ephemeral mode), none: each folio process's temporary server knows only its own runs.
    """
    ids = []
    for value in flow_run_ids:
        try:
            ids.append(uuid.UUID(value))
        except ValueError:  # a run outside Prefect
            continue
    if not ids:
        return set()
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterId,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        return set()
    ended = FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.CRASHED, StateType.CANCELLED]))
    try:
        with get_client(sync_client=True) as client:
            runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids), state=ended))
    except Exception as error:  # the API unreachable: the heartbeats still tell, a little later
        log.warning("could not ask Prefect about flow runs of other machines: %s", error)
        return set()
    return {str(run.id) for run in runs}
