"""Which failures folio's tasks retry: transient ones (database, network, S3 throttling, GPU memory), not bad input."""

import errno

import psycopg
import pytest
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
    ResponseStreamingError,
)
from sqlalchemy import exc

from pages.pdf import BadDocument
from sources.failures import is_transient
from tasks.policy import task_options


def client_error(code: str) -> ClientError:
    """The error botocore raises for an S3 response with this error code."""
    return ClientError({"Error": {"Code": code, "Message": code}}, "GetObject")


ENDPOINT = "https://s3.eu-west-1.amazonaws.com/archive/scan.pdf"


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
    client_error("SlowDown"),
    client_error("503"),
    ReadTimeoutError(endpoint_url=ENDPOINT),
    ConnectionClosedError(endpoint_url=ENDPOINT),
    EndpointConnectionError(endpoint_url=ENDPOINT),
    ConnectTimeoutError(endpoint_url=ENDPOINT),
    ResponseStreamingError(error="Connection broken: IncompleteRead(1024 bytes read, 4096 more expected)"),
    RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
    raised_from(RuntimeError("batch could not be stored"), psycopg.OperationalError("connection refused")),
])
def test_transient_errors_are_retried(error: Exception):
    assert is_transient(error)


@pytest.mark.parametrize("error", [
    BadDocument("not a PDF: no header"),
    ValueError("page 3 out of range"),
    exc.IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("duplicate key")),
    client_error("NoSuchKey"),
    client_error("AccessDenied"),
    OSError(errno.ENOSPC, "No space left on device"),
    RuntimeError("the worker lost its disk"),
])
def test_deterministic_errors_are_not(error: Exception):
    assert not is_transient(error)


def test_retry_delays_double():
    options = task_options()
    assert options["retries"] == len(options["retry_delay_seconds"]) == 4
    assert options["retry_delay_seconds"] == [2.0, 4.0, 8.0, 16.0] and options["retry_jitter_factor"] > 0
