"""The archival formats through `folio export` as a person runs it, after the real flow: a searchable PDF (the
original with an invisible text layer over OCR's lines) and ALTO 4 XML; the lines and words they are made from, as
stored and as copied to a page that reuses a stored result."""

import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as etree

import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein
from sqlalchemy import Engine, select

from db.models import Block, Document, Page
from flows.digitize import digitize
from folio.alto import NAMESPACE, UNITS_PER_POINT
from tests import pdfs
from tests.integration.folio_process import folio_env

ALTO = {"a": NAMESPACE}


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A scanned letter and a born-digital report, read by the flow."""
    folder = tmp_path / "archive"
    folder.mkdir()
    pdfs.scan_pdf(folder)
    pdfs.reports(folder, ["Minutes of 1931"], "minutes")
    return folder


def folio(url: str, home: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "folio.cli", *arguments], env=folio_env(url, home),
                          capture_output=True, text=True, timeout=300)


def stored_lines(database: Engine, name: str) -> tuple[str, list[list[dict]]]:
    """The document's sha256 and each page's stored lines, block by block in reading order."""
    with database.connect() as connection:
        sha256 = connection.execute(select(Document.sha256).where(Document.first_source.like(f"%/{name}"))).scalar_one()
        rows = connection.execute(
            select(Page.page_no, Block.lines).join(Block, Block.page_id == Page.id).join(Document)
            .where(Document.sha256 == sha256).order_by(Page.page_no, Block.reading_order)).all()
    pages: dict[int, list[dict]] = {}
    for page_no, lines in rows:
        pages.setdefault(page_no, []).extend(lines)
    return sha256, [pages[number] for number in sorted(pages)]


def render(pdf: bytes) -> list[bytes]:
    with pymupdf.open("pdf", pdf) as document:
        return [page.get_pixmap(dpi=72).samples for page in document]


def test_a_scan_exported_as_pdf_is_searchable_and_looks_the_same(database: Engine, empty_database: str,
                                                                  archive: Path, tmp_path: Path):
    digitize(source=str(archive))
    scan_sha, scan_pages = stored_lines(database, "scan.pdf")
    report_sha, _ = stored_lines(database, "minutes-0.pdf")
    assert all(line["confidence"] is not None for line in scan_pages[0]) and len(scan_pages[0]) >= 5

    out = tmp_path / "searchable"
    result = folio(empty_database, tmp_path / "home", "export", "--format", "pdf", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "2 documents exported" in result.stdout
    original, searchable = (archive / "scan.pdf").read_bytes(), (out / f"{scan_sha}.pdf").read_bytes()
    assert searchable.startswith(original)  # an incremental update: every byte of the original kept
    assert render(searchable) == render(original)
    written = out / f"{scan_sha}.pdf"
    text = subprocess.run(["pdftotext", "-layout", str(written), "-"], capture_output=True, text=True,
                          check=True).stdout
    expected = " ".join(line["text"] for line in scan_pages[0])
    assert Levenshtein.normalized_distance(" ".join(text.split()), expected) <= 0.02
    assert "Letter to the Harbour Board" in " ".join(text.split())
    assert (out / f"{report_sha}.pdf").read_bytes() == (archive / "minutes-0.pdf").read_bytes()


def test_alto_holds_every_stored_line_and_word_in_reading_order(database: Engine, empty_database: str,
                                                                archive: Path, tmp_path: Path):
    digitize(source=str(archive))
    out = tmp_path / "alto"
    result = folio(empty_database, tmp_path / "home", "export", "--format", "alto", "--out", str(out))
    assert result.returncode == 0, result.stderr
    for name in ("scan.pdf", "minutes-0.pdf"):
        sha256, pages = stored_lines(database, name)
        tree = etree.parse(str(out / f"{sha256}.alto.xml"))
        assert tree.findtext("a:Description/a:MeasurementUnit", namespaces=ALTO) == "inch1200"
        alto_pages = tree.findall(".//a:Page", ALTO)
        assert len(alto_pages) == len(pages)
        for page, lines in zip(alto_pages, pages):
            text_lines = page.findall(".//a:TextLine", ALTO)
            assert len(text_lines) == len(lines) > 0
            for element, line in zip(text_lines, lines):  # the same order: blocks and lines in reading order
                assert _box(element) == pytest.approx(line["bbox"], abs=1 / UNITS_PER_POINT)
                strings = element.findall("a:String", ALTO)
                assert [string.get("CONTENT") for string in strings] == [word[0] for word in line["words"]]
                assert " ".join(word[0] for word in line["words"]) == line["text"]
                for string, word in zip(strings, line["words"]):
                    assert _box(string) == pytest.approx(word[1:], abs=1 / UNITS_PER_POINT)
                    if line["confidence"] is not None:
                        assert float(string.get("WC")) == pytest.approx(line["confidence"], abs=0.01)
                assert len(element.findall("a:SP", ALTO)) == max(0, len(strings) - 1)


def _box(element: etree.Element) -> list[float]:
    """An ALTO element's box in PDF points, as folio stores boxes."""
    x, y, w, h = (float(element.get(name)) / UNITS_PER_POINT for name in ("HPOS", "VPOS", "WIDTH", "HEIGHT"))
    return [x, y, x + w, y + h]


def test_a_reused_page_carries_the_lines_and_words(database: Engine, archive: Path, tmp_path: Path):
    digitize(source=str(archive))
    again = tmp_path / "again"
    again.mkdir()
    pdfs.resaved_pdf(again, archive / "scan.pdf")  # other bytes, the same page
    summary = digitize(source=str(again))
    assert summary.pages_reused == 1
    _, first = stored_lines(database, "scan.pdf")
    _, copied = stored_lines(database, Path(next(again.iterdir())).name)
    assert copied == first and first[0][0]["words"]


def test_a_document_whose_pdf_is_gone_is_named_and_the_others_exported(database: Engine, empty_database: str,
                                                                      archive: Path, tmp_path: Path):
    digitize(source=str(archive))
    moved = tmp_path / "moved"
    shutil.move(archive / "scan.pdf", moved)
    out = tmp_path / "searchable"
    result = folio(empty_database, tmp_path / "home", "export", "--format", "pdf", "--out", str(out))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith("folio export: ") and \
        lines[0].endswith(f"its PDF is no longer at {archive / 'scan.pdf'} (no such file or directory)")
    assert lines[1] == "folio export: 1 document(s) not exported: their PDF is no longer where it was seen"
    assert [path.name for path in out.iterdir()] == [f"{stored_lines(database, 'minutes-0.pdf')[0]}.pdf"]
    moved.write_bytes(b"%PDF-1.7 other bytes")  # a file at the old place holding other bytes is no original either
    shutil.copy(moved, archive / "scan.pdf")
    assert folio(empty_database, tmp_path / "home", "export", "--format", "pdf", "--out", str(out)).returncode == 1
