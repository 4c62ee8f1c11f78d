"""What stops one file or page, in words (the reason a failed document or page is stored with), and which errors a
later try may not meet (transient: retried)."""

import errno

from sources.causes import causes


class BadDocument(Exception):
    """A file that cannot be processed, with a message a person can act on."""


class OverBudget(Exception):
    """A page over one of its budgets (pages/budget.py); the message is the reason, for people."""


class OutOfTime(BaseException):
    """Raised in a thread whose time ran out (pages/budget.py). Not an Exception, so that no `except Exception` on
    the way (in the engine or a library) swallows it; the caller of `TimeLimit` catches it."""


def unreadable(error: OSError) -> BadDocument:
    """The failure of a file that could not be looked at, opened or read."""
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return BadDocument("vanished during the run")
    if error.errno in (errno.EACCES, errno.EPERM):
        return BadDocument("unreadable: permission denied")
    if error.errno == errno.ELOOP:
        return BadDocument("refused: the file was replaced by a symbolic link")
    return BadDocument(f"unreadable: {(error.strerror or str(error)).lower()}")


def mupdf_message(error: BaseException) -> str:
    """MuPDF's message without its error code: "code=7: cycle in page tree" -> "cycle in page tree"."""
    text = (str(error).strip() or type(error).__name__).splitlines()[0]
    code, colon, rest = text.partition(": ")
    if colon and code.startswith("code="):
        text = rest
    return text[:1].lower() + text[1:200]


def reason(error: BaseException) -> str:
    """Why one file or page could not be processed, for the `error` it is stored with."""
    if isinstance(error, BadDocument | OverBudget):
        return str(error)
    if isinstance(error, OSError):
        return str(unreadable(error))
    if isinstance(error, MemoryError):
        return "over budget: out of memory"
    if isinstance(error, OutOfTime):
        return "over budget: out of time (FOLIO_PAGE_TIMEOUT_SECONDS)"
    if type(error).__module__.startswith("pymupdf") or str(error).startswith("code="):
        return f"corrupt: {mupdf_message(error)}"
    code = s3_error_code(error)
    if code in ("NoSuchKey", "404"):
        return "vanished during the run"
    if code in ("PreconditionFailed", "412"):
        return "changed during the run: the object no longer has the ETag it was listed with"
    return f"error: {type(error).__name__}: {mupdf_message(error)}"


# The class of a stored reason, by how it starts: a label of few values for monitoring (failures by reason)
_REASON_CLASSES = (("over budget: out of time", "timeout"), ("over budget: out of memory", "memory"),
                   ("over budget", "over_budget"), ("corrupt", "corrupt"), ("encrypted", "encrypted"),
                   ("empty", "empty"), ("not a pdf", "not_a_pdf"), ("too large", "too_large"),
                   ("unreadable", "unreadable"), ("refused", "refused"), ("vanished", "vanished"),
                   ("changed during the run", "changed"), ("ocr:", "ocr"))


def reason_class(text: str) -> str:
    """The class of a reason `reason` (or the engine) gave: timeout, corrupt, encrypted, …; "error" for the rest."""
    lowered = text.lower()
    if "took more than" in lowered and lowered.startswith("over budget"):
        return "timeout"
    return next((name for start, name in _REASON_CLASSES if lowered.startswith(start)), "error")


_TRANSIENT_ERRNOS = {errno.ECONNRESET, errno.ECONNREFUSED, errno.ECONNABORTED, errno.ETIMEDOUT, errno.EPIPE,
                     errno.EHOSTUNREACH, errno.ENETUNREACH}
_S3_TRANSIENT_CODES = {"Throttling", "ThrottlingException", "SlowDown", "RequestTimeout", "RequestTimeTooSkewed",
                       "RequestLimitExceeded", "InternalError", "ServiceUnavailable", "500", "502", "503", "504"}
_BOTOCORE_TRANSIENT = {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError", "ConnectionClosedError",
                       "ResponseStreamingError"}


def is_transient(error: BaseException) -> bool:
    """Whether the error, or one it was raised from, is one that a later try may not meet."""
    return any(_transient(link) for link in causes(error))


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
        return kind in _BOTOCORE_TRANSIENT or s3_error_code(error) in _S3_TRANSIENT_CODES
    return kind == "OutOfMemoryError" or "out of memory" in str(error).lower()


def s3_error_code(error: BaseException) -> str:
    """The error code of an S3 response ("SlowDown", "404"); "" for an error that came with no response (botocore's
    timeouts and dropped connections carry `response=None`)."""
    response = getattr(error, "response", None)
    return str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""
