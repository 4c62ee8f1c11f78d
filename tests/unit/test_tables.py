from pathlib import Path

import numpy as np
import pymupdf
import pytest

from engine.render import render_page
from engine.rules import Rule, merge_rules, rules_from_boxes
from engine.stages.table_shape import join_wrapped_rows
from engine.stages.tables import (
    TableFrame,
    TableStage,
    build_table,
    choose_tables,
    find_table_regions,
    layout_tables,
    shown_rows,
)
from engine.table_grid import make_table
from engine.types import Line, PageInput, PageState, Region, TableCell, Word
from pages.pdf import drawing_boxes, read_text_layer
from tests import pdfs


def text(value: str, x0: float, y0: float, x1: float, bold: bool = False) -> Line:
    return Line(text=value, bbox=(x0, y0, x1, y0 + 8), size=8, bold=bold)


def hrule(y: float, x0: float = 100, x1: float = 400) -> Rule:
    return Rule(x0, y, x1, y)


def vrule(x: float, y0: float, y1: float) -> Rule:
    return Rule(x, y0, x, y1)


def test_pieces_of_a_grid_drawn_cell_by_cell_merge_into_rules():
    pieces = rules_from_boxes([(100, 50, 200, 50), (200, 50, 300, 50.2), (100, 60, 100, 70), (100, 70, 100, 80)])
    assert sorted((r.x0, r.x1, r.horizontal) for r in pieces) == [(100, 100, False), (100, 300, True)]
    assert merge_rules([hrule(10, 0, 50), hrule(10, 60, 90)]) == [hrule(10, 0, 50), hrule(10, 60, 90)]


def booktabs_table():
    """Header of two rows ("Area" set between them, "2017" over a partial rule), a multirow body label."""
    lines = [
        text("2017", 300, 102, 330, bold=True),
        text("Area", 110, 108, 140, bold=True),
        text("Loans", 260, 114, 290, bold=True), text("Visits", 340, 114, 380, bold=True),
        text("166", 270, 128, 290), text("180", 360, 128, 380),
        text("Centre", 110, 134, 150),
        text("72", 275, 140, 290), text("158", 360, 140, 380),
    ]
    rules = [hrule(100), Rule(250, 112, 390, 112), hrule(125), hrule(160)]
    return lines, rules


def test_booktabs_table_header_spans_and_multirow_cells():
    lines, rules = booktabs_table()
    [(region, members)] = find_table_regions(rules, lines)
    assert region == (100, 100, 400, 160)
    table = build_table(region, lines, members)
    assert (table.rows, table.cols) == (4, 3)
    assert table.html == (
        "<table><tr><th rowspan=\"2\">Area</th><th colspan=\"2\">2017</th></tr>"
        "<tr><th>Loans</th><th>Visits</th></tr>"
        "<tr><td rowspan=\"2\">Centre</td><td>166</td><td>180</td></tr>"
        "<tr><td>72</td><td>158</td></tr></table>"
    )


def test_fully_ruled_table_takes_its_cells_from_the_grid():
    ys = [100, 112, 124, 136, 148]
    lines = [
        text("Area", 105, 110, 130), text("2017", 255, 102, 290),
        text("Loans", 205, 114, 240), text("Visits", 305, 114, 340),
        text("Centre", 105, 134, 140), text("1", 205, 126, 210), text("2", 305, 126, 310),
        text("3", 205, 138, 210), text("4", 305, 138, 310),
    ]
    rules = [hrule(y) for y in (100, 124, 148)] + [Rule(200, 112, 400, 112), Rule(200, 136, 400, 136)]
    rules += [vrule(x, 100, 148) for x in (100, 200, 400)] + [vrule(300, 112, 148)]
    [(region, members)] = find_table_regions(rules, lines)
    table = build_table(region, lines, members)
    assert len(ys) - 1 == table.rows and table.cols == 3
    cells = {(c.row, c.col): (c.text, c.row_span, c.col_span, c.header) for c in table.cells}
    assert cells[(0, 0)] == ("Area", 2, 1, True)
    assert cells[(0, 1)] == ("2017", 1, 2, True)
    assert cells[(2, 0)] == ("Centre", 2, 1, False)
    assert cells[(3, 2)] == ("4", 1, 1, False)


def test_prose_between_rules_is_not_a_table():
    lines = [text("A paragraph of running text that fills the whole column width", 60, 110, 500),
             text("and goes on below the first line of it.", 60, 120, 500)]
    assert find_table_regions([hrule(100), hrule(140)], lines) == []


def test_html_escapes_text_and_fills_uncovered_slots():
    table = make_table(2, 2, [TableCell(0, 0, "a < b", header=True), TableCell(0, 1, "x", header=True),
                              TableCell(1, 0, "1")])
    assert table.html == "<table><tr><th>a &lt; b</th><th>x</th></tr><tr><td>1</td><td></td></tr></table>"


def test_a_table_never_covers_a_slot_twice():
    table = make_table(3, 2, [TableCell(0, 0, "a", row_span=2), TableCell(1, 0, "b"), TableCell(1, 1, "c", row_span=3),
                              TableCell(0, 1, "d", col_span=2)])
    slots = [(r, c) for cell in table.cells for r in range(cell.row, cell.row + cell.row_span)
             for c in range(cell.col, cell.col + cell.col_span)]
    assert sorted(slots) == [(r, c) for r in range(3) for c in range(2)]
    assert next(cell for cell in table.cells if cell.row == 0 and cell.col == 0).text == "a b"


