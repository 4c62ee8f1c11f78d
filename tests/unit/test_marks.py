"""Check boxes on scanned pages (engine/marks.py): found at text height, ticked or empty, as the cells of a
questionnaire's grid; a box before its own label is a list's bullet and no table."""

from pathlib import Path

import cv2
import numpy as np
import pymupdf

from engine.config import EngineConfig
from engine.marks import EMPTY, TICKED, checkboxes, mark_lines
from engine.pipeline import build_pipeline
from engine.render import render_page
from engine.types import Line
from pages.pdf import page_input

PROSE = ("The survey asks each country how legal aid is organised and who provides it. Answers were collected "
         "from the ministries of justice and checked against the published budgets of each service.")
SERVICES = ["Legal advice", "Court representation", "Mediation", "Document preparation", "Training of paralegals"]
TICKS = [(True, False), (False, False), (True, True), (False, True), (False, False)]  # (public, private)
OPTIONS = ["Yes", "No", "Don't know"]
BOX = 8.0  # points


def questionnaire_scan(path: Path, dpi: int = 200) -> Path:
    """A questionnaire page on grey paper, rendered and saved as an image: prose, a grid of boxes under two column
    headings (some ticked with a cross), then a question answered by ticking one of three boxed options."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.draw_rect(page.rect, color=None, fill=(0.85, 0.85, 0.85))
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 140), PROSE, fontname="Helvetica", fontsize=10)
    page.insert_text((72, 170), "12. Which services are provided, and by whom?", fontname="Helvetica-Bold",
                     fontsize=10)
    for x, heading in ((352, "Public"), (432, "Private")):
        page.insert_text((x, 196), heading, fontname="Helvetica-Bold", fontsize=10)
    for row, (label, ticks) in enumerate(zip(SERVICES, TICKS)):
        y = 216 + 18 * row
        page.insert_text((90, y), label, fontname="Helvetica", fontsize=10)
        for x, ticked in zip((362, 444), ticks):
            _box(page, x, y, ticked)
    page.insert_text((72, 330), "13. Is legal aid free of charge for children?", fontname="Helvetica-Bold",
                     fontsize=10)
    for row, option in enumerate(OPTIONS):
        y = 352 + 18 * row
        _box(page, 90, y, row == 0)
        page.insert_text((104, y), option, fontname="Helvetica", fontsize=10)
    grey = render_page(page, dpi / 72)[:, :, 0]
    document.close()
    scan = pymupdf.open()
    ok, png = cv2.imencode(".png", grey)
    scan.new_page(width=595, height=842).insert_image(pymupdf.Rect(0, 0, 595, 842), stream=png.tobytes())
    scan.save(path)
    scan.close()
    return path


def _box(page: pymupdf.Page, x: float, baseline: float, ticked: bool) -> None:
    """A white box with a dark border standing on the baseline, crossed when ticked."""
    rect = pymupdf.Rect(x, baseline - BOX, x + BOX, baseline)
    page.draw_rect(rect, color=(0.1, 0.1, 0.1), fill=(1, 1, 1), width=0.7)
    if ticked:
        page.draw_line(rect.tl + (1.5, 1.5), rect.br - (1.5, 1.5), color=(0, 0, 0), width=1.2)
        page.draw_line(rect.tr + (-1.5, 1.5), rect.bl + (1.5, -1.5), color=(0, 0, 0), width=1.2)


def test_boxes_are_found_where_drawn_ticked_or_empty_and_letters_are_no_boxes(tmp_path: Path):
    with pymupdf.open(questionnaire_scan(tmp_path / "form.pdf")) as document:
        grey = render_page(document[0], 200 / 72)[:, :, 0]
    found = sorted(checkboxes(grey, 200 / 72, 10.0), key=lambda item: (round(item[0][3]), item[0][0]))
    grid = [(x, 216 + 18 * row, ticked) for row, ticks in enumerate(TICKS) for x, ticked in zip((362, 444), ticks)]
    options = [(90, 352 + 18 * row, row == 0) for row in range(len(OPTIONS))]
    assert len(found) == len(grid) + len(options)  # none in the prose, the headings or the labels
    for (box, ticked), (x, baseline, expected) in zip(found, grid + options):
        assert abs(box[0] - x) < 1.5 and abs(box[3] - baseline) < 1.5 and box[2] - box[0] > BOX - 1.5
        assert ticked == expected


def test_a_grid_of_boxes_is_a_table_of_marks_and_a_boxed_list_stays_text(tmp_path: Path):
    path = questionnaire_scan(tmp_path / "form.pdf")
    with pymupdf.open(path) as document:
        inputs = [page_input(document[0], "p", path)]
    # read by small alone: tiny, two-pass's first reader, reads the option "Don't know" as "Dont know" (a reading
    # error, not the marks'), which small is not asked to read again as tiny is sure of it
    [result] = build_pipeline(EngineConfig(device="cpu", formula_model="none", ocr_models="small"))(inputs)
    [table] = [block for block in result.blocks if block.type == "table"]
    rows = [[cell.text for cell in sorted(table.table.cells, key=lambda c: c.col) if cell.row == r]
            for r in range(table.table.rows)]
    assert rows[0][1:] == ["Public", "Private"]
    assert rows[1:] == [[label, TICKED if public else EMPTY, TICKED if private else EMPTY]
                        for label, (public, private) in zip(SERVICES, TICKS)]
    text = " ".join(block.text for block in result.blocks if block.type != "table")
    assert all(option in text for option in OPTIONS) and EMPTY not in text and TICKED not in text


def test_no_boxes_on_a_blank_page():
    assert checkboxes(np.full((400, 300), 240, np.uint8), 200 / 72, 10.0) == []


def test_a_box_ocr_read_as_a_symbol_is_replaced_and_one_read_as_digits_is_text():
    """OCR reads an empty box as 口 or □ now and then: that line is the box. Digits that ran into a square in the
    image ("99") are a figure, and no box is made of them."""
    scale = 200 / 72
    grey = np.full((round(200 * scale), round(300 * scale)), 235, np.uint8)
    cv2.rectangle(grey, (round(150 * scale), round(100 * scale)), (round(158 * scale), round(108 * scale)), 20, 2)
    label = Line(text="Education", bbox=(60.0, 99.0, 110.0, 109.0), size=10, confidence=0.9)
    for reading, replaced in (("口", True), ("99", False)):
        read = Line(text=reading, bbox=(150.5, 100.5, 157.5, 107.5), size=8, confidence=0.5)
        marks = mark_lines(grey, scale, [label, read])
        assert [(mark.text, old) for mark, old in marks] == ([(EMPTY, read)] if replaced else [])
