"""How folio's tasks retry and resume.

A transient failure (the database restarting or unreachable, S3 throttling or timing out, a GPU out
of memory) is retried with exponential backoff and jitter; anything else (a corrupt PDF, a bug)
fails at once, so that it is recorded instead of repeated. Results are persisted and cached per
flow run, so that a retried flow run (Retry in the Prefect UI) skips the tasks that finished.
"""

import errno
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from prefect.cache_policies import DEFAULT, NO_CACHE
from prefect.tasks import exponential_backoff

from folio.settings import get_settings

_TRANSIENT_ERRNOS = {errno.ECONNRESET, errno.ECONNREFUSED, errno.ECONNABORTED, errno.ETIMEDOUT, errno.EPIPE,
                     errno.EHOSTUNREACH, errno.ENETUNREACH}
_S3_TRANSIENT_CODES = {"Throttling", "ThrottlingException", "SlowDown", "RequestTimeout", "RequestTimeTooSkewed",
                       "RequestLimitExceeded", "InternalError", "ServiceUnavailable", "500", "502", "503", "504"}
_BOTOCORE_TRANSIENT = {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError", "ConnectionClosedError"}


def is_transient(error: BaseException) -> bool:
    """Whether the error, or one it was raised from, is one that a later try may not meet."""
    return any(_transient(link) for link in _chain(error))


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _transient(error: BaseException) -> bool:
    import psycopg
    from sqlalchemy import exc

    if isinstance(error, exc.DBAPIError):
        return error.connection_invalidated or isinstance(error, exc.OperationalError | exc.InterfaceError)
    if isinstance(error, exc.DisconnectionError | psycopg.OperationalError | psycopg.InterfaceError):
        return True
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    if isinstance(error, OSError) and error.errno in _TRANSIENT_ERRNOS:
        return True
    kind = type(error).__name__
    if type(error).__module__.startswith("botocore"):
        code = str(getattr(error, "response", {}).get("Error", {}).get("Code", ""))
        return kind in _BOTOCORE_TRANSIENT or code in _S3_TRANSIENT_CODES
    return kind == "OutOfMemoryError" or "out of memory" in str(error).lower()


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
