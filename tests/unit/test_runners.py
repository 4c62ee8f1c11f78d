"""The flows' task runner is made from the settings as each flow run starts, not when the flows are imported."""

import pytest
from prefect.task_runners import ThreadPoolTaskRunner
from prefect_dask import DaskTaskRunner

from base.settings import get_settings
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
