"""The reprocess flow: failed documents parsed again, old engine versions replaced, forced re-parses, clear refusals."""

from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from base.engines import engine_identity
from db.store import OTHER_VERSIONS, Selection
from flows.digitize import digitize
from flows.reprocess import reprocess
from folio.cli import main as cli
from pages import parsing as page_parsing
from tests import pdfs

RUN_ENGINE = page_parsing.run_engine


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    pdfs.two_column_pdf(folder, "report.pdf")
    pdfs.two_column_pdf(folder, "copy-with-other-bytes.pdf").write_bytes(
        (folder / "report.pdf").read_bytes() + b"\n% appended\n")
    pdfs.scan_pdf(folder)
    return folder


def count_engine_pages(monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> list[str]:
    """Page keys the engine is called on; with fail, every page fails in the engine."""
    keys: list[str] = []

    def counted(pipeline, inputs, budget, log):
        keys.extend(item.key for item in inputs)
        if fail:
            return {item.key: "engine error: injected" for item in inputs}
        return RUN_ENGINE(pipeline, inputs, budget, log)

    monkeypatch.setattr(page_parsing, "run_engine", counted)
    return keys


def page_rows(database: Engine) -> dict[tuple[int, int], tuple[int, str, str]]:
    with database.connect() as connection:
        rows = connection.execute(text("SELECT document_id, page_no, id, status, engine_version FROM pages"))
        return {(row.document_id, row.page_no): (row.id, row.status, row.engine_version) for row in rows}


def test_failed_documents_are_parsed_again(database: Engine, archive: Path, monkeypatch: pytest.MonkeyPatch):
    count_engine_pages(monkeypatch, fail=True)
    first = digitize(source=str(archive))
    assert first.documents_failed == 3
    parsed = count_engine_pages(monkeypatch)
    summary = reprocess(Selection(statuses=("failed",)))
    assert (summary.files_listed, summary.pages_parsed) == (3, len(parsed))
    assert (summary.documents_done, summary.documents_reused) == (2, 1)  # the copy's pages match the report's
    assert {status for _, status, _ in page_rows(database).values()} == {"done"}
    with database.connect() as connection:
        assert connection.execute(text("SELECT DISTINCT status, error, claimed_by FROM documents")).all() == [
            ("done", None, None)]
        assert connection.execute(text("SELECT count(*) FROM blocks")).scalar() > 0
        assert connection.execute(text("SELECT source FROM runs ORDER BY id DESC LIMIT 1")).scalar() == \
            "reprocess: status failed"


def test_results_of_an_older_engine_are_replaced_and_the_rest_kept(database: Engine, archive: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(archive))
    before = page_rows(database)
    old_document = max(document_id for document_id, _ in before)  # the scan: no other document has its pages
    with database.begin() as connection:
        connection.execute(text("UPDATE pages SET engine_version = 'folio-0.1' WHERE document_id = :id"),
                           {"id": old_document})
    assert reprocess(Selection(statuses=("failed",))).files_listed == 0  # done documents: not touched by status alone
    parsed = count_engine_pages(monkeypatch)
    summary = reprocess(Selection(engine_version=OTHER_VERSIONS))
    after = page_rows(database)
    assert summary.files_listed == summary.documents_done == 1
    assert sorted(parsed) == sorted(f"{old_document}:{page_no}" for document_id, page_no in before
                                    if document_id == old_document)
    assert {version for _, _, version in after.values()} == {engine_identity().version}
    assert all(after[key][0] == before[key][0] for key in before if key[0] != old_document)  # kept as they were
    assert all(after[key][0] != before[key][0] for key in before if key[0] == old_document)  # stored anew


def test_force_parses_done_documents_again_without_reuse(database: Engine, archive: Path,
                                                         monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(archive))
    before = page_rows(database)
    parsed = count_engine_pages(monkeypatch)
    summary = reprocess(Selection(ids=(1, 2), force=True))
    # document 2 repeats document 1's pages: they are parsed once, in this run, and copied
    assert (summary.pages_parsed, summary.pages_reused, sorted(parsed)) == (2, 2, ["1:1", "1:2"])
    after = page_rows(database)
    assert len(after) == len(before) and all(after[key][0] != before[key][0] for key in before if key[0] in (1, 2))
    with database.connect() as connection:
        copied_from = connection.execute(text("SELECT reused_from FROM pages WHERE document_id = 2")).scalars()
        assert sorted(copied_from) == sorted(after[1, page_no][0] for page_no in (1, 2))


def test_a_document_whose_file_is_gone_is_failed_with_the_reason(database: Engine, archive: Path):
    digitize(source=str(archive))
    (archive / "scan.pdf").unlink()
    summary = reprocess(Selection(statuses=("done",), force=True))
    assert (summary.files_listed, summary.documents_done + summary.documents_reused, summary.documents_failed) == (
        3, 2, 1)
    with database.connect() as connection:
        error = connection.execute(text("SELECT error FROM documents WHERE status = 'failed'")).scalar()
        kept = connection.execute(text("SELECT count(*) FROM pages p JOIN documents d ON d.id = p.document_id "
                                        "WHERE d.status = 'failed'")).scalar()
    assert error.startswith("no source holds these bytes any more") and kept == 1


@pytest.mark.parametrize(("arguments", "message"), [
    ([], "say which documents"),
    (["--status", "done"], "only with an engine version or force"),
])
def test_reprocess_refuses_an_unclear_selection(arguments: list[str], message: str, database: Engine,
                                                capsys: pytest.CaptureFixture):
    assert cli.main(["reprocess", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_ingest_with_force_parses_done_documents_again(database: Engine, archive: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(archive))
    before = page_rows(database)
    parsed = count_engine_pages(monkeypatch)
    summary = digitize(source=str(archive), force=True)
    assert (summary.files_listed, summary.documents_duplicate) == (3, 0)
    assert summary.pages_parsed == len(parsed) == 3 and summary.pages_reused == 2  # the copy repeats the report
    after = page_rows(database)
    assert len(after) == len(before) and all(after[key][0] != before[key][0] for key in before)


def test_since_and_until_choose_documents_by_when_they_last_changed(database: Engine, archive: Path,
                                                                    monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(archive))
    with database.begin() as connection:
        ids = connection.execute(text("SELECT id FROM documents ORDER BY id")).scalars().all()
        for document_id, changed in zip(ids, ["2026-10-01", "2026-11-10", "2026-11-30T12:00:00+00:00"]):
            connection.execute(text("UPDATE documents SET updated_at = :changed WHERE id = :id"),
                               {"changed": changed, "id": document_id})
    before = page_rows(database)
    count_engine_pages(monkeypatch)
    assert cli.main(["reprocess", "--force", "--since", "2026-11-01", "--until", "2026-11-30"]) == 0
    after = page_rows(database)
    replaced = {document_id for (document_id, page_no), row in after.items()
                if row[0] != before[document_id, page_no][0]}
    assert replaced == {ids[1]}  # on or after the 1st of November, before the 30th began
