"""Which failures folio's tasks retry: transient ones (database, network, S3 throttling, GPU memory), not bad input."""

import errno

import psycopg
import pytest
from sqlalchemy import exc

from pages.pdf import BadDocument
from sources.failures import is_transient
from tasks.policy import task_options


def botocore_error(name: str, code: str | None = None) -> Exception:
    """An error of botocore's kind (its module and its response), without needing boto3 installed."""
    kind = type(name, (Exception,), {"__module__": "botocore.exceptions"})
    error = kind(name)
    if code is not None:
        error.response = {"Error": {"Code": code}}
    return error


def raised_from(error: Exception, cause: Exception) -> Exception:
    try:
        raise error from cause
    except Exception as chained:
        return chained


@pytest.mark.parametrize("error", [
    psycopg.OperationalError("terminating connection due to administrator command"),
    exc.OperationalError("INSERT", {}, psycopg.OperationalError("server closed the connection unexpectedly")),
    exc.InterfaceError("SELECT", {}, psycopg.InterfaceError("connection already closed")),
    ConnectionResetError(errno.ECONNRESET, "reset by peer"),
    TimeoutError("read timed out"),
    botocore_error("ClientError", "SlowDown"),
    botocore_error("ClientError", "503"),
    botocore_error("ReadTimeoutError"),
    RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
    raised_from(RuntimeError("batch could not be stored"), psycopg.OperationalError("connection refused")),
])
def test_transient_errors_are_retried(error: Exception):
    assert is_transient(error)


@pytest.mark.parametrize("error", [
    BadDocument("not a PDF: no header"),
    ValueError("page 3 out of range"),
    exc.IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("duplicate key")),
    botocore_error("ClientError", "NoSuchKey"),
    botocore_error("ClientError", "AccessDenied"),
    OSError(errno.ENOSPC, "No space left on device"),
    RuntimeError("the worker lost its disk"),
])
def test_deterministic_errors_are_not(error: Exception):
    assert not is_transient(error)


def test_retry_delays_double():
    options = task_options()
    assert options["retries"] == len(options["retry_delay_seconds"]) == 4
    assert options["retry_delay_seconds"] == [2.0, 4.0, 8.0, 16.0] and options["retry_jitter_factor"] > 0
