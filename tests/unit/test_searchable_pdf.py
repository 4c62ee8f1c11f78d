"""The invisible text folio writes over OCR's lines (folio/searchable_pdf.py), read back with PyMuPDF."""

import hashlib

import pymupdf
import pytest

from folio.searchable_pdf import SourceMissing, original_pdf, searchable_pdf

LINE = {"text": "Letter to the Harbour Board", "bbox": [50.0, 100.0, 300.0, 120.0], "confidence": 0.98,
        "words": []}


def export(lines: list[dict], text_layer: bool = True, text: str = "") -> dict:
    block = {"order": 0, "type": "text", "bbox": [50.0, 100.0, 300.0, 140.0], "text": text, "lines": lines}
    return {"document": {"sha256": "", "source": ""},
            "pages": [{"page_no": 1, "text_layer": text_layer, "blocks": [block]}]}


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_each_ocr_line_is_invisible_text_over_its_box_on_a_page_shown_turned(rotation: int):
    document = pymupdf.open()
    page = document.new_page(width=400, height=600)
    page.set_rotation(rotation)
    original = document.tobytes()
    written = searchable_pdf(export([LINE, {**LINE, "text": "from the text layer", "confidence": None}]), original)
    assert written.startswith(original)
    page = pymupdf.open("pdf", written)[0]
    assert " ".join(page.get_text().split()) == LINE["text"]  # the text layer's own line is not written again
    words = [pymupdf.Rect(word[:4]) * page.rotation_matrix for word in page.get_text("words")]
    assert (words[0].x0, words[-1].x1) == pytest.approx((50.0, 300.0), abs=0.5)
    assert all(abs(word.y0 - 100.0) <= 1.0 and abs(word.y1 - 120.0) <= 1.0 for word in words)
    assert page.get_pixmap().is_unicolor  # nothing drawn: render mode 3


def test_a_document_without_ocr_lines_is_the_original():
    original = _blank_pdf()
    assert searchable_pdf(export([{**LINE, "confidence": None}]), original) == original


def _blank_pdf() -> bytes:
    document = pymupdf.open()
    document.new_page()
    return document.tobytes()


def test_the_original_is_taken_from_where_its_bytes_still_are(tmp_path):
    data = _blank_pdf()
    moved, kept = tmp_path / "moved.pdf", tmp_path / "kept.pdf"
    moved.write_bytes(b"%PDF-1.7 other bytes now")
    kept.write_bytes(data)
    document = {"sha256": hashlib.sha256(data).hexdigest(), "source": str(moved), "sources": [str(moved), str(kept)]}
    assert original_pdf(document) == data
    kept.unlink()
    with pytest.raises(SourceMissing) as missing:
        original_pdf(document)
    assert str(missing.value) == (f"{document['sha256'][:12]}: its PDF is no longer at {moved} (other bytes now) or "
                                  f"{kept} (no such file or directory)")


def test_a_page_a_vlm_read_gets_its_blocks_text_over_their_boxes():
    """A VLM's blocks have no stored lines: on a page without a text layer their text lines go over the block."""
    written = searchable_pdf(export([], text_layer=False, text="Letter to the\nHarbour Board"), _blank_pdf())
    page = pymupdf.open("pdf", written)[0]
    assert [line.split() for line in page.get_text().strip().splitlines()] == [["Letter", "to", "the"],
                                                                             ["Harbour", "Board"]]
    words = [pymupdf.Rect(word[:4]) for word in page.get_text("words")]
    assert words[0].y0 == pytest.approx(100.0, abs=1.0) and words[-1].y1 == pytest.approx(140.0, abs=1.0)


def test_text_beyond_latin_1_is_found_as_it_was_read():
    """Dashes, curly quotes, Polish, Greek, Cyrillic and mathematics: the embedded font's subset maps them all, and
    only the characters used are embedded (the whole font has 3.5 MB)."""
    line = {**LINE, "text": "Łódź — “Harbour” ξ ∫ f(x) dx Привет"}
    original = _blank_pdf()
    written = searchable_pdf(export([line]), original)
    page = pymupdf.open("pdf", written)[0]
    assert " ".join(page.get_text().split()) == line["text"]
    assert len(written) - len(original) < 30_000
