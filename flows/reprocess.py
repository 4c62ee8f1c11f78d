"""The reprocess flow: parse chosen finished documents again (failed, quarantined, by id or date, an old engine)."""

import time

from prefect import flow, get_run_logger

from base.run_summary import RunSummary
from base.settings import get_settings
from db.store import Selection
from flows.digitize import failed_if_raising, parse_and_finish, run_claim
from flows.progress import Stage, Step, tell
from flows.runners import SettingsTaskRunner
from runs.heartbeat import heartbeat
from tasks.reprocess import reopen_task, select_task
from tasks.runs import open_run_task


@flow(name="reprocess", task_runner=SettingsTaskRunner())
def reprocess(selection: Selection, batch_size: int | None = None) -> RunSummary:
    """Parse again the finished documents chosen by status, id, last change or engine version.

    Args:
        selection: which documents; its filters combine with AND. statuses: failed, quarantined (done needs
            engine_version or force); ids; since: last changed at or after; until: last changed before;
            engine_version: done documents whose results came from this engine version (0.3.2: any
            0.3.2+<identity>), "other": from any version but the configured engine's identity; force: parse the
            chosen documents again even if their results are current, without reusing stored pages
        batch_size: pages per batch task, each stored in one transaction (empty: FOLIO_BATCH_SIZE)
    """
    started = time.perf_counter()
    claim = run_claim()
    run_id = open_run_task(f"reprocess: {selection.describe()}", claim.claimant)
    with heartbeat(run_id), failed_if_raising(run_id, started):
        tell(Step(Stage.SELECTING, detail=selection.describe()))
        document_ids = select_task(selection)
        get_run_logger().info("%d documents to parse again (%s)", len(document_ids), selection.describe())
        registered = reopen_task(document_ids, claim)
        return parse_and_finish(run_id, registered, batch_size or get_settings().batch_size, claim, started,
                                reuse=not selection.force)
