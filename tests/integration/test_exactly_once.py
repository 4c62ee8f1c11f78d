"""Claims with a lease: runs at the same time parse every page once, a crashed run's documents are taken over."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text, update

from db.models import Document, Page
from db.session import session_scope
from db.store import Claim, SourceFile, claim_document, claim_for_run
from flows.digitize import digitize
from tests import pdfs


def test_a_live_claim_keeps_other_runs_off_and_an_expired_one_does_not(database: Engine):
    first, second = Claim("run-a", 600), Claim("run-b", 600)
    with session_scope(database) as session:
        document_id, _ = claim_document(session, "a" * 64, SourceFile(uri="/x.pdf", size_bytes=1))
        assert claim_for_run(session, document_id, first)
        assert claim_for_run(session, document_id, first)  # a run may renew its own claim
        assert not claim_for_run(session, document_id, second)
        session.execute(update(Document).values(claimed_until=func.now() - text("interval '1 second'")))
        assert claim_for_run(session, document_id, second)
        assert session.execute(select(Document.claimed_by)).scalar_one() == "run-b"


def crash(database: Engine, claimed_until: str) -> None:
    """Leave the stored document as a run killed mid-document would: page 2 missing, still claimed."""
    with session_scope(database) as session:
        session.execute(text("DELETE FROM pages WHERE page_no = 2"))
        session.execute(text(f"UPDATE documents SET status = 'processing', claimed_by = 'killed-run', "
                             f"claimed_until = now() + interval '{claimed_until}'"))


@pytest.mark.parametrize(("lease_left", "parsed"), [("-1 second", 1), ("10 minutes", 0)])
def test_a_crashed_run_is_taken_over_only_when_its_lease_expired(database: Engine, tmp_path: Path,
                                                                 lease_left: str, parsed: int):
    pdfs.two_column_pdf(tmp_path)
    digitize(source=str(tmp_path))
    crash(database, lease_left)
    summary = digitize(source=str(tmp_path))
    assert summary.pages_parsed == parsed
    with database.connect() as connection:
        status, claimed_by = connection.execute(select(Document.status, Document.claimed_by)).one()
        pages = connection.execute(select(func.count()).select_from(Page)).scalar()
    if parsed:
        assert (status, claimed_by, pages) == ("done", None, 2)
    else:  # still the other run's: left alone, counted as handled elsewhere
        assert (status, claimed_by, pages) == ("processing", "killed-run", 1)
        assert summary.documents_duplicate == summary.files_listed == 1


def test_two_runs_at_once_parse_every_page_once(database: Engine, empty_database: str, tmp_path: Path):
    archive = tmp_path / "archive"
    pdfs.reports(archive, [f"Annual Report {1990 + number}" for number in range(4)], "report")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOLIO_", "PREFECT_"))}
    env.update(FOLIO_DATABASE_URL=empty_database, FOLIO_FORMULA_MODEL="none", FOLIO_BATCH_SIZE="2",
               FOLIO_HOME=str(tmp_path / "home"), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    runs = [subprocess.Popen([sys.executable, "-m", "folio.cli", "run", str(archive)],
                             env={**env, "PREFECT_HOME": str(tmp_path / f"prefect-{i}")},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i in range(2)]
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs[0][-3000:] + outputs[1][-3000:]
    with database.connect() as connection:
        pages = connection.execute(text("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages")).one()
        parsed, reused, listed, done, duplicate = connection.execute(text(
            "SELECT sum(pages_parsed), sum(pages_reused), sum(files_listed), sum(documents_done), "
            "sum(documents_duplicate) FROM runs")).one()
        statuses = connection.execute(text("SELECT DISTINCT status, claimed_by FROM documents")).all()
    assert tuple(pages) == (8, 8)
    assert parsed + reused == 8  # the engine saw each page once, in one run or the other
    assert (listed, done, duplicate) == (8, 4, 4)  # each file done by one run, left to it by the other
    assert statuses == [("done", None)]