def test_booktabs_rows_without_inner_rules_stay_one_per_line():
    lines = [text("Name", 110, 102, 150, bold=True), text("Total", 260, 102, 290, bold=True),
             text("Alpha", 110, 118, 140), text("12", 260, 118, 290),
             text("Beta", 110, 128, 140), text("7", 260, 128, 290)]
    rules = [hrule(100), hrule(114), hrule(140)]
    [(region, members)] = find_table_regions(rules, lines)
    table = build_table(region, lines, members)
    assert [[c.text for c in table.cells if c.row == r] for r in range(table.rows)] == [
        ["Name", "Total"], ["Alpha", "12"], ["Beta", "7"]]


def test_a_grid_with_open_sides_is_read_by_its_rules():
    """Column rules inside the table, none on its outer sides: the ruled bands are the rows, lines stacked in a
    cell stay in it."""
    lines = [
        text("Model", 110, 102, 150, bold=True), text("TEDS", 260, 102, 290, bold=True),
        text("Time", 340, 102, 370, bold=True),
        text("OTSL", 110, 118, 140), text("0.965", 260, 118, 290), text("2.73", 340, 118, 370),
        text("HTML", 110, 128, 140), text("0.969", 260, 128, 290), text("5.39", 340, 128, 370),
        text("OTSL", 110, 142, 140), text("0.938", 260, 142, 290), text("1.97", 340, 142, 370),
    ]
    rules = [hrule(100), hrule(114), hrule(139), hrule(153), vrule(200, 100, 153), vrule(320, 100, 153)]
    [(region, members)] = find_table_regions(rules, lines)
    table = build_table(region, lines, members)
    assert (table.rows, table.cols) == (3, 3)
    assert [[c.text for c in table.cells if c.row == r] for r in range(3)] == [
        ["Model", "TEDS", "Time"], ["OTSL HTML", "0.965 0.969", "2.73 5.39"], ["OTSL", "0.938", "1.97"]]


def test_layout_table_regions_on_scans_are_structured_from_the_ocr_lines():
    lines = [text("Column name", 110, 100, 170), text("Data type", 200, 100, 250), text("Description", 280, 100, 340),
             text("USAGE", 110, 114, 140), text("VARCHAR(7)", 200, 114, 250), text("Usage setting:", 280, 114, 340),
             text("ALLOWED: the user may use it.", 280, 124, 390),
             text("USER_TYPE", 110, 138, 160), text("VARCHAR(5)", 200, 138, 250),
             text("Type of profile", 280, 138, 350)]
    [(box, table)] = layout_tables([Region(type="table", bbox=(100, 95, 400, 150), score=0.9)], lines, [])
    assert box == (110, 100, 390, 146)
    assert [[c.text for c in table.cells if c.row == r] for r in range(table.rows)][0] == \
        ["Column name", "Data type", "Description"]
    prose = [text("A column mask is a database object that manifests a column value access control rule.", 110, y,
                  390) for y in (100, 112, 124)]
    assert layout_tables([Region(type="table", bbox=(100, 95, 400, 150), score=0.9)], prose, []) == []
    assert layout_tables([Region(type="table", bbox=(100, 95, 400, 150), score=0.3)], lines, []) == []


def test_a_header_cell_wrapped_onto_a_second_row_joins_its_cell():
    cells = [TableCell(0, 0, "", header=True), TableCell(0, 1, "State funded", header=True),
             TableCell(0, 2, "CSOs", header=True), TableCell(1, 0, ""), TableCell(1, 1, "legal aid"),
             TableCell(1, 2, ""), TableCell(2, 0, "Children"), TableCell(2, 1, "*"), TableCell(2, 2, "*"),
             TableCell(3, 0, "Suburbs"), TableCell(3, 1, ""), TableCell(3, 2, ""),
             TableCell(4, 0, "Women"), TableCell(4, 1, "12"), TableCell(4, 2, "3"),
             TableCell(5, 0, ""), TableCell(5, 1, "7"), TableCell(5, 2, "")]
    table = join_wrapped_rows(make_table(6, 3, cells))
    assert [[c.text for c in table.cells if c.row == r] for r in range(table.rows)] == [
        ["", "State funded legal aid", "CSOs"], ["Children", "*", "*"], ["Suburbs", "", ""], ["Women", "12", "3"],
        ["", "7", ""]]


def test_no_empty_column_between_the_last_column_rule_and_the_tables_edge():
    lines = [text("Action", 110, 102, 150, bold=True), text("A", 210, 102, 220, bold=True),
             text("B", 260, 102, 270, bold=True), text("Run", 110, 118, 140), text("X", 210, 118, 220),
             text("Stop", 110, 132, 140), text("X", 260, 132, 270)]
    rules = [hrule(100), hrule(114), hrule(128), hrule(142), vrule(100, 100, 142), vrule(200, 100, 142),
             vrule(250, 100, 142), vrule(300, 100, 142)]
    table = build_table((100, 100, 400, 142), lines, rules)
    assert (table.rows, table.cols) == (3, 3)


def test_a_caption_inside_a_layout_table_region_stays_out_of_the_table():
    lines = [text("Table 3: Budget execution by programme, fiscal year 2020.", 124, 55, 488),
             text("Programme", 190, 72, 240), text("Budgeted", 300, 72, 340),
             text("Outreach", 190, 86, 240), text("3,139.4", 300, 86, 340),
             text("Training", 190, 100, 240), text("9,085.0", 300, 100, 340)]
    [(box, table)] = layout_tables([Region(type="table", bbox=(120, 50, 490, 125), score=0.9)], lines, [])
    assert box[1] == 72 and "Table 3" not in " ".join(c.text for c in table.cells)


def test_no_table_in_an_image_captioned_as_a_figure():
    """A screenshot's OCR'd text between the image's frame lines lines up like a table; under a "Figure" caption
    it stays a figure, under a "Table" caption it is a table."""
    lines, _ = booktabs_table()
    frame = [(100, 100, 400, 100), (100, 160, 400, 160), (100, 125, 400, 125)]
    for caption, tables in (("Figure 3-10 Column masks shown in System i Navigator", 0), ("Table 3-10 Loans", 1)):
        state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=600, height=800, text_lines=[],
                                          image_boxes=[(98, 98, 402, 162)], drawing_boxes=frame))
        state.use_text_layer = True
        state.lines = [*lines, text(caption, 100, 166, 390)]
        [result] = TableStage()([state])
        assert sum(1 for block in result.blocks if block.type == "table") == tables


