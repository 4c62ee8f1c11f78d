"""Rotated pages: /Rotate, text set sideways, scans lying on their side, rotated text in margins.

Every box comes out in the displayed page's coordinates (as a viewer shows the page and as
`Page.get_pixmap` renders it), and the text reads upright and in order.
"""

from pathlib import Path

import numpy as np
import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein

from engine.ocr.detector import TextDetector
from engine.ocr.models import find_ocr_models
from engine.ocr.orientation import LineDirection
from engine.ocr.recognizer import TextRecognizer
from engine.orientation import dominant_turn, turn_box, turned_size
from engine.page_source import PageRenderer
from engine.pipeline import Pipeline
from engine.runtime import OnnxModel
from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.ocr import OcrStage
from engine.stages.reading_order import ReadingOrderStage
from engine.stages.tables import TableStage
from engine.stages.text_layer import TextLayerStage
from engine.types import PageResult
from pages.pdf import page_input

TITLE = "Annual harbour report"
LINES = ["Harbour ledgers of the northern port", "Building permits and board minutes",
         "Reading room closed in spring"]
ROWS = [["Region", "Q1", "Q2", "Q3"], ["North", "10", "12", "14"], ["South", "20", "22", "24"],
        ["East", "5", "6", "7"]]
ARXIV = "arXiv:2101.00001v1 [cs.CL] 1 Jan 2021"
TEXT_STAGES = [TextLayerStage(), TableStage(), BlockStage(), ClassifyStage(), ReadingOrderStage()]


def _write_report(page: pymupdf.Page, left: float = 30) -> None:
    page.insert_text((left, 40), TITLE, fontname="Times-Bold", fontsize=18)
    for i, text in enumerate(LINES):
        page.insert_text((left, 80 + 20 * i), text, fontname="Times-Roman", fontsize=12)


def _parse(path: Path, stages) -> PageResult:
    with pymupdf.open(path) as document:
        item = page_input(document[0], "p", path)
    [result] = Pipeline(stages)([item])
    return result


def _inked(path: Path, box) -> bool:
    """Whether the displayed page (rendered as PyMuPDF renders it) has ink inside the box."""
    with pymupdf.open(path) as document:
        pixmap = document[0].get_pixmap(dpi=72, colorspace=pymupdf.csGRAY,
                                        clip=pymupdf.Rect(box) + (-1, -1, 1, 1))
    return int(np.frombuffer(pixmap.samples, np.uint8).min()) < 128


def _assert_displayed(path: Path, result: PageResult) -> None:
    for block in result.blocks:
        x0, y0, x1, y1 = block.bbox
        assert 0 <= x0 < x1 <= result.width + 0.01 and 0 <= y0 < y1 <= result.height + 0.01, block
        assert _inked(path, block.bbox), f"nothing drawn where {block.type} {block.text!r} is said to be"


def test_turn_box_round_trips():
    box = (10.0, 20.0, 30.0, 60.0)
    for turn in (0, 90, 180, 270):
        width, height = turned_size(200, 100, turn)
        turned = turn_box(box, turn, 200, 100)
        assert 0 <= turned[0] < turned[2] <= width and 0 <= turned[1] < turned[3] <= height
        assert turn_box(turned, (360 - turn) % 360, width, height) == box
    assert turn_box(box, 90, 200, 100) == (40.0, 10.0, 80.0, 30.0)  # the top-left corner goes to the top right


def test_a_page_is_read_turned_only_when_most_of_its_text_runs_that_way():
    assert dominant_turn({}) == 0
    assert dominant_turn({0: 40, 90: 900}) == 90  # a sideways table and its upright page number
    assert dominant_turn({0: 400, 90: 500}) == 0  # a page with a sideways table among its paragraphs
    assert dominant_turn({180: 300}) == 180


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_page_with_rotate_reads_upright_in_order_inside_the_displayed_page(tmp_path: Path, rotation: int):
    document = pymupdf.open()
    page = document.new_page(width=400, height=300)
    _write_report(page)
    page.set_rotation(rotation)
    path = tmp_path / "rotated.pdf"
    document.save(path)

    result = _parse(path, TEXT_STAGES)
    assert (result.width, result.height) == turned_size(400, 300, rotation)
    assert result.text_layer
    assert [block.type for block in result.blocks] == ["title", "text"]
    assert [block.text for block in result.blocks] == [TITLE, " ".join(LINES)]
    _assert_displayed(path, result)


