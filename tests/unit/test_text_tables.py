"""Tables a rendered page shows by the alignment of its text alone (engine/stages/text_tables.py), their header
found as the rows above the first row of figures, and tables of a turned scan found in a levelled frame."""

from pathlib import Path

import cv2
import pymupdf
import pytest

from engine.render import render_page
from engine.stages.table_shape import reshaped
from engine.stages.tables import aligned_tables
from engine.stages.text_tables import aligned_regions
from engine.types import BBox, Line
from tests import pdfs
from tests.parsed import cell_rows, only_table, parsed_page
from tests.tex import DESCRIBED, described_table_pdf

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


def described_rows(rows: list[tuple[str, list[str], str]], top: float = 100.0) -> list[Line]:
    """OCR's lines of a description table: a name, its description wrapped over lines in a column 120 pt wide, a
    count; a row starts a line below the last one's description ends."""
    lines, y = [], top
    for name, description, count in rows:
        lines += [Line(text=text, bbox=(x, y, x + 30, y + 9), size=9) for x, text in ((60, name), (270, count)) if text]
        for text in description:
            lines.append(Line(text=text, bbox=(120, y, 120 + 5 * len(text), y + 9), size=9))
            y += 12
    return lines


DESCRIPTIONS = [("Service", ["Description"], "Count"),
                ("Harbour", ["Tonnage landed at the three", "quays of the harbour in the", "year"], "12,480"),
                ("Markets", ["Stalls let at the covered", "market and the weekly street", "market"], "3,215"),
                ("Libraries", ["Loans of books and record-", "ings by the four branch li-", "braries"], "240,757")]


def test_a_description_column_between_names_and_counts_is_a_table_down_to_its_last_line():
    """The description column is wider than half the table and its lines hold more words than a label: between
    columns of short pieces it is a table's column, and its lines wrapped under each row, the last row's too, are
    the table's."""
    lines = described_rows(DESCRIPTIONS)
    [region] = aligned_regions(lines)
    assert region[1] == 100 and region[3] == max(line.bbox[3] for line in lines)


def test_prose_beside_a_column_of_labels_or_with_long_pieces_beside_it_is_no_table():
    """Side headings beside their paragraphs (two columns), or a wide column between columns that hold more than
    labels, are a page's text."""
    side_headings = [(name, description, "") for name, description, _ in DESCRIPTIONS]
    assert aligned_regions(described_rows(side_headings)) == []
    wordy = [(name, description, "as in the year before it") for name, description, _ in DESCRIPTIONS]
    assert aligned_regions(described_rows(wordy)) == []


def test_in_a_picture_region_a_table_captioned_as_one_counts_though_it_holds_words():
    """The layout model took a column of a scanned paper, a description table and its caption in it, for one
    picture: a table of words in a picture counts only when its caption says it is a table."""
    lines = described_rows(DESCRIPTIONS)
    picture = (50.0, 60.0, 320.0, 260.0)
    assert aligned_tables(lines, [], [], [picture]) == []
    caption = Line(text="Table 2: Services of the borough", bbox=(80, 86, 260, 95), size=9)
    [(region, table)] = aligned_tables([caption, *lines], [], [], [picture])
    assert region[1] == 100 and (table.rows, table.cols) == (10, 3)


def header_set_at_its_foot(headings: list[list[str]]) -> tuple[list[Line], BBox, list[str]]:
    """The lines of a table whose header is `headings` over BODY, its aligned region (starting at the top line) and
    the texts of its first row once reshaped."""
    lines = ocr_lines(headings + BODY)
    [region] = aligned_regions(lines)
    assert region[1] == 100
    [found] = aligned_tables(lines, [], [])
    [(_, table)] = reshaped(*found)
    return lines, region, [c.text for c in table.cells if c.row == 0]