def test_a_label_hyphenated_onto_a_line_of_its_own_is_joined_again():
    lines = [text("Area", 110, 108, 140, bold=True), text("Loans", 260, 108, 290, bold=True),
             text("Visits", 340, 108, 380, bold=True), text("Conser-", 110, 128, 150), text("166", 270, 128, 290),
             text("180", 360, 128, 380), text("vation", 110, 138, 145), text("Total", 110, 150, 140),
             text("72", 275, 150, 290), text("158", 360, 150, 380)]
    rules = [hrule(100), hrule(122), hrule(162)]
    [(region, members)] = find_table_regions(rules, lines)
    table = join_wrapped_rows(build_table(region, lines, members))
    assert [cell.text for cell in table.cells if cell.col == 0] == ["Area", "Conservation", "Total"]


def statistics_rows(top: float, labels: list[str]) -> list[Line]:
    """A header row and one row a label, figures right-aligned in three columns, 12 pt apart."""
    rows = [["Region", "2019", "2020", "Change"]] + [[label, f"{3 + i},{120 + 7 * i}", f"{40 + i}.5", f"+{i}.2"]
                                                      for i, label in enumerate(labels)]
    return [text(value, x1 - 6 * len(value), top + 12 * r, x1) if c else text(value, 110, top + 12 * r,
                                                                               110 + 6 * len(value))
            for r, row in enumerate(rows) for c, (value, x1) in enumerate(zip(row, (0, 260, 320, 380)))]


def test_a_layout_region_over_two_stacked_tables_gives_each_and_leaves_prose_and_notes_out():
    """The layout model drew one table region over a paragraph, two tables under their titles and the notes
    between them; the tables line up apart, and each is built on its own."""
    prose = [text("Estimates are based on a sample of households and are subject to sampling error.", 110, 60, 480)]
    first = statistics_rows(100, ["North", "South", "East", "West"])
    note = [text("Source: National Statistics Office, annual survey.", 110, 164, 330),
            text("Table 2. Households by size", 110, 190, 250)]
    second = statistics_rows(210, ["Urban", "Rural", "Coastal"])
    region = Region(type="table", bbox=(100, 55, 490, 270), score=0.8)
    found = layout_tables([region], prose + first + note + second, [])
    assert [(table.rows, table.cols) for _, table in found] == [(5, 4), (4, 4)]
    assert all("Source" not in c.text and "Estimates" not in c.text for _, table in found for c in table.cells)
    [(box, table)] = layout_tables([region], prose + first + note[:1], [])  # one table: the region, without prose
    assert box[1] == 100 and box[3] == 100 + 48 + 8 and table.rows == 5


def test_a_layout_region_whose_row_labels_wrap_over_lines_has_columns():
    """Most rows hold one piece, a line of a wrapped label left of the figures (on the label's last line): still
    a table's rows, not a figure's text."""
    lines = [text("Region", 110, 100, 146), text("2019", 236, 100, 260), text("2020", 296, 100, 320)]
    for r, label in enumerate([["Persons aged 15", "to 64 years not", "in education,", "employment", "or training"],
                               ["Households with", "at least one", "member in paid", "employment", "last week"]]):
        top = 112 + 60 * r
        lines += [text(part, 110, top + 12 * i, 110 + 6 * len(part)) for i, part in enumerate(label)]
        lines += [text(value, right - 24, top + 12 * (len(label) - 1), right)
                  for value, right in ((f"{40 + r}.5", 260), (f"{7 + r},118", 320))]
    [(_, table)] = layout_tables([Region(type="table", bbox=(100, 95, 400, 240), score=0.9)], lines, [])
    assert table.cols == 3


def test_columns_come_from_the_regular_rows_and_a_piece_across_two_of_them_spans_them():
    """A note set across two cells of one row; the other rows set the columns, and the note becomes one cell over
    the two columns instead of merging them for every row. Two figures OCR read as one line ("41.5 +0.2", the
    ink between them not wide enough to cut) are two cells, one in each column."""
    def second_row(piece: str) -> list[tuple[str, int]]:
        lines = statistics_rows(100, ["North", "South", "East", "West"])
        lines = [line for line in lines if not (line.bbox[1] == 112 and line.bbox[0] > 270)]
        lines.append(text(piece, 290, 112, 380))
        table = build_table((100, 100, 400, 156), lines, [])
        assert table.cols == 4
        return [(c.text, c.col_span) for c in table.cells if c.row == 1]

    assert second_row("see note 4") == [("North", 1), ("3,120", 1), ("see note 4", 2)]
    assert second_row("41.5 +0.2") == [("North", 1), ("3,120", 1), ("41.5", 1), ("+0.2", 1)]


def test_a_piece_of_a_regular_row_across_two_pieces_of_another_sets_no_column():
    """Most rows of a dense scanned table lack a cell (a missing value's dash OCR lost), so the rows with the most
    common number of pieces include one whose two figures OCR read as one piece: it sets no column, and the
    columns the other rows show stay apart."""
    rows = [("2019", "2020", "2021", "2022"), ("3,120", "40.5", "7.1", ""), ("4,127", "41.5", "+1.2", "8.3"),
            ("", "42.5", "9.4", "1.5"), ("6,141", "", "3.3", "2.7"), ("7,148", "44.5", "", "5.9")]
    lines = [text(value, x1 - 6 * len(value), 100 + 12 * r, x1) for r, row in enumerate(rows)
             for value, x1 in zip(row, (200, 260, 320, 380)) if value and not (r == 2 and x1 in (260, 320))]
    lines += [text(label, 110, 112 + 12 * r, 140) for r, label in enumerate(("North", "South", "East", "West",
                                                                             "Centre"))]
    lines.append(text("41.5 +1.2", 236, 124, 320))  # OCR's one piece for South's 2020 and 2021
    table = build_table((100, 100, 400, 168), lines, [])
    assert table.cols == 5
    assert [c.text for c in table.cells if c.row == 2] == ["South", "4,127", "41.5", "+1.2", "8.3"]


