"""How folio's tasks retry and resume.

A transient failure (the database restarting or unreachable, S3 throttling or timing out, a GPU out
of memory) is retried with exponential backoff and jitter; anything else (a corrupt PDF, a bug)
fails at once, so that it is recorded instead of repeated. Results are persisted and cached per
flow run, so that a retried flow run (Retry in the Prefect UI) skips the tasks that finished.
"""

from datetime import timedelta
from typing import Any

from prefect.cache_policies import DEFAULT, NO_CACHE
from prefect.tasks import exponential_backoff

from base.settings import get_settings
from sources.failures import is_transient


def retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect's retry condition: retry a task run only when it failed on a transient error."""
    error = state.data if isinstance(state.data, BaseException) else state.result(raise_on_failure=False)
    return isinstance(error, BaseException) and is_transient(error)


RESULTS_KEPT = timedelta(days=7)  # a flow run retried later than this starts its tasks over


def task_options(resumable: bool = True) -> dict[str, Any]:
    """Options of a folio task: FOLIO_RETRIES tries after the first on transient errors, delays doubling
    from FOLIO_RETRY_DELAY_SECONDS; a resumable task's result is reused when its flow run is retried."""
    settings = get_settings()
    delays = exponential_backoff(backoff_factor=settings.retry_delay_seconds)(settings.retries)
    caching = {"cache_policy": DEFAULT, "persist_result": True, "cache_expiration": RESULTS_KEPT} if resumable \
        else {"cache_policy": NO_CACHE}
    return {"retries": settings.retries, "retry_delay_seconds": delays or 0, "retry_jitter_factor": 0.5,
            "retry_condition_fn": retry_transient, **caching}
