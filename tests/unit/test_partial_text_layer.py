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
