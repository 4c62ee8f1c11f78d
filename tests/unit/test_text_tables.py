"""Tables a rendered page shows by the alignment of its text alone (engine/stages/text_tables.py), and their
header found as the rows above the first row of figures."""

from engine.stages.tables import aligned_tables
from engine.stages.text_tables import aligned_regions
from engine.types import Line

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
