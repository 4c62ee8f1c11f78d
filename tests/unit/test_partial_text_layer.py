"""A born-digital page with a pasted scan: the text layer is kept and the scan is read by OCR."""

from pathlib import Path

import pymupdf

from engine.types import PageResult
from tests.parsed import parsed_page


def picture_of(text: str, font: str, size: float, dpi: int) -> pymupdf.Pixmap:
    """The words rendered to a grey image 400 pt wide and three sizes tall, as a scanner or a screenshot gives them."""
    source = pymupdf.open()
    source.new_page(width=400, height=3 * size).insert_text((10, 2 * size), text, fontname=font, fontsize=size)
    return source[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)


def parsed(document: pymupdf.Document, path: Path) -> PageResult:
    """The first page of the document, saved to `path`, through the whole pipeline."""
    document.save(path)
    return parsed_page(path)


def test_text_layer_and_pasted_scan_are_both_read(tmp_path: Path):
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((60, 80), "Report on the pasted minutes of the board", fontname="Times-Roman", fontsize=14)
    page.insert_image(pymupdf.Rect(60, 200, 460, 254),
                      pixmap=picture_of("Minutes of the harbour board, 1912", "Times-Roman", 18, 150))
    result = parsed(document, tmp_path / "pasted.pdf")
    texts = [block.text for block in result.blocks]
    assert result.text_layer
    assert "Report on the pasted minutes of the board" in texts
    assert any("harbour board, 1912" in text for text in texts), texts


def test_a_line_of_mojibake_in_a_readable_layer_is_read_by_ocr(tmp_path: Path):
    """A font whose map to Unicode is wrong gives "]üìÜüéê •ìê" for words the page shows: OCR reads those lines."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((60, 80), "Report on the consulting services of the centre", fontname="Times-Roman", fontsize=14)
    page.insert_image(pymupdf.Rect(60, 200, 460, 242),
                      pixmap=picture_of("Enhance the performance of your database", "Helvetica", 14, 200))
    page.insert_text((70, 226), "]üìÜüéê •ìê °ê£ë†£ûÜüéê †ë ∞†¶£ èÜ•ÜáÜ§ê", fontname="Helvetica", fontsize=14,
                     render_mode=3)  # the layer's text over the shown words, invisible
    result = parsed(document, tmp_path / "mojibake.pdf")
    texts = " ".join(block.text for block in result.blocks)
    assert result.text_layer
    assert "Report on the consulting services of the centre" in texts
    assert "performance of your database" in texts and "ü" not in texts, texts