def test_rules_under_body_rows_in_pieces_do_not_make_body_cells_span():
    """Rules under every row, broken where the scan is faint: a figure above a piece of rule stays in its column,
    and so does a header with a row between it and the rule (a header's own partial rule: the booktabs test)."""
    lines = statistics_rows(100, ["North", "South", "East", "West"])
    rules = [hrule(110 + 12 * r, 100, 300) for r in range(1, 5)] + [hrule(110 + 12 * r, 305, 400) for r in range(1, 5)]
    table = build_table((100, 100, 400, 156), lines, rules)
    assert all(c.col_span == 1 for c in table.cells)
    assert table.cols == 4


def test_a_header_boxed_over_an_open_body_is_no_grid_of_two_rows():
    """Census style: the header's cells boxed by rules, the body open under one bottom rule. The vertical rules
    stop at the header, so the body's rows come from its text, not from the two bands the rules draw."""
    lines = statistics_rows(100, ["North", "South", "East", "West"])
    rules = [hrule(96), hrule(110), hrule(160)] + [vrule(x, 96, 110) for x in (100, 210, 270, 330, 400)]
    table = build_table((100, 96, 400, 160), lines, rules)
    assert (table.rows, table.cols) == (5, 4)
    assert [c.text for c in table.cells if c.row == 2] == ["South", "4,127", "41.5", "+1.2"]
    assert [c.header for c in table.cells if c.col == 0] == [True, False, False, False, False]
    assert shown_rows(lines, rules) == 5
    grid = rules[:2] + [hrule(122), hrule(134), hrule(146), hrule(160)] + [vrule(x, 96, 160) for x in (100, 210)]
    assert shown_rows(lines, grid) == 5  # a grid's bands, its vertical rules down to the bottom one


def test_two_groups_rules_run_together_on_a_scan_make_neither_heading_span_both_groups():
    """On a scan the rules under "1995" and "1996" meet in one rule: it lies under both headings, so it is neither's
    own; each heading keeps to its column (the reshaping widens it over its own sub-columns)."""
    lines = [text("1995", 236, 100, 256), text("1996", 356, 100, 376)]
    lines += [text(label, x, 112, x + 30) for x, label in ((200, "Loans"), (260, "Visits"), (320, "Loans"),
                                                           (380, "Visits"))]
    lines += [text("Centre", 110, 124, 150)] + [text(f"{v},120", x, 124, x + 30) for v, x in ((1, 200), (2, 260),
                                                                                              (3, 320), (4, 380))]
    lines += [text("Market", 110, 136, 150)] + [text(f"{v},310", x, 136, x + 30) for v, x in ((5, 200), (6, 260),
                                                                                              (7, 320), (8, 380))]
    rules = [hrule(96), hrule(110, 195, 415), hrule(122), hrule(146)]
    table = build_table((100, 96, 420, 146), lines, rules)
    assert [(c.text, c.col_span) for c in table.cells if c.row == 0 and c.text] == [("1995", 1), ("1996", 1)]


def test_a_rule_between_groups_of_figures_is_no_header_rule():
    """A table ruled only horizontally whose rule over the header was not seen (a scan breaks it): its region starts
    at the rule under the header, and the first inner rule parts two groups of figures. The rows above that rule
    are body rows, not a header."""
    rows = [("SVM", "74.2 ± 2.1", "56.8"), ("MLP", "79.3 ± 2.1", "76.5"), ("LSTM", "49.3 ± 0.3", "82.3"),
            ("Ours", "89.7 ± 2.3", "59.7"), ("CLIP", "80.3 ± 1.0", "82.7")]
    lines = [text(value, x, 104 + 12 * r, x + 40) for r, row in enumerate(rows)
             for x, value in zip((110, 200, 300), row)]
    rules = [hrule(100), hrule(139), hrule(165)]
    table = build_table((100, 100, 400, 165), lines, rules)
    assert table.rows == 5
    assert sum(1 for cell in table.cells if cell.header) <= table.cols  # at most the first row


def test_on_a_text_layer_page_figures_lined_up_in_columns_are_a_table_no_finder_saw():
    """A paper's table scaled down to fit its column: neither PyMuPDF's finder nor its layout model saw it. Rows of
    figures lined up in columns are a table all the same; rows of words lined up as well (a list of terms and
    their meanings) need a finder's table or a layout table region under them."""
    def page_with(rows: list[tuple[str, str, str]], regions: list[Region]) -> PageState:
        state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=600, height=800, text_lines=[],
                                          layout_regions=regions))
        state.regions = regions
        state.lines = [text(value, x, 100 + 10 * r, x + 30) for r, row in enumerate(rows)
                       for x, value in zip((100, 200, 260), row)]
        return state

    figures = [("Method", "Acc.", "F1"), ("ResNet", "76.1", "0.71"), ("ViT", "81.3", "0.77"), ("Ours", "83.0", "0.79")]
    words = [("Term", "Meaning", "Use"), ("lemma", "word form", "index"), ("stem", "root", "search"),
             ("token", "unit", "parse")]
    counts = [sum(1 for block in TableStage()([page_with(rows, regions)])[0].blocks if block.type == "table")
              for rows, regions in ((figures, []), (words, []), (words, [Region("table", (95, 95, 300, 145), 1.0)]))]
    assert counts == [1, 0, 1]


