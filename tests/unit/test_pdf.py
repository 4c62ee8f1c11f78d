from pathlib import Path

import pymupdf
import pytest

from engine.types import Line, Span
from pages.pdf import (
    BadDocument,
    inspect_document,
    named_bullets,
    open_pdf,
    page_fingerprint,
    page_input,
    text_layer_lines,
)
from tests import pdfs
from tests.vlm_pages import scanned_copy


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


def _span_line(*pieces: tuple[str, float, float]) -> Line:
    """A line of spans (text, left, right) at one height, in a 10 pt font."""
    spans = [Span(text=text, bbox=(x0, 100, x1, 110), size=10, font="F", bold=False) for text, x0, x1 in pieces]
    return Line(text=" ".join(s.text for s in spans), bbox=(spans[0].bbox[0], 100, spans[-1].bbox[2], 110),
                size=10, spans=spans)


def test_a_bullet_glyph_mapped_to_no_character_reads_as_a_bullet():
    inline = _span_line(("\ufffd", 60, 65), ("Security fundamentals", 74, 180))
    mark, beside = _span_line(("\ufffd", 60, 65)), _span_line(("Current state of security", 74, 200))
    lone = _span_line(("\ufffd", 300, 305))
    wide = _span_line(("\ufffd\ufffd\ufffd", 60, 90), ("three unknown glyphs", 95, 200))
    far = _span_line(("\ufffd", 60, 65))
    named = named_bullets([inline, mark, beside, lone, wide])
    assert [line.text for line in named] == [
        "• Security fundamentals", "•", "Current state of security", "\ufffd", wide.text]
    assert named_bullets([far, _span_line(("words too far away", 120, 200))])[0].text == "\ufffd"


@pytest.mark.parametrize("rotation", [0, 90])
def test_text_layer_words_have_their_characters_boxes(rotation: int):
    """Each line's words are its text split at spaces, boxed where PyMuPDF puts their characters: a word set in two
    fonts (two spans) is one word; on a page shown turned, boxes are in the displayed page's coordinates."""
    document = pymupdf.open()
    page = document.new_page(width=400, height=300)
    page.insert_text((50, 100), "Harbour Board ", fontname="helv", fontsize=12)
    length = pymupdf.get_text_length("Harbour Board ", fontname="helv", fontsize=12)
    page.insert_text((50 + length, 100), "min", fontname="hebo", fontsize=12)
    page.insert_text((50 + length + pymupdf.get_text_length("min", fontname="hebo", fontsize=12), 100), "utes 1931",
                     fontname="helv", fontsize=12)
    page.set_rotation(rotation)
    page = pymupdf.open("pdf", document.tobytes())[0]
    [line] = text_layer_lines(page)
    assert line.text == "Harbour Board minutes 1931"
    expected = [pymupdf.Rect(word[:4]) * page.rotation_matrix for word in page.get_text("words")]
    assert [word.text for word in line.words] == ["Harbour", "Board", "minutes", "1931"]
    for word, rect in zip(line.words, expected):
        assert word.bbox == pytest.approx(tuple(rect), abs=0.01)


def test_a_page_input_knows_the_resolution_of_its_largest_image(tmp_path: Path, report: Path):
    """A scan's resolution, not a stamp's pasted on it at twice as many pixels an inch; none on a page of
    text alone."""
    scan = scanned_copy(report, tmp_path / "scan.pdf", dpi=200)
    with pymupdf.open(scan) as document:
        stamp = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 60, 60), False)
        stamp.clear_with(0)
        document[0].insert_image(pymupdf.Rect(500, 20, 510, 30), pixmap=stamp)
        document.save(tmp_path / "stamped.pdf")
    with pymupdf.open(tmp_path / "stamped.pdf") as stamped, pymupdf.open(report) as text:
        assert round(page_input(stamped[0], "s", tmp_path / "stamped.pdf").image_dpi) == 200
        assert page_input(text[0], "t", report).image_dpi is None