def test_a_header_set_at_its_foot_starts_at_its_longest_headings_first_line():
    """Headings set to the bottom of the header: the longest starts a line higher, alone in its row above the
    first row of pieces. The table starts with it, and it is one heading with its lines below; a units note set
    over the table's corner, in line with no heading, smaller than the headings or farther above them than a
    heading's lines stand apart, stays out."""
    lines, region, first = header_set_at_its_foot([["", "", "", "Hours"], ["", "Number of", "Average", "worked"],
                                                   ["Sector", "enterprises", "earnings", "per week"]])
    assert first == ["Sector", "Number of enterprises", "Average earnings", "Hours worked per week"]
    units = Line(text="(Number of persons)", bbox=(330, 88, 440, 97), size=9)  # over the corner, in line with none
    assert aligned_regions([units, *lines]) == [region]
    small = Line(text="(Number of persons)", bbox=(340, 91, 410, 97), size=6)  # in line with "Hours", smaller
    assert aligned_regions([small, *lines]) == [region]
    apart = Line(text="(In thousands)", bbox=(367, 85, 417, 94), size=9)  # centred over "worked", 6 pt over "Hours"
    assert aligned_regions([apart, *lines]) == [region]


def test_a_header_set_at_its_foot_whose_longest_heading_heads_the_first_column_after_the_stub():
    """The longest heading heads the first column of figures: under its first line the row begins with that
    heading's second line, the stub's heading lower still. The table starts with its first line all the same."""
    _, _, first = header_set_at_its_foot([["", "Hours", "", ""], ["", "worked", "Number of", "Average"],
                                          ["Sector", "per week", "enterprises", "earnings"]])
    assert first == ["Sector", "Hours worked per week", "Number of enterprises", "Average earnings"]


def test_a_numbered_questions_hanging_lines_over_a_table_are_not_its_descriptions():
    """A questionnaire's question: its number, its text beside it wrapped under itself (two pieces, not a
    description table's three), then the table of answers. The table starts at its own rows."""
    question = [Line(text="28.", bbox=(60, 60, 72, 69), size=9),
                Line(text="Are specialized services provided for specific groups? If yes,", bbox=(80, 60, 400, 69),
                     size=9),
                Line(text="please indicate by whom these services are provided", bbox=(80, 72, 330, 81), size=9),
                Line(text="(Please select all that apply)", bbox=(80, 84, 230, 93), size=9)]
    lines = ocr_lines(HEADER + BODY)
    [region] = aligned_regions(question + lines)
    assert region[1] == 100


def test_a_note_and_the_prose_under_a_table_end_it_there():
    """A note and a source line under a table, then a paragraph, all from the table's left edge: the paragraph's
    lines are no description wrapped under the note, and the table is found, down to its last row."""
    lines = ocr_lines(HEADER + BODY)
    bottom = max(line.bbox[3] for line in lines)
    below = [("Note: figures may not add up", 60, 190), ("Source: National Statistics Office", 60, 220),
             ("Compared with the previous quarter, employment rose slightly in most regions", 60, 480),
             ("most regions.", 60, 120)]
    under = [Line(text=text, bbox=(x0, bottom + 4 + 12 * i, x1, bottom + 13 + 12 * i), size=9)
             for i, (text, x0, x1) in enumerate(below)]
    [region] = aligned_regions(lines + under)
    assert region[3] == bottom


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
    result = parsed_page(tmp_path / "scan.pdf")
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


def wrapped_rows(labels: list[list[str]], figures: list[list[str]], top: float = 100.0) -> list[Line]:
    """A table whose row labels wrap over lines in a first column 150 pt wide, the figures on each label's last
    line in two narrow right-aligned columns under a header row, as OCR gives them."""
    lines = [Line(text=text, bbox=(right - 6 * len(text), top, right, top + 9), size=9, confidence=0.95)
             for right, text in ((84, "Item"), (260, "Public"), (310, "2018"))]
    y = top + 12
    for label, values in zip(labels, figures):
        for index, part in enumerate(label):
            lines.append(Line(text=part, bbox=(60, y, 60 + 5.5 * len(part), y + 9), size=9, confidence=0.95))
            if index == len(label) - 1:
                lines += [Line(text=value, bbox=(right - 6 * len(value), y, right, y + 9), size=9, confidence=0.95)
                          for right, value in zip((260, 310), values)]
            y += 12
    return lines


LABELS = [["Municipal waste collected", "separately for recycling or", "composting"], ["Mining and quarrying"],
          ["Passenger cars registered", "for the first time in the", "reporting year"],
          ["Electricity, gas and steam", "supply"], ["Visits to general", "practitioners per inhabitant",
                                                     "and year"]]
FIGURES = [["49.7", "92.0"], ["-", "23,374"], ["x", "641,475"], ["949,718", "975,492"], ["(15.0)", "965,533"]]


