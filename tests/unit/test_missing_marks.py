"""Missing-value marks OCR's detector passes over (engine/missing_marks.py): found by their shape on a rendered
page, in the rows of the lines OCR read, and kept in their cells of a scanned table."""

import cv2
import numpy as np
import pymupdf

from engine.missing_marks import missing_marks
from engine.types import Line
from tests.parsed import cell_rows, only_table, parsed_page
from tests.pdfs import CELL_COLUMNS, rendered_rows
from tests.vlm_pages import scanned_copy

ROWS = [("Harbour", "12.5", "\u2013", "7"), ("Markets", "..", "3.1", "-"), ("Libraries", "4.0", "8.2", "...")]
MARK_TEXTS = ("\u2013", "-", "..", "...")


def rendered(rows: list[tuple[str, ...]]) -> tuple[np.ndarray, float, list[Line]]:
    """Rows rendered grey at 150 dpi, with the lines OCR would read: every cell but the marks."""
    grey, scale, cells = rendered_rows(rows)
    return grey, scale, [Line(text=text, bbox=box, size=9, confidence=0.95) for text, box in cells
                         if text not in MARK_TEXTS]


def test_dashes_and_runs_of_dots_alone_in_their_cells_are_found_with_their_text():
    grey, scale, lines = rendered(ROWS)
    marks = missing_marks(grey, scale, lines, [(60.0, 85.0, 360.0, 140.0)])
    assert all(type(value) is float for mark in marks for value in mark.bbox)  # stored and exported as they are
    column = {x: index for index, x in enumerate(CELL_COLUMNS)}
    found = sorted((round((mark.bbox[3] - 100) / 14), column[min(CELL_COLUMNS, key=lambda x: abs(x - mark.bbox[0]))],
                    mark.text) for mark in marks)
    assert found == [(0, 2, "\u2013"), (1, 1, ".."), (1, 3, "-"), (2, 3, "...")]


def test_nothing_is_found_outside_the_windows_where_a_line_holds_the_mark_or_with_no_text_left_of_it():
    grey, scale, lines = rendered(ROWS)
    assert missing_marks(grey, scale, lines, [(60.0, 300.0, 360.0, 400.0)]) == []
    read = [Line(text=text, bbox=(x, 100 + 14 * r - 7, x + 12, 100 + 14 * r + 2), size=9)
            for r, row in enumerate(ROWS) for x, text in zip(CELL_COLUMNS, row) if text in MARK_TEXTS]
    assert missing_marks(grey, scale, lines + read, [(60.0, 85.0, 360.0, 140.0)]) == []
    alone, _, alone_lines = rendered([("", "", "\u2013", "7")])
    assert missing_marks(alone, scale, alone_lines, [(60.0, 85.0, 360.0, 140.0)]) == []


def test_specks_leaders_and_rules_are_no_marks():
    """A single speck is no mark, a row of leader dots is no run of two or three, a rule is longer than a dash, the
    pieces of a broken rule between rows lie at the edge of the rows' lines, not in their ink band, and the pieces
    (dashes and dots) of one broken across a row lie beside each other on one level."""
    grey, scale, lines = rendered([("Harbour", "12.5", "", "7")])
    speckled = grey.copy()
    cv2.circle(speckled, (int(230 * scale), int(97 * scale)), 1, 0, -1)
    for k in range(8):
        cv2.circle(speckled, (int((130 + 4 * k) * scale), int(99 * scale)), 1, 0, -1)
    cv2.line(speckled, (int(60 * scale), int(120 * scale)), (int(360 * scale), int(120 * scale)), 0, 2)
    for x in range(150, 360, 12):  # a rule between two rows the scan broke into pieces, at the edge of the lines
        cv2.line(speckled, (int(x * scale), int(94 * scale)), (int((x + 4) * scale), int(94 * scale)), 0, 1)
    assert missing_marks(speckled, scale, lines, [(60.0, 85.0, 360.0, 125.0)]) == []
    broken = grey.copy()  # a rule across a row's middle (a \\cmidrule beside a stub set between two rows), in pieces
    for x in range(230, 300, 7):
        cv2.line(broken, (int(x * scale), int(97 * scale)), (int((x + 5) * scale), int(97 * scale)), 0, 1)
    cv2.circle(broken, (int(301 * scale), int(97 * scale)), 0, 0, -1)
    cv2.circle(broken, (int(303 * scale), int(97 * scale)), 0, 0, -1)
    assert missing_marks(broken, scale, lines, [(60.0, 85.0, 360.0, 125.0)]) == []


def test_strokes_of_a_glyph_over_or_under_each_other_are_no_marks():
    """The bars of an "=" and the bar under a "±" the detector passed over are flat like dashes, but ink lies right
    over or under each: they are a glyph's strokes, not a mark alone in its cell (a dash below them still is, inside
    the table's frame)."""
    grey, scale, cells = rendered_rows([("Harbour", "12.5", "=", "7"), ("Markets", "3.1", "\u00b1", "4"),
                                        ("Libraries", "4.0", "\u2013", "8")])
    lines = [Line(text=text, bbox=box, size=9) for text, box in cells if text not in ("=", "\u00b1", "\u2013")]
    framed = grey.copy()  # the table's frame: ink over and under every mark, but no glyph
    cv2.rectangle(framed, (int(62 * scale), int(88 * scale)), (int(355 * scale), int(134 * scale)), 0, 1)
    marks = missing_marks(framed, scale, lines, [(60.0, 85.0, 360.0, 140.0)])
    assert [(mark.text, mark.bbox[1]) for mark in marks] == [("\u2013", 120.0)]  # its row line's top


def test_a_scanned_statistical_table_keeps_its_missing_value_marks_in_their_cells(tmp_path):
    """Through the real pipeline, a 150 dpi scan of a table whose empty cells hold a dash or dots, or a small "x":
    each cell holds its mark (the detector reads none of the dashes and dots, the recognizer reads "x" as "X")."""
    header = ("Service", "2019", "2020", "2021")
    body = [("Harbour", "12.5", "\u2013", "7.0"), ("Markets", "..", "3.1", "4.4"), ("Libraries", "4.0", "8.2", "-"),
            ("Baths", "6.6", "..", "2.9"), ("Parks", "1.2", "x", "\u2013")]
    document = pymupdf.open()
    page = document.new_page()
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")
    for r, row in enumerate([header, *body]):
        for c, text in enumerate(row):
            x = 72 if c == 0 else 200 + 60 * c - font.text_length(text, fontsize=10)  # figures right-aligned
            writer.append((x, 120 + 16 * r), text, font=font, fontsize=10)
    writer.write_text(page)
    for y in (106, 126, 126 + 16 * len(body)):
        page.draw_line((70, y), (382, y), width=0.6)
    document.save(tmp_path / "marks.pdf")
    rows = cell_rows(only_table(parsed_page(scanned_copy(tmp_path / "marks.pdf", tmp_path / "marks-scan.pdf"))))
    assert rows == [list(header), *[list(row) for row in body]]
