"""The digitize flow end to end on PDFs the tests make, against real PostgreSQL."""

import json
import os
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select, text

from base.database import database as configured_database
from base.migrate import upgrade
from base.settings import get_settings
from db.export import write_exports
from db.models import Block, Document, DocumentSource, Page
from flows.digitize import digitize
from pages.parser import stop_engine_workers
from runs import register
from tasks import parse  # the task calls the names patched here
from tests import pdfs
from tests.integration.contract import assert_export_contract


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A folder like a real delivery: good PDFs in subfolders, a copy, and every kind of bad input."""
    good = tmp_path / "archive" / "reports"
    good.mkdir(parents=True)
    report = pdfs.two_column_pdf(good)
    pdfs.scan_pdf(good)
    bad = tmp_path / "archive" / "incoming"
    bad.mkdir()
    (bad / "copy-of-report.pdf").write_bytes(report.read_bytes())
    pdfs.truncated_pdf(bad, report)
    pdfs.random_bytes_pdf(bad)
    pdfs.empty_pdf(bad)
    pdfs.not_a_pdf(bad)
    pdfs.encrypted_pdf(bad, report)
    pdfs.huge_page_pdf(bad)
    (bad / "readme.txt").write_text("not listed: only PDFs are")
    return tmp_path / "archive"


def statuses(database: Engine) -> dict[str, tuple[str, str | None]]:
    with database.connect() as connection:
        rows = connection.execute(
            select(DocumentSource.uri, Document.status, Document.error).join(Document)
        ).all()
    return {Path(uri).name: (status, error) for uri, status, error in rows}


def test_digitize_stores_pages_blocks_and_readable_errors(database: Engine, archive: Path):
    summary = digitize(source=str(archive), batch_size=2)

    assert summary.files_listed == 9
    assert (summary.documents_done, summary.documents_duplicate, summary.documents_failed) == (3, 1, 5)
    assert summary.documents_done + summary.documents_duplicate + summary.documents_failed \
        + summary.documents_quarantined == summary.files_listed
    assert summary.pages_parsed == 2 + 1 + 1

    found = statuses(database)
    assert found["report.pdf"] == ("done", None)
    assert found["copy-of-report.pdf"] == ("done", None)  # another source of the same document
    assert found["scan.pdf"] == ("done", None)
    assert found["site-plan.pdf"][0] == "done"
    assert found["empty.pdf"] == ("failed", "empty: the file has zero bytes")
    assert found["protected.pdf"] == ("failed", "encrypted: password required")
    assert found["notes.pdf"][1].startswith("not a PDF")
    assert found["random.pdf"][1].startswith("not a PDF")
    assert found["truncated.pdf"][0] == "failed" and found["truncated.pdf"][1].startswith("corrupt")

    with database.connect() as connection:
        assert connection.execute(select(func.count()).select_from(Document)).scalar() == 8
        page_rows = connection.execute(select(Page.text_layer, Page.status)).all()
        assert sorted(page_rows) == [(False, "done"), (True, "done"), (True, "done"), (True, "done")]
        run = connection.execute(text("SELECT files_listed, documents_done, documents_failed FROM runs")).one()
        assert tuple(run) == (9, 3, 5)


def test_two_columns_read_in_order_and_scans_are_read_by_ocr(database: Engine, archive: Path):
    digitize(source=str(archive / "reports"))
    with database.connect() as connection:
        rows = connection.execute(
            select(Document.first_source, Page.page_no, Block.reading_order, Block.type, Block.text)
            .join(Page, Page.document_id == Document.id).join(Block, Block.page_id == Page.id)
            .order_by(Document.id, Page.page_no, Block.reading_order)
        ).all()
    report = [r for r in rows if r.first_source.endswith("report.pdf") and r.page_no == 1]
    types = {r.text: r.type for r in report}
    assert types["Annual Report of the Municipal Archive"] == "title"
    assert types["Municipal Archive - Annual Report"] == "header"
    assert types["1"] == "page_number"
    body = [r.text for r in report if r.type == "text"]
    assert [t[:20] for t in body] == ["The municipal archiv", "Every box was listed", "Readers asked most o",
                                      "The reading room was"]
    scan = " ".join(r.text for r in rows if r.first_source.endswith("scan.pdf"))
    assert "Letter to the Harbour Board" in scan
    assert "forty metres of records" in scan


def test_a_second_run_stores_nothing_new(database: Engine, archive: Path, monkeypatch: pytest.MonkeyPatch):
    first = digitize(source=str(archive))
    hashed: list[str] = []
    real_hash = register.hash_file
    monkeypatch.setattr(register, "hash_file", lambda path, limit: hashed.append(path.name) or real_hash(path, limit))
    touched = archive / "reports" / "report.pdf"
    os.utime(touched, (touched.stat().st_atime, touched.stat().st_mtime + 60))

    def counts() -> tuple[int, ...]:
        with database.connect() as connection:
            return tuple(connection.execute(text(f"SELECT count(*) FROM {t}")).scalar()
                         for t in ("documents", "pages", "blocks"))

    before = counts()
    second = digitize(source=str(archive))
    assert counts() == before
    assert second.pages_parsed == 0
    assert second.documents_unchanged == second.files_listed == first.files_listed
    # files seen before with the same size and time are not read again; the touched one is, and holds what it held
    assert hashed == ["report.pdf"]


def test_export_matches_the_contract(database: Engine, archive: Path, tmp_path: Path):
    digitize(source=str(archive))
    out = tmp_path / "export"
    assert write_exports(database, out) == 8
    for path in out.glob("*.json"):
        export = json.loads(path.read_text())
        assert path.stem == export["document"]["sha256"]
        assert_export_contract(export)
    failed = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert sum(1 for e in failed if e["document"]["status"] == "failed") == 5


def page_results(database: Engine, name: str) -> list[tuple]:
    """Every stored block of the document first seen as `name`, without ids."""
    with database.connect() as connection:
        return [tuple(row) for row in connection.execute(
            select(Page.page_no, Page.fingerprint, Block.reading_order, Block.type, Block.text, Block.x0, Block.y1)
            .join(Document, Page.document_id == Document.id).join(Block, Block.page_id == Page.id)
            .where(Document.first_source.like(f"%/{name}")).order_by(Page.page_no, Block.reading_order)
        )]


def test_pages_already_parsed_are_reused_without_the_engine(database: Engine, tmp_path: Path):
    first_folder, second_folder = tmp_path / "first", tmp_path / "second"
    first_folder.mkdir()
    second_folder.mkdir()
    report = pdfs.two_column_pdf(first_folder)
    digitize(source=str(first_folder))
    pdfs.resaved_pdf(second_folder, report)  # other bytes, the same pages
    (second_folder / "also-resaved.pdf").write_bytes(report.read_bytes() + b"% appended by a scanner station\n")

    summary = digitize(source=str(second_folder), batch_size=8)

    assert summary.files_listed == 2
    assert (summary.documents_reused, summary.pages_reused, summary.pages_parsed) == (2, 4, 0)
    assert summary.documents_done + summary.documents_reused + summary.documents_duplicate \
        + summary.documents_failed + summary.documents_quarantined == summary.files_listed
    assert page_results(database, "resaved-report.pdf") == page_results(database, "report.pdf")
    assert page_results(database, "also-resaved.pdf") == page_results(database, "report.pdf")
    with database.connect() as connection:
        copies = connection.execute(select(func.count()).where(Page.reused_from.is_not(None))).scalar()
        assert copies == 4
        run = connection.execute(text("SELECT documents_reused, pages_reused FROM runs ORDER BY id DESC")).first()
        assert tuple(run) == (2, 4)


def test_a_page_repeated_within_a_batch_is_parsed_once(database: Engine, tmp_path: Path):
    report = pdfs.two_column_pdf(tmp_path)
    pdfs.resaved_pdf(tmp_path, report)
    summary = digitize(source=str(tmp_path), batch_size=8)
    assert (summary.pages_parsed, summary.pages_reused) == (2, 2)
    assert (summary.documents_done, summary.documents_reused) == (1, 1)
    assert page_results(database, "resaved-report.pdf") == page_results(database, "report.pdf")


def test_a_glyph_soup_text_layer_is_read_by_ocr_and_the_decision_is_stored(database: Engine, tmp_path: Path):
    """A Type3 font without ToUnicode shows words but gives MuPDF "¢+đO+µ1∂…": OCR of its lines contradicts the
    layer, so the page is read as a scan; an ordinary page keeps its layer. Both store the verdict and measures."""
    folder = tmp_path / "type3"
    folder.mkdir()
    lines = ["The harbour ledgers were scanned in spring", "and listed box by box for the archive."]
    pdfs.type3_text_pdf(folder / "soup.pdf", lines)
    pdfs.two_column_pdf(folder)
    summary = digitize(source=str(folder))
    assert summary.documents_done == 2 and summary.documents_failed == 0

    with database.connect() as connection:
        rows = connection.execute(
            select(Document.first_source, Page.page_no, Page.text_layer, Page.text_layer_trust,
                   func.string_agg(Block.text, " ").label("text"))
            .join(Page, Page.document_id == Document.id).join(Block, Block.page_id == Page.id)
            .group_by(Document.first_source, Page.id).order_by(Document.first_source, Page.page_no)
        ).all()
    soup = [row for row in rows if row.first_source.endswith("soup.pdf")]
    assert len(soup) == 1
    assert soup[0].text_layer is False
    assert soup[0].text_layer_trust["verdict"] == "untrusted"
    assert soup[0].text_layer_trust["unmapped"] == 1.0 and soup[0].text_layer_trust["agreement"] < 0.5
    assert "OCR of sampled lines agrees" in soup[0].text_layer_trust["reason"]
    assert "harbour ledgers" in soup[0].text.lower() and "µ" not in soup[0].text
    report = [row for row in rows if row.first_source.endswith("report.pdf")]
    assert [row.text_layer for row in report] == [True, True]
    assert all(row.text_layer_trust["verdict"] == "trusted" and row.text_layer_trust["agreement"] is None
               for row in report)


def stored_blocks(database: Engine) -> list[tuple]:
    with database.connect() as connection:
        return [tuple(row) for row in connection.execute(
            select(Document.first_source, Page.page_no, Block.reading_order, Block.type, Block.text, Block.x0,
                   Block.y0, Block.x1, Block.y1)
            .join(Page, Page.document_id == Document.id).join(Block, Block.page_id == Page.id)
            .order_by(Document.first_source, Page.page_no, Block.reading_order)).all()]


def test_with_two_workers_pages_are_parsed_in_engine_processes_and_stored_as_with_one(
        database: Engine, archive: Path, new_database_url, monkeypatch: pytest.MonkeyPatch):
    """FOLIO_WORKERS is read as the flow runs (here set long after the flows were imported): two batches run at
    once, each held until the other has started, and hand their pages to engine worker processes."""
    digitize(source=str(archive / "reports"), batch_size=1)
    monkeypatch.setenv("FOLIO_DATABASE_URL", new_database_url())
    monkeypatch.setenv("FOLIO_WORKERS", "2")
    get_settings.cache_clear()
    other = configured_database()
    upgrade(other)
    monkeypatch.setattr(parse, "get_pipeline", lambda: pytest.fail("the engine was loaded in the flow's process"))
    both_started = threading.Barrier(2, timeout=120)  # broken, and the batch fails, if batches run one at a time
    real = parse.parse_batch_pages

    def held(*args, **kwargs):
        if args[0].index < 2:
            both_started.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(parse, "parse_batch_pages", held)
    try:
        summary = digitize(source=str(archive / "reports"), batch_size=1)
    finally:
        stop_engine_workers()
        get_settings.cache_clear()
    assert (summary.documents_done, summary.pages_parsed) == (2, 3)
    assert stored_blocks(other) == stored_blocks(database) != []
