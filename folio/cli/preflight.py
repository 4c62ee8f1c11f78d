"""Checks before a flow starts: what the person must fix is said at once, and no run is opened for it."""

from pathlib import Path

from folio.cli.errors import UsageError


def check_source(source: str) -> None:
    """A local source must exist (an S3 prefix is listed by the flow itself)."""
    if not source.startswith("s3://") and not Path(source).expanduser().exists():
        raise UsageError(f"source not found: {source}")


def check_database() -> None:
    """Connect once: an unreachable or refusing database fails here, in a line, not after the flow's retries."""
    from base.database import database

    with database().connect():
        pass