def test_a_ruled_grid_whose_cells_wrap_over_lines_is_a_table():
    """A grid with a description column: each cell's text wraps over three lines, so most lines of text hold one
    piece, but every band between two rules holds text in each of the three columns."""
    ys = [100, 112, 148, 184, 220]
    rules = [hrule(y) for y in ys] + [vrule(x, 100, 220) for x in (100, 160, 340, 400)]
    lines = [text("Dataset", 105, 102, 150), text("Description", 165, 102, 230), text("Examples", 345, 102, 395)]
    for top, name, size in zip(ys[1:], ("COCO", "MNLI", "PubMed"), ("328,000", "432,702", "19,717")):
        lines += [text(name, 105, top + 2, 140), text(size, 360, top + 2, 395)]
        lines += [text(part, 165, top + 2 + 11 * i, 330) for i, part in enumerate(
            ("Everyday scenes with objects", "outlined and captioned in", "five sentences each"))]
    [(region, members)] = find_table_regions(rules, lines)
    table = build_table(region, lines, members)
    assert (table.rows, table.cols) == (4, 3)
    assert [c.text for c in table.cells if c.row == 1] == ["COCO", "Everyday scenes with objects outlined and "
                                                           "captioned in five sentences each", "328,000"]


def test_on_a_scan_a_table_is_built_from_its_lines_ink_not_the_detectors_wider_boxes():
    """The detector's box of an OCR line reaches a few points past its ink on either side: the boxes of two
    right-aligned figures a narrow gutter apart overlap, and their columns would merge. The table stage builds
    tables from the words' ink."""
    def ocr(value: str, right: float, top: float) -> Line:
        ink = (right - 6 * len(value), top, right, top + 8)
        return Line(text=value, bbox=(ink[0] - 6, top, right + 6, top + 8), size=8, confidence=0.95,
                    words=[Word(value, ink)])

    rows = [("North", "3,120", "40,551"), ("South", "4,127", "41,558"), ("East", "5,134", "42,565"),
            ("West", "6,141", "43,572"), ("Centre", "7,148", "44,579")]
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=300, text_lines=[],
                                      layout_regions=[]), use_text_layer=False,
                      image=np.full((300, 400, 3), 255, np.uint8), image_scale=1.0, skew=0.0)
    state.lines = [ocr(value, right, 100 + 12 * r) for r, row in enumerate(rows)
                   for value, right in zip(row, (140, 200, 246))]
    [table] = [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert table.cols == 3
    assert [c.text for c in table.cells if c.row == 1] == ["South", "4,127", "41,558"]


def test_on_a_scan_a_header_boxed_by_rules_over_an_open_body_is_one_table_with_it():
    """Two rules box a two-row header and none closes the body under it: the rules frame the header alone, and the
    table the alignment of the text shows (header and body) is its rival and wins, holding more of the text."""
    image = np.full((300, 400, 3), 255, np.uint8)
    image[95:97, 100:400] = 0
    image[121:123, 100:400] = 0
    lines = [text(value, right - 6 * len(value), 100, right) for value, right in (("Population", 310),
                                                                                 ("Annual", 380))]
    lines += [text(value, 110, 112, 146) if right is None else text(value, right - 6 * len(value), 112, right)
              for value, right in (("Region", None), ("2019", 260), ("2020", 320), ("change", 380))]
    lines += [line for line in statistics_rows(112, ["North", "South", "East", "West"]) if line.bbox[1] > 120]
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=300, text_lines=[],
                                      layout_regions=[]), use_text_layer=False, image=image, image_scale=1.0,
                      skew=0.0, lines=lines)
    [table] = [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert table.html.startswith('<table><tr><th rowspan="2">Region</th><th colspan="2">Population</th>'
                                 '<th>Annual</th></tr><tr><th>2019</th><th>2020</th><th>change</th></tr>')
    assert table.rows == 6 and [c.text for c in table.cells if c.row == 5] == ["West", "6,141", "43.5", "+3.2"]


def test_a_finders_table_over_two_ruled_tables_side_by_side_gives_way_to_them():
    """Two tables set side by side, each framed by its own rules; a finder (PyMuPDF's, or the layout model's one
    region) took them for one table of eight columns. Together the two hold as much of the text, so they stand."""
    left = statistics_rows(100, ["North", "South", "East"])
    right = [Line(text=line.text, bbox=(line.bbox[0] + 300, *line.bbox[1:2], line.bbox[2] + 300, line.bbox[3]),
                  size=line.size) for line in left]
    rules = [hrule(y, x0, x1) for y in (97, 110, 146) for x0, x1 in ((100, 385), (400, 685))]
    own = [(region, build_table(region, [line for line in left + right if region[0] <= line.bbox[0] < region[2]],
                                members)) for region, members in find_table_regions(rules, left + right)]
    assert [region for region, _ in own] == [(100, 97, 385, 146), (400, 97, 685, 146)]
    merged = build_table((100, 97, 685, 146), left + right, [])
    assert merged.cols == 8
    chosen = choose_tables(own, [((100, 97, 685, 146), merged)], left + right, rules)
    assert [(region, table.cols) for region, table in chosen] == [((100, 97, 385, 146), 4), ((400, 97, 685, 146), 4)]


def test_a_sliver_of_a_neighbours_ink_read_twice_joins_the_column_it_lies_in():
    """Two OCR lines overlapped: one read the first digit of its neighbour's figure again, and ink put that digit
    in a sliver a third of a point wide at the neighbour's left edge. It is a piece of that column, not a column."""
    lines = statistics_rows(100, ["North", "South", "East", "West"])
    change = next(line for line in lines if line.text == "+1.2")
    lines.append(text("1", change.bbox[0] - 0.2, 124, change.bbox[0] + 0.1))
    table = build_table((100, 100, 400, 156), lines, [])
    assert table.cols == 4


def test_a_narrow_justified_columns_wrapped_lines_in_pieces_keep_it_one_column():
    """A description column set justified in a narrow space: on a scan OCR reads a wrapped line's stretched words as
    pieces, as many as a row has cells. The description above them, across several, still sets the column."""
    lines = []
    for r, (name, first, rest, size) in enumerate((("COCO", "Everyday scenes with", ("objects", "outlined", "and"),
                                                   "328,000"),
                                                  ("MNLI", "Sentence pairs from", ("ten", "genres", "labelled"),
                                                   "432,702"),
                                                  ("SST-2", "Movie review lines", ("with", "their", "sentiment"),
                                                   "70,042"))):
        top = 112 + 24 * r
        lines += [text(name, 105, top, 135), text(first, 160, top, 260), text(size, 300, top, 340)]
        lines += [text(word, x, top + 12, x + 25) for word, x in zip(rest, (160, 198, 235))]
    lines += [text("Dataset", 105, 100, 145), text("Description", 160, 100, 215), text("Examples", 295, 100, 340)]
    table = build_table((100, 98, 345, 184), lines, [])
    assert table.cols == 3
    assert [c.text for c in table.cells if c.row in (1, 2)] == ["COCO", "Everyday scenes with", "328,000", "",
                                                                 "objects outlined and", ""]


def test_a_description_table_ruled_booktabs_style_is_a_table_though_most_lines_hold_one_piece():
    """Rules over the header, under it and under the table; each description wraps over three lines of a narrow
    column, so most lines of text hold one piece. Its rows start where the first column has text: every one holds
    two columns or more. A bulleted list between two rules, its items wrapped, is no table."""
    lines = [text("Dataset", 105, 102, 145), text("Description", 160, 102, 215), text("Examples", 295, 102, 340)]
    for r, (name, size) in enumerate((("COCO", "328,000"), ("MNLI", "432,702"), ("PubMed", "19,717"))):
        top = 116 + 36 * r
        lines += [text(name, 105, top, 140), text(size, 300, top, 340)]
        lines += [text(part, 160, top + 12 * i, 280) for i, part in enumerate(("Everyday scenes with", "objects and",
                                                                               "captions"))]
    rules = [hrule(98, 100, 345), hrule(112, 100, 345), hrule(226, 100, 345)]
    [(region, _)] = find_table_regions(rules, lines)
    assert region == (100, 98, 345, 226)
    items = [text(part, 110 if i % 2 == 0 else 122, 116 + 12 * i, 480) for i, part in enumerate(
        ("• The ledgers of the harbour office, bound", "in twelve volumes kept at the archive",
         "• The board minutes from 1890 to 1935, with", "their indexes and the letters received"))]
    assert find_table_regions([hrule(110, 100, 490), hrule(170, 100, 490)], items) == []


def narrow_gutter_page(folder: Path) -> pymupdf.Page:
    return pymupdf.open(pdfs.narrow_gutters_pdf(folder))[0]


def test_a_table_whose_figures_stand_a_word_space_apart_is_read_cell_by_cell(tmp_path: Path):
    """The text layer runs each row of a table with 0.4 em gutters into one line ("Coastal 8,696,548 66,076 ..."),
    the longest label into its first figure: each figure is a cell (two figures side by side always are), and the
    label is parted from its figure where the columns the other rows show fall."""
    page = narrow_gutter_page(tmp_path)
    lines = read_text_layer(page).lines
    assert any(line.text.startswith("Northern Islands 8,592,743 3,345,530") for line in lines)
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=140, text_lines=lines,
                                      drawing_boxes=drawing_boxes(page.get_drawings())), use_text_layer=True,
                      lines=lines)
    [table] = [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert (table.rows, table.cols) == (5, 7)
    assert [c.text for c in table.cells if c.row == 0] == list(pdfs.NARROW_TABLE[0])
    assert [c.text for c in table.cells if c.row == 2] == list(pdfs.NARROW_TABLE[2])
    assert [c.text for c in table.cells if c.row == 4][:2] == ["Northern Islands", "8,592,743"]


def test_on_a_scan_figures_ocr_read_as_one_line_a_word_space_apart_are_cells(tmp_path: Path):
    """OCR reads each row of the same table as one line, its words boxed by their ink: cut between its figures and
    parted at the columns, as on the text layer."""
    page = narrow_gutter_page(tmp_path)
    lines = []
    for line in read_text_layer(page).lines:
        ink = [Word(word.text, word.bbox) for word in line.words]
        lines.append(Line(text=line.text, bbox=(ink[0].bbox[0] - 4, line.bbox[1], ink[-1].bbox[2] + 4, line.bbox[3]),
                          size=line.size, confidence=0.95, words=ink))
    image = render_page(page, 2.0)
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=140, text_lines=[]),
                      use_text_layer=False, image=image, image_scale=2.0, skew=0.0, lines=lines)
    [table] = [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert (table.rows, table.cols) == (5, 7)
    assert [c.text for c in table.cells if c.row == 4] == list(pdfs.NARROW_TABLE[4])


def test_on_a_scan_levelled_for_its_skew_each_lines_words_are_levelled_with_it():
    """Tables are looked for on the levelled page: a line's words move with it (cells are cut at them)."""
    words = [Word("8,669,908", (300, 40, 336, 48)), Word("7,057,071", (339, 40, 375, 48))]
    line = Line(text="8,669,908 7,057,071", bbox=(300, 40, 375, 48), size=8, confidence=0.95, words=words)
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=600, text_lines=[]),
                      use_text_layer=False, image=np.full((600, 400, 3), 255, np.uint8), image_scale=1.0, skew=1.0,
                      lines=[line])
    frame = TableFrame.of(state)
    assert frame.angle == 1.0 and len(frame.lines) == 2
    for piece in frame.lines:
        assert piece.bbox[0] == piece.words[0].bbox[0] and piece.bbox[2] == piece.words[-1].bbox[2]
    assert frame.lines[0].bbox[0] == pytest.approx(300 - 260 * np.sin(np.radians(1.0)), abs=0.5)


