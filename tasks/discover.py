"""Listing a source, as a task."""

from prefect import task

from db.store import SourceFile
from sources.listing import list_source
from tasks.policy import task_options


@task(name="discover", **task_options())
def discover(source: str) -> list[SourceFile]:
    return list_source(source)