def _landscape_table(page: pymupdf.Page, place) -> None:
    """A ruled table and a paragraph drawn upright on a landscape page of 842 x 595; `place` maps a point of
    that upright page onto `page`."""
    page.insert_text(place(60, 60), "Table 3: Quarterly results by region", fontsize=14, rotate=90)
    columns = [60, 260, 400, 540, 680]
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            page.insert_text(place(columns[c] + 5, 117 + 25 * r), cell, fontsize=11, rotate=90)
    for y in range(100, 201, 25):
        page.draw_line(place(60, y), place(680, y))
    for x in columns:
        page.draw_line(place(x, 100), place(x, 200))
    page.insert_text(place(60, 260), "The figures are thousands of tonnes landed at the port.", fontsize=11,
                     rotate=90)


def _assert_table(path: Path, result: PageResult) -> None:
    [table] = [block for block in result.blocks if block.type == "table"]
    assert (table.table.rows, table.table.cols) == (4, 4)
    assert [cell.text for cell in table.table.cells] == [text for row in ROWS for text in row]
    texts = [block.text for block in result.blocks]
    assert texts.index("Table 3: Quarterly results by region") < texts.index(table.text) < texts.index(
        "The figures are thousands of tonnes landed at the port.")
    _assert_displayed(path, result)


def test_landscape_table_on_a_rotate_90_page_is_found(tmp_path: Path):
    """A landscape page stored as portrait with /Rotate 90, its content drawn to read upright when shown."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.set_rotation(90)
    _landscape_table(page, lambda x, y: pymupdf.Point(x, y) * page.derotation_matrix)
    path = tmp_path / "landscape.pdf"
    document.save(path)

    with pymupdf.open(path) as opened:
        item = page_input(opened[0], "p", path)
    assert (item.width, item.height, item.turn) == (842, 595, 0)
    assert [tuple(round(v) for v in found.bbox) for found in item.found_tables] == [(60, 100, 680, 200)]
    result = _parse(path, TEXT_STAGES)
    assert result.text_layer and (result.width, result.height) == (842, 595)
    _assert_table(path, result)


def test_sideways_table_on_a_portrait_page_is_read_upright(tmp_path: Path):
    """A table printed sideways (text running up the page) on a portrait page without /Rotate."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    _landscape_table(page, lambda x, y: pymupdf.Point(y, 842 - x))
    path = tmp_path / "sideways.pdf"
    document.save(path)

    with pymupdf.open(path) as opened:
        item = page_input(opened[0], "p", path)
        assert opened[0].rotation == 0  # the finder's look at it upright left the page as it was
    assert item.turn == 90 and (item.width, item.height) == (595, 842)
    result = _parse(path, TEXT_STAGES)
    assert (result.width, result.height) == (595, 842)
    _assert_table(path, result)


def test_rotated_margin_text_is_kept_out_of_the_body(tmp_path: Path):
    document = pymupdf.open()
    page = document.new_page(width=400, height=300)
    _write_report(page, left=60)
    page.insert_text((30, 260), ARXIV, fontname="Times-Roman", fontsize=11, rotate=90)
    path = tmp_path / "margin.pdf"
    document.save(path)

    result = _parse(path, TEXT_STAGES)
    body = [block for block in result.blocks if block.type in ("title", "text")]
    assert [block.text for block in body] == [TITLE, " ".join(LINES)]
    [margin] = [block for block in result.blocks if block.type in ("header", "footer")]
    assert margin.text == ARXIV
    _assert_displayed(path, result)


