"""A run with nothing new, recorded without Prefect: when no Prefect server is configured and every listed file
is unchanged since it was last seen, starting Prefect's temporary server would cost far more than the run."""

import time

from sqlalchemy import Engine

from base.migrate import current_revision, head_revision
from base.run_metrics import RunMetrics
from base.run_summary import RunSummary
from db.session import session_scope
from db.statuses import Registration
from db.store import mark_seen, sightings
from flows.monitoring import publish_run_metrics
from flows.progress import Stage, Step, tell
from runs.lifecycle import PageCounts, abandon_run, finish, open_run
from runs.register import Registered, unchanged_files
from sources.listing import list_source


def prefect_server_configured() -> bool:
    """Whether PREFECT_API_URL names a Prefect server, where every run is to be a flow run."""
    from prefect.settings import PREFECT_API_URL

    return bool(PREFECT_API_URL.value())


def record_if_nothing_new(source: str, database: Engine) -> RunSummary | None:
    """The summary of a run recorded at once, in `runs` as any other, when no Prefect server is configured and
    every file the source lists was seen before as it is now, its document finished (each file's last_seen_at
    is updated); None, having written nothing, otherwise: the digitize flow must run.

    The files are listed and looked up (one query) as the flow does; no file is read and no model loaded. Its
    metrics are published as a flow's are.
    """
    started = time.perf_counter()
    if prefect_server_configured() or current_revision(database) != head_revision():  # the flow migrates a schema
        return None
    tell(Step(Stage.LOOKING, detail=source))
    files = list_source(source)
    with session_scope(database) as session:
        unchanged = unchanged_files(files, sightings(session, [file.uri for file in files]))
    if len(unchanged) < len(files):
        return None
    run_id = open_run(database, source, None)
    try:
        with session_scope(database) as session:
            mark_seen(session, [sighting.source_id for sighting in unchanged.values()])
        registered = [Registered(file, unchanged[file.uri].sha256, unchanged[file.uri].document_id,
                                 Registration.UNCHANGED)
                      for file in files]
        summary = finish(database, run_id, registered, PageCounts(), [], time.perf_counter() - started)
    except BaseException:
        abandon_run(run_id, time.perf_counter() - started, database)
        raise
    publish_run_metrics(summary, RunMetrics(), completed=True)
    return summary