def test_of_two_rival_tables_one_whose_cells_hold_two_figures_side_by_side_holds_them_in_the_wrong_place():
    """A finder merged the last two columns ("95.3 197,645" in one cell) and took in the units line above the
    table, so its cells hold more of the text than folio's table of the right columns. Figures side by side in one
    cell are not held where they belong: folio's table wins."""
    lines = statistics_rows(100, ["North", "South", "East", "West"])
    units = text("(Number of persons)", 300, 86, 380)
    own = build_table((100, 98, 385, 160), lines, [])
    rows = [[line.text for line in lines if line.bbox[1] == 100 + 12 * r] for r in range(5)]
    merged = make_table(6, 3, [TableCell(0, 2, units.text)] + [
        TableCell(r + 1, c, value) for r, row in enumerate(rows) for c, value in enumerate(
            [row[0], row[1], f"{row[2]} {row[3]}"])])
    chosen = choose_tables([((100, 98, 385, 160), own)], [((100, 84, 385, 160), merged)], lines + [units], [])
    assert [table.cols for _, table in chosen] == [4]


def test_of_two_rival_tables_one_whose_cells_hold_text_either_side_of_a_gutter_merged_two_columns():
    """A dataset's name and its description, columns left-aligned a gutter apart: a finder took them for one column
    ("COCO Everyday scenes ..."), holding as much of the text as folio's table of three columns. Text either side
    of a blank band that runs from the table's top to its foot is not held where it belongs: folio's table wins."""
    rows = [("Dataset", "Description", "Examples"), ("COCO", "Everyday scenes with objects", "328,000"),
            ("MNLI", "Sentence pairs from ten genres", "432,702"), ("PubMed", "Abstracts of articles", "19,717")]
    lines = [text(value, x, 100 + 12 * r, x + 4.5 * len(value)) if c < 2 else text(value, 340 - 4.5 * len(value),
                                                                                     100 + 12 * r, 340)
             for r, row in enumerate(rows) for c, (value, x) in enumerate(zip(row, (100, 142, 0)))]
    region = (98, 98, 342, 148)
    own = build_table(region, lines, [])
    assert own.cols == 3
    merged = make_table(4, 2, [TableCell(r, c, value, bbox=box) for r, row in enumerate(rows) for c, (value, box) in
                               enumerate([(f"{row[0]} {row[1]}", (98, 98 + 12 * r, 300, 110 + 12 * r)),
                                          (row[2], (300, 98 + 12 * r, 342, 110 + 12 * r))])])
    assert [table.cols for _, table in choose_tables([(region, own)], [(region, merged)], lines, [])] == [3]
    assert [table.cols for _, table in choose_tables([(region, merged)], [(region, own)], lines, [])] == [3]


