"""The digitize flow with its batch tasks on a local two-worker Dask cluster: the same export as in-process threads."""

import json
from pathlib import Path

import pytest
from prefect_dask import DaskTaskRunner
from sqlalchemy import Engine

from db.export import write_exports
from flows.digitize import digitize
from folio.database import database as configured_database
from folio.settings import get_settings
from tests import pdfs


def exports(database: Engine, out: Path) -> dict[str, dict]:
    write_exports(database, out)
    return {path.name: json.loads(path.read_text()) for path in out.glob("*.json")}


def test_dask_runner_gives_the_same_export(database: Engine, new_database_url, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch):
    archive = tmp_path / "archive"
    archive.mkdir()
    pdfs.two_column_pdf(archive)
    pdfs.scan_pdf(archive)
    threads = digitize(source=str(archive), batch_size=1)
    expected = exports(database, tmp_path / "threads")

    monkeypatch.setenv("FOLIO_DATABASE_URL", new_database_url())  # the Dask workers inherit the environment
    get_settings.cache_clear()
    on_dask = digitize.with_options(task_runner=DaskTaskRunner(cluster_kwargs={
        "n_workers": 2, "threads_per_worker": 1, "processes": True, "dashboard_address": None}))
    summary = on_dask(source=str(archive), batch_size=1)
    assert (summary.pages_parsed, summary.documents_done) == (threads.pages_parsed, threads.documents_done) == (3, 2)
    assert exports(configured_database(), tmp_path / "dask") == expected
