"""The digitize flow with its batch tasks on a Dask cluster named by FOLIO_TASK_RUNNER (a scheduler's address, as
for machines across a network): the same export as in-process threads."""

import json
import socket
import uuid
from pathlib import Path

import psycopg
import pytest
from distributed import Client, LocalCluster
from sqlalchemy import Engine

from base.database import database as configured_database
from base.settings import get_settings
from db.export import write_exports
from db.server import libpq_url
from flows.digitize import digitize
from tests import pdfs
from tests.integration.folio_process import FolioRun


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


@pytest.mark.parametrize("workers_database", ["unset", "another", "unset, run on the embedded server"])
def test_dask_workers_without_the_runs_database_fail_the_run_with_one_line(
        workers_database: str, new_database_url, session_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Workers started without FOLIO_DATABASE_URL (in a home of their own) or with another database fail each batch
    at once with one line naming the setting: no empty embedded server of their own, nothing stored elsewhere."""
    archive = tmp_path / "archive"
    archive.mkdir()
    pdfs.two_column_pdf(archive)
    run_url = None if workers_database.endswith("embedded server") else new_database_url()
    home = session_dir / f"dask-{uuid.uuid4().hex[:8]}"  # as root, the embedded server's user must reach a home
    other_url = new_database_url()
    monkeypatch.setenv("FOLIO_HOME", str(tmp_path / "worker home"))  # the Dask workers inherit this environment
    if workers_database == "another":
        monkeypatch.setenv("FOLIO_DATABASE_URL", other_url)
    else:
        monkeypatch.delenv("FOLIO_DATABASE_URL", raising=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        run = FolioRun(archive, run_url, home, FOLIO_TASK_RUNNER=cluster.scheduler_address)
        assert run.finish() == 1, "".join(run.lines)[-3000:]
    failure = [line for line in run.lines if line.startswith("folio: the run failed")]
    host = socket.gethostname()
    expected = {
        "unset": f"FOLIO_DATABASE_URL is not set on {host}, where this batch ran: set it on every Dask worker to "
                 "the run's database, postgresql://",
        "another": f"FOLIO_DATABASE_URL on {host}, where this batch ran, names postgresql://",
        "unset, run on the embedded server": f"FOLIO_DATABASE_URL is not set on {host}, where this batch ran, and "
                                             f"the run's database is the embedded PostgreSQL in {home / 'pgdata'}",
    }[workers_database]
    assert len(failure) == 1 and "NotTheRunsDatabase: " + expected in failure[0], "".join(run.lines)[-3000:]
    assert "relation" not in "".join(run.lines)
    assert not (tmp_path / "worker home" / "pgdata").exists()  # no embedded server started by the worker
    with psycopg.connect(libpq_url(other_url)) as connection:  # nothing stored in the workers' database
        assert connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
