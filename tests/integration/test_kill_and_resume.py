"""A `folio run` killed with SIGKILL at several points, then run again: every page stored once, the same export."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, text

from db.export import write_exports
from db.server import libpq_url
from db.session import get_engine
from flows.digitize import digitize
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from folio.settings import Settings
from tests import pdfs

LEASE_SECONDS = 3  # a killed run's claims expire this soon, so that the test can run again at once


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    for number in range(3):
        pages = [PageSpec(title=f"Minutes of {1920 + number}", columns=2, paragraphs=PARAGRAPHS[number:number + 3]),
                 pdfs.WITH_TABLE]
        born_digital_pdf(folder / f"minutes-{number}.pdf", pages)
    pdfs.scan_pdf(folder)
    return folder


def exports(engine: Engine, out: Path) -> dict[str, dict]:
    write_exports(engine, out)
    return {path.name: json.loads(path.read_text()) for path in out.glob("*.json")}


class FolioRun:
    """`folio run` in its own process group (with its Prefect server), its output read line by line."""

    def __init__(self, source: Path, database_url: str, home: Path):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FOLIO_", "PREFECT_"))}
        env.update(FOLIO_DATABASE_URL=database_url, FOLIO_FORMULA_MODEL="none", FOLIO_BATCH_SIZE="2",
                   FOLIO_CLAIM_LEASE_SECONDS=str(LEASE_SECONDS), FOLIO_HOME=str(home),
                   PREFECT_HOME=str(home / "prefect"), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
        self.process = subprocess.Popen([sys.executable, "-m", "flows.cli", "run", str(source)], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, needle: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while not any(needle in line for line in self.lines):
            assert self.process.poll() is None, "".join(self.lines)[-3000:]
            assert time.monotonic() < deadline, f"no {needle!r} in: " + "".join(self.lines)[-3000:]
            time.sleep(0.05)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def finish(self) -> int:
        code = self.process.wait(timeout=600)
        self.reader.join(timeout=10)
        return code


def wait_for_blocked_insert(url: str, timeout: float = 300) -> None:
    """Until a run's transaction waits to insert blocks: it has written pages that are not committed."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as connection:
        while not connection.execute(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO blocks%'"
        ).fetchone():
            assert time.monotonic() < deadline, "the run never reached the commit"
            time.sleep(0.05)


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
    time.sleep(LEASE_SECONDS + 0.5)

    again = FolioRun(archive, url, tmp_path / "home")
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    resumed = get_engine(Settings(database_url=url))
    with resumed.connect() as connection:
        pages = connection.execute(text("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages")).one()
        statuses = connection.execute(text("SELECT DISTINCT status, claimed_by FROM documents")).all()
    assert tuple(pages) == (7, 7)
    assert statuses == [("done", None)]
    assert exports(resumed, tmp_path / "resumed") == expected
