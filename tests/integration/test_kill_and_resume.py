"""A `folio run` killed with SIGKILL at several points, then run again: every page stored once, the same export."""

import json
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
from tests.integration.folio_process import LEASE_SECONDS, FolioRun, wait_for_blocked_insert


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
