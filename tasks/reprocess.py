"""Choosing finished documents to parse again and reopening them, as tasks."""

from prefect import task
from prefect.logging import get_run_logger

from base.database import database
from base.settings import get_settings
from db.store import Claim, Selection
from runs.register import Registered
from runs.reopen import reopen_documents, select_documents
from tasks.policy import task_options


@task(name="select-documents", **task_options())
def select_task(selection: Selection) -> list[int]:
    return select_documents(database(), selection)


@task(name="reopen-documents", **task_options())
def reopen_task(document_ids: list[int], claim: Claim) -> list[Registered]:
    settings = get_settings()
    return reopen_documents(document_ids, database(settings), settings.max_file_bytes, claim, get_run_logger())
