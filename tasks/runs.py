"""Opening and closing a run, as tasks."""

from prefect import task

from base.database import database
from base.run_summary import RunSummary
from base.settings import get_settings
from db.store import Claim
from runs.lifecycle import PageCounts, finish, open_run
from runs.register import Registered
from tasks.policy import task_options


@task(name="open-run", **task_options())
def open_run_task(source: str, claimant: str) -> int:
    return open_run(database(), source, claimant)


@task(name="finish-run", **task_options(resumable=False))
def finish_task(run_id: int, registered: list[Registered], pages: PageCounts, batch_errors: list[str],
                seconds: float, claim: Claim | None = None, lost: frozenset[int] = frozenset()) -> RunSummary:
    spool = get_settings().run_spool(claim.claimant) if claim is not None else None
    return finish(database(), run_id, registered, pages, batch_errors, seconds, claim, spool, lost)