def test_a_section_label_under_the_rule_that_underlines_the_column_headings_is_the_bodys():
    """The column headings are underlined, the stub's column not (office software borders the heading cells only);
    the first row under that rule holds a section label alone, then the rows of figures. The header is the rows
    above the rule; the section label is the body's first row."""
    lines = [text("2019", 236, 100, 260), text("2020", 296, 100, 320), text("Industry", 110, 114, 160)]
    lines += [line for line in statistics_rows(116, ["North", "South", "East"]) if line.bbox[1] > 120]
    table = build_table((100, 98, 385, 166), lines, [hrule(111, 200, 385)])
    assert [(c.row, c.text) for c in table.cells if c.header and c.text] == [(0, "2019"), (0, "2020")]
    assert [c.text for c in table.cells if c.row == 1] == ["Industry", "", "", ""]


def test_on_a_text_layer_page_a_layout_table_region_no_candidate_overlaps_is_structured_from_its_lines():
    """A description table set without rules: each description wraps over two lines, most of its pieces hold more
    words than an aligned table's may (two columns of prose line up too), and PyMuPDF's finder saw nothing. The
    layout model's table region over it is structured from the text layer's lines, as on a rendered page; a word
    wrapped onto a line of its own ("ment") stays in its description's column."""
    rows = [("COCO", ("Everyday scenes with their objects", "outlined and captioned"), "328,000"),
            ("MNLI", ("Sentence pairs from ten genres", "labelled for entail-", "ment"), "432,702"),
            ("SST-2", ("Movie review sentences with their", "sentiment"), "70,042")]
    lines = [text("Dataset", 105, 100, 140), text("Description", 160, 100, 215), text("Examples", 300, 100, 340)]
    top = 112
    for name, parts, size in rows:
        lines += [text(name, 105, top, 135), text(size, 305, top, 340)]
        lines += [text(part, 160, top + 10 * i, 160 + 3.5 * len(part)) for i, part in enumerate(parts)]
        top += 10 * len(parts) + 2
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=300, text_lines=lines,
                                      layout_regions=[Region("table", (100, 98, 345, top), 0.9)]),
                      use_text_layer=True, lines=lines)
    state.regions = state.input.layout_regions
    [table] = [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert (table.rows, table.cols) == (4, 3)
    assert [c.text for c in table.cells if c.row == 2] == ["MNLI", "Sentence pairs from ten genres labelled for "
                                                           "entailment", "432,702"]
    assert table.cells[-2].text == "Movie review sentences with their sentiment"


def test_on_a_scan_a_picture_or_text_region_captioned_as_a_table_is_a_table_region():
    """A small description table without rules: the layout model took it for a picture, or for a paragraph, with
    its caption ("Table 3: ...") in or over the region. Captioned as a table, it is structured as a table region;
    without the caption a picture of words is no table."""
    def ocr(value: str, x0: float, top: float, x1: float) -> Line:
        return Line(text=value, bbox=(x0, top, x1, top + 8), size=8, confidence=0.95)

    caption = ocr("Table 3: Datasets used in the experiments", 120, 90, 300)
    lines = [ocr("Dataset", 105, 102, 140), ocr("Description", 160, 102, 215), ocr("Examples", 300, 102, 340)]
    for r, (name, first, second, size) in enumerate((("COCO", "Everyday scenes with their objects", "outlined",
                                                      "328,000"),
                                                     ("MNLI", "Sentence pairs from ten genres", "labelled",
                                                      "432,702"),
                                                     ("SST-2", "Movie review sentences with their", "sentiment",
                                                      "70,042"))):
        top = 114 + 22 * r
        lines += [ocr(name, 105, top, 135), ocr(first, 160, top, 280), ocr(second, 160, top + 10, 200),
                  ocr(size, 305, top, 340)]

    def tables(kind: str, captioned: bool) -> list:
        region = Region(kind, (100, 88 if captioned else 100, 345, 182), 0.9)
        state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=400, height=300, text_lines=[]),
                          use_text_layer=False, image=np.full((300, 400, 3), 255, np.uint8), image_scale=1.0,
                          skew=0.0, lines=lines + ([caption] if captioned else []), regions=[region])
        return [block.table for block in TableStage()([state])[0].blocks if block.type == "table"]

    for kind in ("figure", "text"):
        [table] = tables(kind, captioned=True)
        assert (table.rows, table.cols) == (4, 3)
        assert [c.text for c in table.cells if c.row == 2] == ["MNLI", "Sentence pairs from ten genres labelled",
                                                               "432,702"]
    assert tables("figure", captioned=False) == []


