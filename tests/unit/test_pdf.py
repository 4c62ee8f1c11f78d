from pathlib import Path

import pymupdf
import pytest

from pages.pdf import BadDocument, inspect_document, open_pdf, page_fingerprint, text_layer_lines
from tests import pdfs


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    return pdfs.two_column_pdf(tmp_path_factory.mktemp("pdf"))


@pytest.mark.parametrize(("make", "message"), [
    (lambda folder, report: pdfs.empty_pdf(folder), "empty: the file has zero bytes"),
    (lambda folder, report: pdfs.not_a_pdf(folder), "not a PDF"),
    (lambda folder, report: pdfs.random_bytes_pdf(folder), "not a PDF"),
    (lambda folder, report: pdfs.encrypted_pdf(folder, report), "encrypted: password required"),
    (lambda folder, report: pdfs.truncated_pdf(folder, report), "corrupt"),
])
def test_bad_files_give_readable_errors(tmp_path: Path, report: Path, make, message: str):
    with pytest.raises(BadDocument) as error:
        open_pdf(make(tmp_path, report))
    assert str(error.value).startswith(message)
    assert "Traceback" not in str(error.value)


def test_inspect_reads_page_count_and_metadata(report: Path):
    info = inspect_document(report)
    assert info.page_count == 2
    assert info.metadata["producer"] == "folio samples"


def test_fingerprint_follows_the_page_not_the_file(tmp_path: Path, report: Path):
    resaved = pdfs.resaved_pdf(tmp_path, report)
    assert resaved.read_bytes() != report.read_bytes()
    with pymupdf.open(report) as original, pymupdf.open(resaved) as copy:
        first = [page_fingerprint(page) for page in original]
        assert first == [page_fingerprint(page) for page in copy]
        assert first[0] != first[1]


def test_fingerprint_of_scanned_pages_survives_a_resave(tmp_path: Path):
    scan = pdfs.scan_pdf(tmp_path)
    resaved = pdfs.resaved_pdf(tmp_path, scan)
    with pymupdf.open(scan) as original, pymupdf.open(resaved) as copy:
        assert page_fingerprint(original[0]) == page_fingerprint(copy[0])


def test_text_layer_lines_keep_columns_apart(report: Path):
    with pymupdf.open(report) as document:
        lines = text_layer_lines(document[0])
    assert any(line.text.startswith("The municipal archive") for line in lines)
    body = [line for line in lines if 10 <= line.size < 12]
    assert body
    assert all(line.bbox[2] <= 595 / 2 or line.bbox[0] >= 595 / 2 for line in body)
