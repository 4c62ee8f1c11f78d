"""The plain functions behind the store, finish-run and reopen-documents tasks, called directly on real PostgreSQL:
save_batch, finish and reopen_documents."""

from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from db.statuses import Registration
from db.store import Claim
from pages.batch import parse_batch_pages
from pages.rows import PageOutcome, save_batch
from runs.batches import make_batches
from runs.lifecycle import PageCounts, finish, open_run
from runs.reopen import reopen_documents
from tests import pdfs
from tests.integration.batches import CLAIM, FakeParser, batch, pages, registered


def claimed_by(database: Engine) -> str | None:
    with database.connect() as connection:
        return connection.execute(text("SELECT claimed_by FROM documents")).scalar()


def run_row(database: Engine, run_id: int) -> tuple:
    with database.connect() as connection:
        return tuple(connection.execute(text("SELECT status, pages_parsed, documents_done, documents_failed FROM runs "
                                             "WHERE id = :id"), {"id": run_id}).one())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with one two-page report."""
    pdfs.two_column_pdf(tmp_path)
    return tmp_path


def test_save_batch_stores_every_page_once_and_finishes_the_document(database: Engine, folder: Path):
    (item,) = registered(database, folder)
    outcomes = [PageOutcome(item.document_id, 1, "f1", error="engine error: cannot parse"),
                PageOutcome(item.document_id, 2, "f2", error="ocr: a script the recognizer cannot read")]
    assert claimed_by(database) == CLAIM.claimant
    assert len(save_batch(database, outcomes[:1], CLAIM).pages) == 1
    assert claimed_by(database) == CLAIM.claimant  # a page is still to store: the run keeps its claim
    assert len(save_batch(database, outcomes, CLAIM).pages) == 1  # a retried batch: the page already stored is left
    assert pages(database, folder) == [(1, "failed", None, False, "engine error: cannot parse"),
                                       (2, "failed", None, False, "ocr: a script the recognizer cannot read")]
    with database.connect() as connection:
        status, error = connection.execute(text("SELECT status, error FROM documents")).one()
    assert (status, error, claimed_by(database)) == ("failed", "no page could be read", None)


def test_save_batch_leaves_a_document_another_run_took_over(database: Engine, folder: Path):
    """A run whose claim lapsed (it stopped beating for a lease) and was taken over stores none of the document's
    pages and does not fail it: it reports it lost. One whose lapsed claim nobody took takes it back."""
    (item,) = registered(database, folder)
    outcomes = [PageOutcome(item.document_id, 1, "f1", error="engine error: cannot parse")]
    with database.begin() as connection:
        connection.execute(text("UPDATE documents SET claimed_until = now() - interval '1 second'"))
    saved = save_batch(database, outcomes, CLAIM)
    assert (len(saved.pages), saved.lost, claimed_by(database)) == (1, frozenset(), CLAIM.claimant)
    with database.begin() as connection:
        connection.execute(text("UPDATE documents SET claimed_by = 'the-other-run', claimed_until = now() + "
                                "interval '10 minutes'"))
    saved = save_batch(database, [PageOutcome(item.document_id, 2, "f2", error="engine error")], CLAIM,
                       {item.document_id: "changed during the run"})
    assert (saved.pages, saved.lost) == ([], frozenset({item.document_id}))
    with database.connect() as connection:
        assert connection.execute(text("SELECT page_no FROM pages")).scalars().all() == [1]
        assert tuple(connection.execute(text("SELECT status, claimed_by FROM documents")).one()) == (
            "processing", "the-other-run")


def test_save_batch_fails_the_documents_it_is_told_to(database: Engine, folder: Path):
    (item,) = registered(database, folder)
    assert save_batch(database, [], CLAIM, {item.document_id: "changed during the run"}).pages == []
    with database.connect() as connection:
        assert tuple(connection.execute(text("SELECT status, error FROM documents")).one()) == \
            ("failed", "changed during the run")
    assert claimed_by(database) is None


def test_finish_counts_every_listed_file_and_closes_the_run(database: Engine, folder: Path):
    run_id = open_run(database, str(folder), "test-flow-run")
    items = registered(database, folder)
    (work,) = make_batches(items, 16, CLAIM)
    report = parse_batch_pages(work, database, FakeParser("v"))
    summary = finish(database, run_id, items, PageCounts(parsed=report.engine_pages), [], 2.5, CLAIM)
    assert (summary.files_listed, summary.documents_done, summary.pages_parsed, summary.failures) == (1, 1, 2, ())
    assert run_row(database, run_id) == ("completed", 2, 1, 0)
    assert claimed_by(database) is None


def test_finish_after_a_failed_batch_fails_the_run_and_its_unfinished_document(database: Engine, folder: Path):
    run_id = open_run(database, str(folder), "test-flow-run")
    items = registered(database, folder)  # registered, but no batch stored its pages
    summary = finish(database, run_id, items, PageCounts(), ["parse-batch-0: worker lost"], 1.0, CLAIM)
    assert (summary.documents_failed, summary.documents_done) == (1, 0)
    assert run_row(database, run_id)[0] == "failed"
    assert claimed_by(database) == CLAIM.claimant  # left to a retry of this run until the lease ends


def test_reopen_clears_a_finished_documents_pages_and_lists_them_again(database: Engine, folder: Path):
    parse_batch_pages(batch(database, folder), database, FakeParser("v"))
    (document_id,) = {item.document_id for item in registered(database, folder)}
    (again,) = reopen_documents([document_id], database, 10**9, Claim("reprocess-run", 600))
    assert (again.document_id, again.outcome, again.pages_todo) == (document_id, Registration.NEW, (1, 2))
    assert pages(database, folder) == []
    assert claimed_by(database) == "reprocess-run"


def test_reopen_leaves_a_document_another_run_holds(database: Engine, folder: Path):
    (item,) = registered(database, folder)  # claimed by CLAIM's run, not finished
    (again,) = reopen_documents([item.document_id], database, 10**9, Claim("reprocess-run", 600))
    assert again.outcome == Registration.DUPLICATE
    assert claimed_by(database) == CLAIM.claimant


def test_reopen_fails_a_document_whose_bytes_are_gone_and_keeps_its_pages(database: Engine, folder: Path):
    parse_batch_pages(batch(database, folder), database, FakeParser("v"))
    (document_id,) = {item.document_id for item in registered(database, folder)}
    (folder / "report.pdf").write_bytes((folder / "report.pdf").read_bytes() + b"% edited\n")
    (again,) = reopen_documents([document_id], database, 10**9, Claim("reprocess-run", 600))
    assert again.outcome == Registration.FAILED
    assert len(pages(database, folder)) == 2
    with database.connect() as connection:
        assert connection.execute(text("SELECT error FROM documents WHERE id = :id"),
                                  {"id": document_id}).scalar().startswith("no source holds these bytes any more")