@pytest.fixture(scope="module")
def ocr_stages():
    files = find_ocr_models()
    ocr = OcrStage(PageRenderer(150, 25_000_000), TextDetector(OnnxModel(files.det, "cpu")),
                   TextRecognizer(OnnxModel(files.rec, "cpu")), direction=LineDirection(OnnxModel(files.cls, "cpu")))
    return [TextLayerStage(), ocr, BlockStage(), ClassifyStage(), ReadingOrderStage()]


def _scan(path: Path, lying: int, margin_text: bool = False) -> None:
    """A small text page scanned and inserted as an image turned `lying` degrees counter-clockwise (no /Rotate):
    the page is as tall as the turned image."""
    source = pymupdf.open()
    page = source.new_page(width=300, height=150)
    page.insert_text((50, 40), TITLE, fontname="Times-Bold", fontsize=16)
    for i, text in enumerate(LINES[:2]):
        page.insert_text((50, 80 + 22 * i), text, fontname="Times-Roman", fontsize=12)
    if margin_text:
        page.insert_text((25, 145), "arXiv:2101.00001v1", fontname="Times-Roman", fontsize=10, rotate=90)
    pixmap = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
    pixels = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
    pixels = np.ascontiguousarray(np.rot90(pixels, lying // 90))
    image = pymupdf.Pixmap(pymupdf.csGRAY, pixels.shape[1], pixels.shape[0], pixels.tobytes(), False)
    document = pymupdf.open()
    width, height = turned_size(300, 150, lying)
    document.new_page(width=width, height=height).insert_image(pymupdf.Rect(0, 0, width, height), pixmap=image)
    document.save(path)


@pytest.mark.parametrize("lying", [0, 90, 180, 270])
def test_scan_lying_turned_is_read_upright(tmp_path: Path, ocr_stages, lying: int):
    path = tmp_path / "scan.pdf"
    _scan(path, lying)
    result = _parse(path, ocr_stages)
    assert not result.text_layer
    assert (result.width, result.height) == turned_size(300, 150, lying)  # the page keeps its shape
    texts = [block.text for block in result.blocks if block.type in ("title", "text")]
    assert Levenshtein.normalized_distance(" ".join(texts), " ".join([TITLE, *LINES[:2]])) < 0.1, texts
    _assert_displayed(path, result)


def test_vertical_margin_text_on_a_scan_is_no_body_text(tmp_path: Path, ocr_stages):
    path = tmp_path / "scan.pdf"
    _scan(path, 0, margin_text=True)
    result = _parse(path, ocr_stages)
    texts = [block.text for block in result.blocks if block.type in ("title", "text")]
    assert Levenshtein.normalized_distance(" ".join(texts), " ".join([TITLE, *LINES[:2]])) < 0.1, texts
    [margin] = [block for block in result.blocks if block.type in ("header", "footer")]
    assert Levenshtein.normalized_distance(margin.text, "arXiv:2101.00001v1") < 0.2, margin.text
    _assert_displayed(path, result)


def test_short_column_heads_set_up_a_scanned_page_read_upright(tmp_path: Path, ocr_stages):
    """A table's heads turned to run up the page, each a short word: not long enough to be a run of text up the
    margin, yet read turned, and turned the way the direction classifier says (a quarter clockwise here)."""
    source = pymupdf.open()
    page = source.new_page(width=300, height=150)
    page.insert_text((50, 30), TITLE, fontname="Times-Bold", fontsize=16)
    heads = ["Total", "years", "Rate"]
    for i, head in enumerate(heads):
        page.insert_text((130 + 40 * i, 110), head, fontname="Helvetica", fontsize=11, rotate=90)
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    document = pymupdf.open()
    document.new_page(width=300, height=150).insert_image(pymupdf.Rect(0, 0, 300, 150), pixmap=pixmap)
    path = tmp_path / "heads.pdf"
    document.save(path)
    result = _parse(path, ocr_stages)
    read = [line.text for block in result.blocks for line in block.lines]
    assert all(head in read for head in heads), read
