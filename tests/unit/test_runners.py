"""The flows' task runner is made from the settings as each flow run starts, not when the flows are imported."""

import os

import pytest
from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from base.settings import MAX_DEFAULT_WORKERS, get_settings
from flows.digitize import digitize
from flows.reprocess import reprocess


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch):
    """Sets FOLIO_ variables after the flows were imported, as an operator's next run would have them."""
    def set_(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(f"FOLIO_{name}", value)
        get_settings.cache_clear()
    yield set_
    get_settings.cache_clear()


@pytest.mark.parametrize("flow", [digitize, reprocess])
def test_each_flow_run_gets_the_runner_the_settings_name_then(flow, settings):
    settings(TASK_RUNNER="threads", WORKERS="3")
    runner = flow.task_runner.duplicate()
    assert isinstance(runner, ThreadPoolTaskRunner) and runner._max_workers == 3
    settings(TASK_RUNNER="dask", WORKERS="2")
    runner = flow.task_runner.duplicate()
    assert isinstance(runner, DaskTaskRunner) and runner.cluster_kwargs["n_workers"] == 2
    settings(TASK_RUNNER="tcp://scheduler.archive.internal:8786")
    assert flow.task_runner.duplicate().address == "tcp://scheduler.archive.internal:8786"


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 2), (16, MAX_DEFAULT_WORKERS)])
def test_without_folio_workers_a_run_takes_a_batch_a_core(cores, workers, monkeypatch):
    """Unset, FOLIO_WORKERS is one a core this process may use (counted when the settings are read), at most
    MAX_DEFAULT_WORKERS, and the runner gets that many."""
    monkeypatch.delenv("FOLIO_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    get_settings.cache_clear()
    try:
        assert get_settings().workers == workers
        assert digitize.task_runner.duplicate()._max_workers == workers
    finally:
        get_settings.cache_clear()
