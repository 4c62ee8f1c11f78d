"""The digitize flow with its batch tasks on a Dask cluster named by FOLIO_TASK_RUNNER (a scheduler's address, as
for machines across a network): the same export as in-process threads."""

import json
from pathlib import Path

import pytest
from distributed import Client, LocalCluster
from sqlalchemy import Engine

from db.export import write_exports
from flows.digitize import digitize
from folio.database import database as configured_database
from folio.settings import get_settings
from tests import pdfs


def exports(database: Engine, out: Path) -> dict[str, dict]:
    write_exports(database, out)
    return {path.name: json.loads(path.read_text()) for path in out.glob("*.json")}


def test_a_dask_scheduler_named_in_the_settings_runs_the_batches(database: Engine, new_database_url, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    archive = tmp_path / "archive"
    archive.mkdir()
    pdfs.two_column_pdf(archive)
    pdfs.scan_pdf(archive)
    threads = digitize(source=str(archive), batch_size=1)
    expected = exports(database, tmp_path / "threads")

    monkeypatch.setenv("FOLIO_DATABASE_URL", new_database_url())  # the Dask workers inherit the environment
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        monkeypatch.setenv("FOLIO_TASK_RUNNER", cluster.scheduler_address)  # set after the flows were imported
        get_settings.cache_clear()
        try:
            summary = digitize(source=str(archive), batch_size=1)
        finally:
            get_settings.cache_clear()
        with Client(cluster) as client:
            ran = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert ran == ["parse_batch"]  # the batches ran on this cluster
    assert (summary.pages_parsed, summary.documents_done) == (threads.pages_parsed, threads.documents_done) == (3, 2)
    assert exports(configured_database(), tmp_path / "dask") == expected