def test_without_rules_a_section_label_under_the_column_headings_is_the_bodys_first_row():
    """No rules: the header is the rows above the first row of figures, down to the last that holds a column
    heading; a section label alone in the stub's column under it ("Persons aged 15+") is the body's first row."""
    lines = [text("2019", 236, 100, 260), text("2020", 296, 100, 320), text("Persons aged 15+", 110, 111, 190)]
    lines += [line for line in statistics_rows(110, ["North", "South", "East"]) if line.bbox[1] > 120]
    table = build_table((100, 98, 385, 160), lines, [])
    assert [(c.row, c.text) for c in table.cells if c.header and c.text] == [(0, "2019"), (0, "2020")]
    assert [c.text for c in table.cells if c.row == 1] == ["Persons aged 15+", "", "", ""]


def worded(words: list[tuple[str, float, float]], y0: float) -> Line:
    """A line of words at their (x0, x1), as OCR boxes them by their ink."""
    return Line(text=" ".join(word for word, _, _ in words), bbox=(words[0][1], y0, words[-1][2], y0 + 8), size=8,
                words=[Word(word, (x0, y0, x1, y0 + 8)) for word, x0, x1 in words], confidence=0.95)


def test_headings_of_two_columns_run_into_one_line_are_a_heading_each():
    """OCR ran two neighbouring column headings into one line ("Employed Unemployed", set wider than the figures
    under them): in a row of headings over a column each, its words part over the columns they stand over. A
    heading over both columns in the row above stays one cell over both."""
    lines = [line for line in statistics_rows(110, ["North", "South", "East"]) if line.bbox[1] > 110
             or line.text in ("Region", "2019")]
    lines += [worded([("Employed", 270.0, 320.0), ("Unemployed", 326.0, 380.0)], 110),
              worded([("Labour", 300.0, 330.0), ("force", 336.0, 372.0)], 98)]
    table = build_table((100, 96, 385, 160), lines, [])
    assert [(c.row, c.col, c.text, c.col_span) for c in table.cells if c.header and c.text] == [
        (0, 2, "Labour force", 2), (1, 0, "Region", 1), (1, 1, "2019", 1), (1, 2, "Employed", 1),
        (1, 3, "Unemployed", 1)]


def test_without_rules_a_heading_wrapped_over_a_line_holding_a_figure_stays_in_the_header():
    """Headings set at the header's foot, one of them wrapped over three lines ("Rate per / 1,000 / inhab."): the
    row holding "1,000" is no row of figures (one figure among words), so the header reaches down to the body."""
    lines = [text("Rate per", 272, 88, 320), text("Region", 110, 100, 146), text("Persons", 218, 100, 260),
             text("1,000", 290, 100, 320), text("Change", 344, 100, 380), text("employed", 212, 112, 260),
             text("inhab.", 284, 112, 320), text("(%)", 362, 112, 380)]
    lines += [line for line in statistics_rows(112, ["North", "South", "East"]) if line.bbox[1] > 112]
    table = build_table((100, 86, 385, 160), lines, [])
    header = " ".join(c.text for c in sorted(table.cells, key=lambda c: (c.row, c.col)) if c.header and c.text)
    assert sorted(header.split()) == sorted("Rate per Persons 1,000 Change Region employed inhab. (%)".split())
    assert [c.text for c in table.cells if not c.header][:4] == ["North", "3,120", "40.5", "+0.2"]


def test_a_rule_under_a_note_the_layout_region_took_in_does_not_stretch_the_table_over_the_note():
    """The layout model's table region reaches over the notes under the table, and the scan's rule finder took a
    stroke of the note's text for a rule: the note stays out of the table, and so does that rule."""
    lines = statistics_rows(100, ["North", "South", "East"])
    note = text("Note: figures may not add up to totals because of rounding.", 110, 170, 330)
    [(box, _)] = layout_tables([Region("table", (95, 95, 400, 190), 0.8)], lines + [note], [hrule(184, 150, 180)])
    assert box[3] == 144
