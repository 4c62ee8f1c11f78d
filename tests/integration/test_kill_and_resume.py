"""A `folio run` killed with SIGKILL at several points, then run again at once (with the default lease): every page
stored once, the same export, nothing of the killed process left running."""

import json
import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psutil
import psycopg
import pytest
from sqlalchemy import Engine, text

from base.database import database as configured_database
from base.settings import Settings
from db.embedded import Handles, get_server
from db.export import write_exports
from db.passwords import passfile
from db.processes import ProcessId
from db.server import libpq_url, start_embedded
from flows.digitize import digitize
from tests import pdfs
from tests.integration.folio_process import FolioRun, wait_for_blocked_insert, wait_for_run_status


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    pdfs.reports(folder, [f"Minutes of {1920 + number}" for number in range(3)], "minutes")
    pdfs.scan_pdf(folder)
    return folder


def exports(database: Engine, out: Path) -> dict[str, dict]:
    write_exports(database, out)
    return {path.name: json.loads(path.read_text()) for path in out.glob("*.json")}


@pytest.mark.parametrize("point", ["listing", "mid-batch", "commit"])
def test_a_killed_run_resumes_to_the_same_export(point: str, archive: Path, tmp_path: Path,
                                                 new_database_url: Callable[[], str], database: Engine):
    digitize(source=str(archive), batch_size=2)  # the uninterrupted run, in the test's own database
    expected = exports(database, tmp_path / "expected")

    url = new_database_url()
    run = FolioRun(archive, url, tmp_path / "home")
    lock = None
    if point == "listing":
        run.wait_for("Beginning flow run")
    elif point == "mid-batch":
        run.wait_for("batch 1:")  # the first batch is stored, the next ones are under way
    else:
        lock = psycopg.connect(libpq_url(url))
        run.wait_for("pages to parse")
        lock.execute("LOCK TABLE blocks IN SHARE MODE")  # inserts into blocks wait; reads go on
        wait_for_blocked_insert(libpq_url(url))
    run.kill()
    if lock is not None:
        lock.rollback()
        lock.close()

    again = FolioRun(archive, url, tmp_path / "home")
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    resumed = configured_database(Settings(database_url=url))
    with resumed.connect() as connection:
        pages = connection.execute(text("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages")).one()
        statuses = connection.execute(text("SELECT DISTINCT status, claimed_by FROM documents")).all()
    assert tuple(pages) == (7, 7)
    assert statuses == [("done", None)]
    assert exports(resumed, tmp_path / "resumed") == expected


def started_by(pid: int, pgdata: Path) -> set[ProcessId]:
    """What a folio process runs besides itself: its descendants and process group, the embedded PostgreSQL's."""
    processes = set(psutil.Process(pid).children(recursive=True))
    processes |= {process for process in psutil.process_iter() if _group(process) == pid and process.pid != pid}
    postmaster = psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))
    processes |= {postmaster, *postmaster.children()}
    return {found for process in processes if (found := ProcessId.of(process.pid)) is not None}


def _group(process: psutil.Process) -> int | None:
    try:
        return os.getpgid(process.pid)
    except OSError:  # it ended meanwhile
        return None


def test_a_run_killed_alone_leaves_nothing_running_once_the_next_run_is_done(archive: Path, session_dir: Path):
    # kill -9 of the folio process only, as the OOM killer does: Prefect's temporary server, the embedded
    # PostgreSQL and the engine worker processes outlive it (the workers end by themselves once they see it gone).
    # Under the session folder: as root, the server's own user must reach FOLIO_HOME.
    home = session_dir / f"killed-{uuid.uuid4().hex[:8]}" / "home"
    run = FolioRun(archive, None, home, FOLIO_WORKERS="2")
    run.wait_for("batch 1:")  # the first batch is stored, the next ones are under way
    left = started_by(run.process.pid, home / "pgdata")
    run.kill_alone()
    assert [process for process in left if process.alive()], "nothing outlived the killed process"

    again = FolioRun(archive, None, home)
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    assert [process for process in left if process.alive()] == []
    assert not (home / "pgdata" / "postmaster.pid").exists()  # stopped by the last folio process to use it
    assert Handles(home / "pgdata" / ".handle_pids.json").get() == []

    url = start_embedded(home / "pgdata")
    try:
        with psycopg.connect(libpq_url(url)) as connection:
            pages = connection.execute("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages").fetchone()
            documents = connection.execute("SELECT DISTINCT status, claimed_by FROM documents").fetchall()
            runs = connection.execute("SELECT status, pages_parsed > 0 FROM runs ORDER BY id").fetchall()
    finally:
        get_server(home.resolve() / "pgdata", passfile(home.resolve())).cleanup()
    assert pages == (7, 7)
    assert documents == [("done", None)]
    assert runs == [("crashed", False), ("completed", True)]  # the next run parsed what the killed one had claimed


def test_ctrl_c_ends_a_run_with_exit_code_130_and_the_next_run_completes_it(archive: Path, tmp_path: Path,
                                                                            new_database_url: Callable[[], str]):
    """SIGINT to the run's process in the middle of its batches: one line, exit code 130, the run closed as failed;
    its unfinished documents stay claimed for a Retry until the lease (short here) ends, then the next run
    completes them. The next batch's insert is held by a lock until the run is closed, so the run cannot end its
    batches before the signal."""
    url, lease = new_database_url(), {"FOLIO_CLAIM_LEASE_SECONDS": "2"}
    run = FolioRun(archive, url, tmp_path / "home", **lease)
    run.wait_for("batch 1:")
    with psycopg.connect(libpq_url(url)) as lock:
        lock.execute("LOCK TABLE blocks IN SHARE MODE")  # inserts into blocks wait; reads go on
        wait_for_blocked_insert(libpq_url(url))
        os.kill(run.process.pid, signal.SIGINT)
        wait_for_run_status(libpq_url(url), "failed", run)  # the interrupt is handled; the held batch ends after
        lock.rollback()
    assert run.finish() == 130, "".join(run.lines)[-3000:]
    assert "folio run: interrupted\n" in run.lines, "".join(run.lines)[-3000:]
    time.sleep(3)
    again = FolioRun(archive, url, tmp_path / "home", **lease)
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    with psycopg.connect(libpq_url(url)) as connection:
        runs = connection.execute("SELECT status FROM runs ORDER BY id").fetchall()
        pages = connection.execute("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages").fetchone()
    assert runs == [("failed",), ("completed",)] and pages == (7, 7)
