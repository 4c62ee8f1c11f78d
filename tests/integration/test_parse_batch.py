"""parse_batch_pages, the plain function behind the parse task, with a fake parser and real PostgreSQL: what is
parsed, what is copied from a stored page of the same parser version, and what is failed with the reason."""

from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from sqlalchemy import Engine, text

from engine.page_source import PageSource, batch_source
from engine.types import PageInput, PageResult
from pages import parsing as page_parsing
from pages.batch import parse_batch_pages
from pages.engine_processes import EngineProcesses
from tests import pdfs
from tests.integration.batches import FakeParser, batch, pages


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A two-page report, and in another folder a re-saved copy of it: other bytes, the same pages."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    pdfs.resaved_pdf(second, pdfs.two_column_pdf(first))
    return first, second


def test_a_batch_is_parsed_and_stored_with_the_parsers_version(database: Engine, folders: tuple[Path, Path]):
    parser = FakeParser("0.3.2+aaaaaaaaaaaa")
    report = parse_batch_pages(batch(database, folders[0]), database, parser)
    assert (report.pages, report.failed, report.reused, report.engine_pages) == (2, 0, 0, 2)
    assert parser.keys == ["1:1", "1:2"]
    assert pages(database, folders[0]) == [(1, "done", parser.version, False, None),
                                           (2, "done", parser.version, False, None)]
    with database.connect() as connection:
        assert connection.execute(text("SELECT status FROM documents")).scalar() == "done"
        assert connection.execute(text("SELECT count(*) FROM blocks")).scalar() > 0


def test_a_stored_page_is_copied_only_for_a_parser_of_the_same_version(database: Engine,
                                                                       folders: tuple[Path, Path]):
    first, second = folders
    parse_batch_pages(batch(database, first), database, FakeParser("0.3.2+aaaaaaaaaaaa"))
    other = FakeParser("0.3.2+bbbbbbbbbbbb")  # the same code with another model or setting
    report = parse_batch_pages(batch(database, second), database, other)
    assert (report.reused, report.engine_pages, other.keys) == (0, 2, ["2:1", "2:2"])
    assert pages(database, second) == [(1, "done", other.version, False, None),
                                       (2, "done", other.version, False, None)]
    (third := second.parent / "third").mkdir()
    (third / "copy.pdf").write_bytes((second / "resaved-report.pdf").read_bytes() + b"% appended\n")
    same = FakeParser(other.version)
    report = parse_batch_pages(batch(database, third), database, same)
    assert (report.reused, report.engine_pages, same.keys) == (2, 0, [])
    assert pages(database, third) == [(1, "done", other.version, True, None), (2, "done", other.version, True, None)]


def test_a_page_reused_is_not_read_for_the_engine(database: Engine, folders: tuple[Path, Path],
                                                  monkeypatch: pytest.MonkeyPatch):
    first, second = folders
    parse_batch_pages(batch(database, first), database, FakeParser("v"))
    monkeypatch.setattr(page_parsing, "page_input", lambda *args: pytest.fail("read for the engine: layout analysis"))
    report = parse_batch_pages(batch(database, second), database, FakeParser("v"))
    assert (report.pages, report.reused, report.engine_pages) == (2, 2, 0)


def test_a_batch_that_must_not_reuse_parses_every_page(database: Engine, folders: tuple[Path, Path]):
    first, second = folders
    parse_batch_pages(batch(database, first), database, FakeParser("v"))
    parser = FakeParser("v")
    report = parse_batch_pages(batch(database, second, reuse=False), database, parser)
    assert (report.reused, report.engine_pages, parser.keys) == (0, 2, ["2:1", "2:2"])


def test_a_page_repeated_in_the_batch_is_parsed_once(database: Engine, folders: tuple[Path, Path]):
    first, second = folders
    (first / "resaved-report.pdf").write_bytes((second / "resaved-report.pdf").read_bytes())
    parser = FakeParser("v")
    report = parse_batch_pages(batch(database, first), database, parser)
    assert (report.pages, report.reused, parser.keys) == (4, 2, ["1:1", "1:2"])


def test_a_page_the_parser_fails_on_fails_alone_with_the_reason(database: Engine, folders: tuple[Path, Path]):
    parser = FakeParser("v", broken=frozenset({"1:2"}))
    report = parse_batch_pages(batch(database, folders[0]), database, parser)
    assert (report.pages, report.failed) == (2, 1)
    assert parser.keys == ["1:1", "1:2", "1:1", "1:2"]  # the batch failed, then its pages one by one
    assert pages(database, folders[0]) == [(1, "done", "v", False, None),
                                           (2, "failed", None, False, "engine error: RuntimeError: cannot parse 1:2")]


def test_a_file_changed_before_its_pages_are_read_fails_its_document_without_pages(database: Engine,
                                                                                   folders: tuple[Path, Path]):
    first = folders[0]
    work = batch(database, first)
    with open(first / "report.pdf", "ab") as handle:
        handle.write(b"% written to after it was registered\n")
    parser = FakeParser("v")
    report = parse_batch_pages(work, database, parser)
    assert (report.pages, parser.keys, pages(database, first)) == (0, [], [])  # nothing of other bytes is stored
    with database.connect() as connection:
        status, error = connection.execute(text("SELECT status, error FROM documents")).one()
    assert status == "failed" and "changed" in error, error


class PageTaking(FakeParser):
    """A FakeParser that takes each page from the batch's PDFs, as the pipeline's stages do."""

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        with batch_source(source) as pdfs:
            for item in inputs:
                pdfs.page(item)
        return super().__call__(inputs, source)


def test_a_batch_opens_each_pdf_once_to_fingerprint_read_and_parse_its_pages(database: Engine,
                                                                             folders: tuple[Path, Path],
                                                                             monkeypatch: pytest.MonkeyPatch):
    work = batch(database, folders[0])
    opened: Counter[str] = Counter()
    real = pymupdf.open
    monkeypatch.setattr(pymupdf, "open", lambda path, **options: opened.update([str(path)]) or real(path, **options))
    report = parse_batch_pages(work, database, PageTaking("v"))
    assert (report.pages, report.engine_pages) == (2, 2)
    assert list(opened.values()) == [1]


def fake_parser() -> FakeParser:
    """The engine each worker process of the test's EngineProcesses loads."""
    return FakeParser("v")


def blocks(database: Engine, folder: Path) -> list[tuple]:
    """(page no, reading order, type, text, box) of every block of the folder's documents."""
    with database.connect() as connection:
        return [tuple(row) for row in connection.execute(text(
            "SELECT p.page_no, b.reading_order, b.type, b.text, b.x0, b.y0, b.x1, b.y1 FROM blocks b "
            "JOIN pages p ON p.id = b.page_id JOIN documents d ON d.id = p.document_id "
            "WHERE d.first_source LIKE :folder ORDER BY d.id, p.page_no, b.reading_order"), {"folder": f"{folder}/%"})]


def test_engine_worker_processes_store_what_the_engine_in_this_process_stores(database: Engine,
                                                                              folders: tuple[Path, Path]):
    first, second = folders
    parse_batch_pages(batch(database, first), database, FakeParser("v"))
    workers = EngineProcesses(fake_parser, 2, "v")
    try:
        report = parse_batch_pages(batch(database, second, reuse=False), database, workers)
    finally:
        workers.close()
    assert (report.pages, report.failed, report.reused, report.engine_pages) == (2, 0, 0, 2)
    assert pages(database, second) == pages(database, first)
    assert blocks(database, second) == blocks(database, first) != []
