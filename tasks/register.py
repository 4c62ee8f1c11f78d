"""Registering listed files, as a task."""

from prefect import task
from prefect.logging import get_run_logger

from base.database import database
from base.settings import get_settings
from db.store import Claim, SourceFile
from runs.register import Registered, register_files
from tasks.policy import task_options


@task(name="register-files", **task_options())
def register(files: list[SourceFile], claim: Claim, force: bool = False) -> list[Registered]:
    settings = get_settings()
    return register_files(files, database(settings), settings.max_file_bytes, claim, get_run_logger(), force)
