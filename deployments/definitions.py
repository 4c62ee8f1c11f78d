"""folio's deployments, in one place: the nightly digitization, manual ingest and reprocess, on a process pool.

`folio deploy` (or `register_deployments()`) creates the work pool when it is missing and registers
all three against the Prefect API in PREFECT_API_URL; a worker started on that pool runs them from
this checkout.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect import Flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.exceptions import ObjectNotFound
from prefect.schedules import Cron

from base.settings import Settings, get_settings

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Deployment:
    """One deployment: which flow, its name, schedule, fixed parameters and how many runs at once."""

    name: str
    entrypoint: str  # path:function under the project root
    description: str
    cron: str | None = None
    parameters: dict[str, Any] = field(default_factory=dict)
    concurrency_limit: int | None = None
    tags: tuple[str, ...] = ("folio",)
    paused: bool = False


def nightly_paused_because(settings: Settings) -> str | None:
    """Why nightly-digitization is registered paused: FOLIO_NIGHTLY_SOURCE unset, or a folder that does not exist."""
    if "nightly_source" not in settings.model_fields_set:
        return "set FOLIO_NIGHTLY_SOURCE to the folder or s3://bucket/prefix it should read, then register again"
    source = settings.nightly_source
    if not source.startswith("s3://") and not Path(source).expanduser().exists():
        return f"FOLIO_NIGHTLY_SOURCE={source} does not exist"
    return None


def deployments(settings: Settings) -> list[Deployment]:
    return [
        Deployment("nightly-digitization", "flows/digitize.py:digitize",
                   "Every night: list the archive's inbox and parse what is new. One run at a time. Paused until "
                   "FOLIO_NIGHTLY_SOURCE names a folder that exists or an S3 prefix.",
                   cron=settings.nightly_cron, parameters={"source": settings.nightly_source}, concurrency_limit=1,
                   paused=nightly_paused_because(settings) is not None),
        Deployment("ingest", "flows/digitize.py:digitize",
                   "Start a run by hand: a folder, an S3 prefix or one PDF."),
        Deployment("reprocess", "flows/reprocess.py:reprocess",
                   "Parse finished documents again: by status (failed, quarantined), id, date or engine version."),
    ]


def ensure_work_pool(name: str) -> None:
    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(name)
        except ObjectNotFound:
            client.create_work_pool(WorkPoolCreate(name=name, type="process",
                                                   description="folio: flow runs as processes on this machine"))


def register_deployments(settings: Settings | None = None) -> dict[str, UUID]:
    """Create the work pool if needed and register every deployment; returns their ids by name."""
    settings = settings or get_settings()
    ensure_work_pool(settings.work_pool)
    registered = {}
    for spec in deployments(settings):
        flow = Flow.from_source(source=str(PROJECT_ROOT), entrypoint=spec.entrypoint)
        registered[spec.name] = flow.deploy(
            name=spec.name, work_pool_name=settings.work_pool, build=False, push=False,
            schedule=Cron(spec.cron, timezone=settings.timezone) if spec.cron else None,
            parameters=spec.parameters, concurrency_limit=spec.concurrency_limit, description=spec.description,
            tags=list(spec.tags), paused=spec.paused, print_next_steps=False, ignore_warnings=True,
        )
    return registered
