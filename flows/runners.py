"""Where a flow's batch tasks run: threads in the flow's process (default), or a Dask cluster."""

from typing import Any, NoReturn

from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner

from base.settings import Settings, get_settings


def task_runner(settings: Settings | None = None) -> TaskRunner:
    """FOLIO_TASK_RUNNER: `threads` (FOLIO_WORKERS at once; with more than one and the engine on CPU, each hands its
    pages to one of FOLIO_WORKERS engine worker processes, see pages/engine_processes.py), `dask` (a local cluster of
    FOLIO_WORKERS processes), or the address of a Dask scheduler (`tcp://host:8786`) to fan out across machines."""
    settings = settings or get_settings()
    choice = settings.task_runner
    if choice == "threads":
        return ThreadPoolTaskRunner(max_workers=settings.workers)
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as error:
        raise ValueError(f"FOLIO_TASK_RUNNER={choice} needs prefect-dask: pip install 'folio[dask]'") from error
    if choice == "dask":
        return DaskTaskRunner(cluster_kwargs={"n_workers": settings.workers, "threads_per_worker": 1,
                                              "processes": True, "dashboard_address": None})
    return DaskTaskRunner(address=choice)


class SettingsTaskRunner(TaskRunner):
    """The flows' task runner: the one `task_runner` makes from the settings as each flow run starts (Prefect runs a
    flow's tasks on a duplicate of its runner, made then), not from those of the moment its module was imported."""

    def duplicate(self) -> TaskRunner:  # type: ignore[override]
        return task_runner(get_settings())

    def submit(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise RuntimeError("tasks run on the runner SettingsTaskRunner.duplicate() makes for each flow run")