def test_long_row_labels_wrapped_beside_two_columns_of_figures_are_a_table():
    """The first column is wider than half the table: beside figures it is a stub of labels, not prose."""
    lines = wrapped_rows(LABELS, FIGURES)
    [region] = aligned_regions(lines)
    assert region[1] == 100 and region[2] == 310
    [found] = aligned_tables(lines, [], [])
    [(_, table)] = reshaped(*found)  # each label's lines joined into its row, as the table stage does
    assert (table.rows, table.cols) == (6, 3)
    assert [c.text for c in table.cells if c.row == 4] == ["Electricity, gas and steam supply", "949,718", "975,492"]
    assert [c.text for c in table.cells if c.row == 3][0] == "Passenger cars registered for the first time in the " \
                                                             "reporting year"


def test_a_paragraph_or_its_lower_case_last_line_under_a_table_is_not_its_label():
    lines = wrapped_rows(LABELS, FIGURES)
    bottom = max(line.bbox[3] for line in lines)
    prose = [Line(text="The methodology follows the international recommendations adopted in the previous",
                  bbox=(60, bottom + 8, 480, bottom + 17), size=9, confidence=0.95),
             Line(text="series are comparable over time.", bbox=(60, bottom + 20, 220, bottom + 29), size=9,
                  confidence=0.95)]
    [region] = aligned_regions(lines + prose)
    assert region[3] == bottom


def test_a_tight_table_whose_header_words_nearly_touch_and_run_across_columns_is_found():
    """Header words 4 pt apart, and one OCR line over two columns' headers ("Men Unemployed"): the rows still part
    into pieces, and the columns come from the rows of figures."""
    header = [Line(text=text, bbox=(x0, 100, x1, 109), size=9, confidence=0.95)
              for text, x0, x1 in (("Region", 60, 100), ("Total", 150, 180), ("Inactive", 184, 222),
                                   ("Men Unemployed", 232, 330))]
    body = [Line(text=text, bbox=(right - 6 * len(text), 112 + 12 * r, right, 121 + 12 * r), size=9, confidence=0.95)
            for r in range(4) for right, text in zip((180, 222, 262, 330), ("12.5", "7,301", "40.2", "1,118"))]
    labels = [Line(text=text, bbox=(60, 112 + 12 * r, 60 + 6 * len(text), 121 + 12 * r), size=9, confidence=0.95)
              for r, text in enumerate(["North", "South", "East", "West"])]
    [region] = aligned_regions(header + body + labels)
    assert region[1] == 100 and region[3] == 121 + 36


def test_a_display_formula_whose_pieces_line_up_is_no_table():
    pieces = [("∞", 138, 151, 147), ("1", 155, 151, 163), ("1", 217, 151, 224), ("ζ(s) =", 95, 159, 133),
              ("∑", 136, 160, 147), ("∏", 184, 159, 197), ("1−p−s", 200, 167, 241), ("ns", 153, 168, 165),
              ("n=1", 132, 175, 151), ("p", 186, 175, 194)]
    lines = [Line(text=text, bbox=(x0, y, x1, y + 10), size=9, confidence=0.9) for text, x0, y, x1 in pieces]
    assert aligned_regions(lines) == []


def scanned(pdf: Path, folder: Path) -> Path:
    """The PDF's first page as a 200 dpi scan."""
    with pymupdf.open(pdf) as document:
        page = document[0]
        png = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
        width, height = page.rect.width, page.rect.height
    scan = pymupdf.open()
    scan.new_page(width=width, height=height).insert_image(pymupdf.Rect(0, 0, width, height), stream=png)
    path = folder / f"{pdf.stem}-scan.pdf"
    scan.save(path)
    return path


def test_a_scanned_table_of_wrapped_labels_and_close_figure_columns_is_read_cell_by_cell(tmp_path: Path):
    """Through the real pipeline: the labels wrap over up to three lines in a stub wider than half the table, the
    widest figures of neighbouring columns stand 9 pt apart (the detector joins them into one line), a paragraph
    above and a note below. One table of a header and five rows, every figure in its own cell, and the paragraph
    and the note stay text."""
    result = parsed_page(scanned(pdfs.wrapped_statistics_pdf(tmp_path), tmp_path))
    rows = cell_rows(only_table(result))
    assert rows[0] == ["Sector", "2019", "2020", "2021", "2022"]
    expected = [[" ".join(label), *figures] for label, figures in pdfs.WRAPPED_STATISTICS]
    assert [row[1:] for row in rows[1:]] == [row[1:] for row in expected]
    assert [row[0] for row in rows[1:]] == [row[0] for row in expected]
    text = " ".join(block.text for block in result.blocks if block.type != "table")
    assert "Estimates are based on a sample" in text and "Note: figures may not add up" in text


