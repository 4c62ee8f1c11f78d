"""Tables a rendered page shows by the alignment of its text alone (engine/stages/text_tables.py), their header
found as the rows above the first row of figures, and tables of a turned scan found in a levelled frame."""

from pathlib import Path

import cv2
import pymupdf

from engine.config import EngineConfig
from engine.pipeline import build_pipeline
from engine.render import render_page
from engine.stages.tables import aligned_tables
from engine.stages.text_tables import aligned_regions
from engine.types import Line
from pages.pdf import page_input
from tests import pdfs

HEADER = [["Sector", "Number of", "Average", "Persons"], ["", "enterprises", "monthly", "employed"],
          ["", "", "earnings", ""]]
BODY = [["Mining and quarrying", "4,486,977", "2,843", "21"], ["Construction", "74,593", "4,035", "607.3"],
        ["Education", "39,973.9", "45,293.6", "956,009"], ["Manufacturing", "351", "8", "995,454"]]
COLUMNS = [(60, 190), (240, 290), (300, 350), (360, 410)]


def ocr_lines(rows: list[list[str]], top: float = 100.0) -> list[Line]:
    """Lines as OCR gives them: one box per cell's text, rows 12 pt apart, 9 pt tall."""
    lines = []
    for r, row in enumerate(rows):
        for (x0, x1), text in zip(COLUMNS, row):
            if text:
                width = min(x1 - x0, 6 * len(text))
                left = x0 if x0 == 60 else x1 - width  # labels left-aligned, figures right-aligned
                lines.append(Line(text=text, bbox=(left, top + 12 * r, left + width, top + 12 * r + 9), size=9,
                                  confidence=0.95))
    return lines


def test_rows_of_figures_in_columns_are_a_table_with_its_wrapped_header():
    lines = ocr_lines(HEADER + BODY)
    [region] = aligned_regions(lines)
    assert region[1] == 100 and region[3] == 100 + 12 * 6 + 9  # the header's lines belong to it
    [(box, table)] = aligned_tables(lines, [], [])
    assert (table.rows, table.cols) == (7, 4)
    assert [c.header for c in table.cells if c.col == 1] == [True, True, True, False, False, False, False]


def test_two_columns_of_prose_are_no_table():
    prose = ["The figures in this release are provisional and will", "be revised when the annual survey is complete.",
             "Totals may differ from the sum of their parts", "because of rounding; estimates are based on a",
             "sample of households and subject to sampling error."]
    lines = [Line(text=text, bbox=(x, 100 + 12 * r, x + 230, 109 + 12 * r), size=9, confidence=0.95)
             for r, text in enumerate(prose) for x in (60, 310)]
    assert aligned_regions(lines) == []


def test_a_table_elsewhere_on_the_page_is_not_found_twice():
    lines = ocr_lines(HEADER + BODY)
    assert aligned_tables(lines, [], [(50.0, 90.0, 420.0, 200.0)]) == []


def test_in_a_picture_region_only_a_table_of_figures_counts():
    menus = [["Row Permissions", "Lock Holders", "Edit", "Definition"], ["Sequences", "Locked Rows", "View", "Show"],
             ["SQL Packages", "Permissions", "Data", "Related"], ["Tables", "Statistics", "Copy", "Journal"]]
    picture = [(50.0, 90.0, 420.0, 200.0)]
    assert aligned_tables(ocr_lines(menus), [], [], picture) == []  # a screenshot's menus line up too
    assert aligned_tables(ocr_lines(menus), [], []) != []
    [(_, table)] = aligned_tables(ocr_lines(HEADER + BODY), [], [], picture)  # a statistical table seen as a picture
    assert table.rows == 7


def test_tables_on_a_scan_turned_by_a_degree_and_a_half_keep_their_rows_and_columns(tmp_path: Path):
    """Rows 13 pt apart drift by 9 pt across a 360 pt wide table at 1.5 degrees: found and built level, not run
    into each other."""
    with pymupdf.open(pdfs.statistics_pdf(tmp_path)) as document:
        page = document[0]
        grey = render_page(page, 200 / 72)[:, :, 0]
        width, height = page.rect.width, page.rect.height
    turned = cv2.warpAffine(grey, cv2.getRotationMatrix2D((grey.shape[1] / 2, grey.shape[0] / 2), 1.5, 1.0),
                            (grey.shape[1], grey.shape[0]), borderValue=255)
    scan = pymupdf.open()
    ok, png = cv2.imencode(".png", turned)
    scan.new_page(width=width, height=height).insert_image(pymupdf.Rect(0, 0, width, height), stream=png.tobytes())
    scan.save(tmp_path / "scan.pdf")
    with pymupdf.open(tmp_path / "scan.pdf") as opened:
        inputs = [page_input(opened[0], "p", tmp_path / "scan.pdf")]
    [result] = build_pipeline(EngineConfig(device="cpu", formula_model="none"))(inputs)
    tables = sorted((b for b in result.blocks if b.type == "table"), key=lambda b: b.bbox[1])
    assert [(t.table.rows, t.table.cols) for t in tables] == [(5, 5), (4, 5)]
    assert [c.text for c in tables[1].table.cells if c.row == 3] == ["Large", "214", "142,655", "41,372", "18,006"]


def test_a_last_label_wrapped_onto_a_line_of_its_own_stays_in_the_table_and_a_note_below_does_not():
    body = BODY + [["Persons not in education,", "12", "14", "9"]]
    continued = ocr_lines(HEADER + body + [["employment or training", "", "", ""]])
    noted = ocr_lines(HEADER + body + [["Source: national survey", "", "", ""]])
    assert aligned_regions(continued)[0][3] == 100 + 12 * 8 + 9
    assert aligned_regions(noted)[0][3] == 100 + 12 * 7 + 9


def test_a_table_in_one_column_of_a_spread_is_not_widened_by_the_facing_page():
    """On a scanned spread the facing page's prose shares the rows of a table set under a question; the gutter
    between the two columns of prose splits the page, and the table keeps to its own column."""
    facing = [Line(text=text, bbox=(60, 100 + 12 * r, 300, 109 + 12 * r), size=9, confidence=0.95)
              for r, text in enumerate(["If your country has an institutional legal aid provider, what is",
                                        "the maximum number of cases a lawyer may take on at one time,",
                                        "and how is the limit set and checked by the providers?"] * 3)]
    table = [Line(text=line.text, bbox=(line.bbox[0] + 340, *line.bbox[1:2], line.bbox[2] + 340, line.bbox[3]),
                  size=9, confidence=0.95) for line in ocr_lines(HEADER + BODY)]
    question = Line(text="Which sectors employ the most persons in each region?", bbox=(400, 76, 700, 85), size=9,
                    confidence=0.95)
    [region] = aligned_regions(facing + [question] + table)
    assert region[0] == 400 and region[1] == 100 and region[2] == 750


def test_a_table_whose_column_gap_no_line_crosses_stays_whole():
    """A gap no line crosses is a gutter only between two columns of prose: beside figures it is the table's."""
    lines = [Line(text=text, bbox=(x, 100 + 12 * r, x + 6 * len(text), 109 + 12 * r), size=9, confidence=0.95)
             for r, (label, figure) in enumerate(zip(["Mining and quarrying", "Construction", "Education",
                                                      "Manufacturing of goods"], ["4,486", "74,593", "39,973", "351"]))
             for x, text in ((60, label), (400, figure))]
    [region] = aligned_regions(lines)
    assert region[0] == 60 and region[2] > 400
