"""A dash the recognizer reads as the ideograph "一" (engine/ocr/lookalikes.py): an en dash on a page in a Latin
script, the ideograph on a Chinese page and inside Chinese words."""

import pymupdf

from engine.ocr.lookalikes import dashes_read_as_one
from tests.parsed import cell_rows, only_table, parsed_page
from tests.vlm_pages import scanned_copy


def test_a_lone_ideograph_one_on_a_latin_page_is_an_en_dash():
    lines = ["Harbour 12.5 \u4e00 7.1", "\u4e00", "Markets 3.1 4.4", "(\u4e00)"]
    assert dashes_read_as_one(lines) == ["Harbour 12.5 \u2013 7.1", "\u2013", "Markets 3.1 4.4", "(\u2013)"]


def test_the_ideograph_stays_on_a_chinese_page_and_inside_chinese_words():
    chinese = ["档案馆收到港务局的记录", "\u4e00", "二〇二〇年一月一日起施行"]
    assert dashes_read_as_one(chinese) == chinese
    assert dashes_read_as_one(["Harbour Board minutes, 1923", "统一 \u4e00"]) == ["Harbour Board minutes, 1923",
                                                                             "统一 \u2013"]


def test_dashes_alone_in_the_cells_of_a_scanned_table_read_as_dashes(tmp_path):
    """Through the real pipeline: the recognizer reads an en or em dash standing alone as "一" (the last row's, which
    the detector passes over, is found by its shape and stands in its row)."""
    document = pymupdf.open()
    page = document.new_page(width=400, height=200)
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")
    rows = [("Harbour", "12.5", "\u2013", "7.1"), ("Markets", "3.1", "\u2014", "4.4"),
            ("Parks", "1.2", "8.2", "\u2013")]
    for r, row in enumerate(rows):
        for x, text in zip((30, 160, 260, 330), row):
            writer.append((x, 40 + 22 * r), text, font=font, fontsize=11)
    writer.write_text(page)
    document.save(tmp_path / "dashes.pdf")
    table = only_table(parsed_page(scanned_copy(tmp_path / "dashes.pdf", tmp_path / "dashes-scan.pdf")))
    assert cell_rows(table) == [[text.replace("\u2014", "\u2013") for text in row] for row in rows]