def test_a_stub_heading_set_between_a_group_heading_row_and_its_sub_headings_is_in_the_table():
    """A two-level header as papers set it: dataset names over their metrics, the stub's heading ("Method") on a
    line of its own between the two header rows, left of both. The table's region reaches up over all three."""
    group = [Line(text=text, bbox=(x, 100, x + 40, 109), size=9) for x, text in ((250, "CIFAR-10"), (360, "COCO"))]
    stub = [Line(text="Method", bbox=(60, 106, 95, 115), size=9)]
    metrics = ocr_lines([["", "Acc.", "F1", "Acc."]], top=112.0)
    body = ocr_lines([["ResNet-50", "76.1", "0.712", "81.0"], ["ViT-B/16", "81.3", "0.774", "84.2"],
                      ["Ours", "83.0", "0.791", "86.9"]], top=124.0)
    [region] = aligned_regions(group + stub + metrics + body)
    assert region[1] == 100 and region[0] == 60


def test_tables_stacked_under_their_titles_close_together_are_found_one_by_one():
    """A note under the first table and the second table's title, a line apart each: the title ends the first
    table's run, and the note is left out of it."""
    first = ocr_lines(HEADER[:1] + BODY)
    note = Line(text="Note: totals may differ because of rounding.", bbox=(60, 160, 185, 169), size=9)
    title = Line(text="Table 2. Enterprises by size", bbox=(60, 172, 170, 181), size=9)
    second = ocr_lines(HEADER[:1] + BODY[:3], top=184.0)
    regions = aligned_regions(first + [note, title] + second)
    assert len(regions) == 2
    assert regions[0][3] < 160 and regions[1][1] >= 184


def test_rows_whose_figures_stand_a_word_space_apart_are_rows_of_the_table():
    """Figures 3 pt apart (a table's narrow gutters; each one piece of the table frame: engine/figure_runs.py), and
    the last row's long label run into its first figure: every row holds cells, the last too."""
    def row(top: float, pieces: list[tuple[str, float, float]]) -> list[Line]:
        return [Line(text=text, bbox=(x0, top, x1, top + 11), size=8) for text, x0, x1 in pieces]

    figures = [("7,057,071", 120, 156), ("8,416,372", 159, 195), ("2,193,943", 198, 234)]
    lines = row(100, [("Upper basin", 20, 62), ("8,669,908", 88, 117)] + figures)
    lines += row(111, [("Coastal", 20, 48), ("8,696,548", 88, 117)] + figures)
    lines += row(122, [("Lakeside", 20, 52), ("708,079", 93, 117)] + figures)
    lines += row(133, [("Northern Islands 8,592,743", 20, 117)] + figures)
    [region] = aligned_regions(lines)
    assert region[3] == 144


@pytest.mark.parametrize("scan", [False, True], ids=["born-digital", "scanned"])
@pytest.mark.parametrize(("width", "two_columns"), [("3.2cm", True), ("5cm", False)], ids=["paper", "page"])
def test_a_description_table_without_rules_keeps_each_description_in_its_row_and_its_caption_out(
        tmp_path: Path, scan: bool, width: str, two_columns: bool):
    """Through the real pipeline, pdfLaTeX pages: each row's description wrapped and justified over lines in a
    paper's column (PyMuPDF's finder cut its rows between a description's lines, and on the scan the layout model
    saw no table), or set across a page (the finder took the caption into the description's heading). One table,
    each description whole in its row, the prose and the caption outside it."""
    path = described_table_pdf(tmp_path, width, two_columns)
    result = parsed_page(scanned(path, tmp_path) if scan else path)
    rows = cell_rows(only_table(result))
    assert rows == [["Service", "Description", "Count"], *[list(row) for row in DESCRIBED]]
    assert [(block.type, block.text) for block in result.blocks if block.type != "table"][1] == (
        "caption", "Table 1: Services of the borough")
    assert [block.type for block in result.blocks if block.type != "table"] == ["text", "caption", "text"]
