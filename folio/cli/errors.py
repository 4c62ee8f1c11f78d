"""What the command line says when something goes wrong: one or two lines on stderr and a documented exit code."""

import os
import sys
import traceback
from enum import IntEnum

from sources.causes import causes


class ExitCode(IntEnum):
    """folio's exit codes (the README's table)."""

    OK = 0
    FAILED = 1  # the work ran and failed: batches failed after their retries, PostgreSQL refused a query
    USAGE = 2  # something to fix first: arguments, settings, a source or document not found, the database
    INTERNAL = 3  # an unexpected error, most likely a bug: --debug shows where
    INTERRUPTED = 130  # Ctrl-C or SIGTERM


# SQLSTATE classes of a connection that failed or was refused: connection exception, invalid authorization,
# no such database, operator intervention (shutdown, cannot connect now); None: failed before the server answered
_CONNECTION_STATES = ("08", "28", "3D", "57P")


class UsageError(Exception):
    """Something the person running folio must fix before trying again; the message says what."""


class Failed(Exception):
    """The work ran and failed (exit 1): PostgreSQL refused a `folio sql` query, say; the message says why."""


def debugging(flag: bool = False) -> bool:
    """--debug, or FOLIO_DEBUG set to anything but empty or 0 (read here: the settings may be what is broken)."""
    return flag or os.environ.get("FOLIO_DEBUG", "") not in ("", "0")


def explain(error: BaseException) -> tuple[ExitCode, str]:
    """The exit code and a one-line message for an error that ended a command. An error raised while Ctrl-C was
    being handled is the interruption: a terminal's Ctrl-C stops Prefect's temporary server too, and telling it
    that the flow run crashed then fails."""
    if any(isinstance(link, KeyboardInterrupt) for link in causes(error)):
        return ExitCode.INTERRUPTED, "interrupted"
    if (lost := _api_lost(error)) is not None:
        return ExitCode.FAILED, (f"Prefect's API stopped answering ({type(lost).__name__}: {_first_line(lost)}); "
                                 "a run is closed failed, what it stored is kept, and the next run completes it")
    if _is_settings_error(error):
        return ExitCode.USAGE, _settings_message(error)
    if (database := _database_message(error)) is not None:
        return database
    if isinstance(error, (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError,
                          PermissionError)) and error.strerror:
        return ExitCode.USAGE, f"{error.strerror.lower()}: {error.filename}"
    if isinstance(error, (UsageError, OSError, NotImplementedError, ValueError)):
        return ExitCode.USAGE, _first_line(error)
    if isinstance(error, Failed):
        return ExitCode.FAILED, _first_line(error)
    return ExitCode.INTERNAL, (f"unexpected error: {type(error).__name__}: {_first_line(error)} "
                               "(run again with --debug for the traceback)")


def report(command: str, error: BaseException, debug: bool) -> ExitCode:
    """Print the error (after its traceback when debugging) and return its exit code."""
    if debug:
        traceback.print_exception(error)
    code, message = explain(error)
    print(f"folio {command}: {message}", file=sys.stderr)
    return code


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _api_lost(error: BaseException) -> BaseException | None:
    """The error, or one it came from, that says Prefect's API could not be reached or stopped answering."""
    import httpx

    return next((link for link in causes(error) if isinstance(link, httpx.TransportError)), None)


def _is_settings_error(error: BaseException) -> bool:
    from pydantic import ValidationError

    return isinstance(error, ValidationError) and error.title == "Settings"


def _settings_message(error) -> str:
    problems = []
    for item in error.errors():
        name = "FOLIO_" + "_".join(str(part) for part in item["loc"]).upper()
        problems.append(f"{name}={item.get('input')!s}: {item['msg'].removeprefix('Input ')}")
    return "bad setting " + "; ".join(problems)


def connection_error(error: BaseException) -> BaseException | None:
    """The error, or one it was raised from, that says the database could not be reached or refused folio."""
    import psycopg
    from sqlalchemy.exc import DBAPIError

    while error is not None:
        original = error.orig if isinstance(error, DBAPIError) else error
        if isinstance(original, psycopg.OperationalError) and (
                original.sqlstate is None or original.sqlstate.startswith(_CONNECTION_STATES)):
            return original
        error = error.__cause__
    return None


def _database_message(error: BaseException) -> tuple[ExitCode, str] | None:
    """A database that cannot be reached or refuses folio is for the person to fix; a missing schema too."""
    import psycopg
    from sqlalchemy.exc import DBAPIError

    from db.server import error_line

    original = error.orig if isinstance(error, DBAPIError) else error
    if isinstance(original, psycopg.errors.UndefinedTable):
        return ExitCode.USAGE, (f"the database has no folio schema ({error_line(original)}): "
                                "run `folio db upgrade` or `folio run` first")
    if (failed := connection_error(error)) is not None:
        reason = error_line(failed).removeprefix("connection failed: ")
        return ExitCode.USAGE, f"cannot use the database: {reason} (check FOLIO_DATABASE_URL)"
    return None
