"""A born-digital page with a pasted scan: the text layer is kept and the scan is read by OCR."""

from pathlib import Path

import pymupdf

from engine.config import EngineConfig
from engine.pipeline import build_pipeline
from pages.pdf import page_input


def test_text_layer_and_pasted_scan_are_both_read(tmp_path: Path):
    scan_source = pymupdf.open()
    scan_page = scan_source.new_page(width=400, height=120)
    scan_page.insert_text((20, 50), "Minutes of the harbour board, 1912", fontname="Times-Roman", fontsize=18)
    pixmap = scan_page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)

    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((60, 80), "Report on the pasted minutes of the board", fontname="Times-Roman", fontsize=14)
    page.insert_image(pymupdf.Rect(60, 200, 460, 320), pixmap=pixmap)
    path = tmp_path / "pasted.pdf"
    document.save(path)

    with pymupdf.open(path) as opened:
        inputs = [page_input(opened[0], "p", path)]
    [result] = build_pipeline(EngineConfig(device="cpu", formula_model="none"))(inputs)
    texts = [block.text for block in result.blocks]
    assert result.text_layer
    assert "Report on the pasted minutes of the board" in texts
    assert any("harbour board, 1912" in text for text in texts), texts


def test_a_line_of_mojibake_in_a_readable_layer_is_read_by_ocr(tmp_path: Path):
    """A font whose map to Unicode is wrong gives "]üìÜüéê •ìê" for words the page shows: OCR reads those lines."""
    shown = pymupdf.open()
    line = shown.new_page(width=400, height=40)
    line.insert_text((10, 26), "Enhance the performance of your database", fontname="Helvetica", fontsize=14)
    pixmap = line.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)

    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((60, 80), "Report on the consulting services of the centre", fontname="Times-Roman", fontsize=14)
    page.insert_image(pymupdf.Rect(60, 200, 460, 240), pixmap=pixmap)
    page.insert_text((70, 226), "]üìÜüéê •ìê °ê£ë†£ûÜüéê †ë ∞†¶£ èÜ•ÜáÜ§ê", fontname="Helvetica", fontsize=14,
                     render_mode=3)  # the layer's text over the shown words, invisible
    path = tmp_path / "mojibake.pdf"
    document.save(path)

    with pymupdf.open(path) as opened:
        inputs = [page_input(opened[0], "p", path)]
    [result] = build_pipeline(EngineConfig(device="cpu", formula_model="none"))(inputs)
    texts = " ".join(block.text for block in result.blocks)
    assert result.text_layer
    assert "Report on the consulting services of the centre" in texts
    assert "performance of your database" in texts and "ü" not in texts, texts
