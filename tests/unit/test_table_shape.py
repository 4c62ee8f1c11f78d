"""Found tables reshaped to what a reader sees (engine/stages/table_shape.py): stacked tables cut at their titles,
wrapped labels and headers joined, spanning headers widened, centred group labels spanning their rows, dot leaders
cut off, space-grouped figures whole, typed rules no rows; on grids laid out as a finder gives them, with boxes."""

from engine.stages.table_shape import (
    centred_row_spans,
    join_wrapped_rows,
    joined_digit_groups,
    joined_header_lines,
    reshaped,
    split_at_captions,
    widened_headers,
    without_leaders,
    without_typed_rules,
)
from engine.table_grid import make_table
from engine.types import Table, TableCell

ROW = 12.0  # points from one row of text to the next
LINE = 9.0  # a line's height


def grid(rows: list[list[str]], header_rows: int = 1, x: float = 100.0, widths: tuple[float, ...] = ()) -> Table:
    """A table of one line a row, each cell's box where a finder would put its text."""
    widths = widths or (120.0,) + (50.0,) * (len(rows[0]) - 1)
    cells = []
    for r, row in enumerate(rows):
        left = x
        for c, text in enumerate(row):
            cells.append(TableCell(r, c, text, header=r < header_rows,
                                   bbox=(left, 100 + r * ROW, left + widths[c] - 6, 100 + r * ROW + LINE)))
            left += widths[c]
    return make_table(len(rows), len(rows[0]), cells)


def texts(table: Table) -> list[list[str]]:
    return [[c.text for c in table.cells if c.row == r] for r in range(table.rows)]


def test_tables_stacked_under_their_titles_are_cut_apart_and_each_gets_its_header():
    found = grid([["Region", "2019", "2020"], ["North", "12", "14"], ["South", "9", "11"],
                  ["Table 2. Loans by branch", "", ""], ["Branch", "Loans", "Value"], ["Centre", "72", "1,204"],
                  ["Harbour", "31", "840"]])
    first, second = split_at_captions(found)
    assert texts(first) == [["Region", "2019", "2020"], ["North", "12", "14"], ["South", "9", "11"]]
    assert texts(second) == [["Branch", "Loans", "Value"], ["Centre", "72", "1,204"], ["Harbour", "31", "840"]]
    assert [c.header for c in second.cells if c.row == 0] == [True, True, True]
    assert not any(c.header for c in second.cells if c.row > 0)
    (box_one, _), (box_two, _) = reshaped((100, 100, 300, 190), found)
    assert box_one[3] < 100 + 3 * ROW <= box_two[1]  # each part's box is its own cells'


def test_a_row_label_wrapped_over_lines_is_one_row_whatever_line_its_figures_are_on():
    top = grid([["Item", "Men", "Women"], ["Persons not in education,", "12", "14"], ["employment or training", "", ""],
                ["Households with a member", "", ""], ["in paid employment", "7", "8"], ["Agriculture", "", ""],
                ["Crops", "3", "4"]])
    assert texts(join_wrapped_rows(top)) == [
        ["Item", "Men", "Women"], ["Persons not in education, employment or training", "12", "14"],
        ["Households with a member in paid employment", "7", "8"], ["Agriculture", "", ""], ["Crops", "3", "4"]]


def test_a_capitalised_label_wrapped_closer_than_the_rows_stand_is_one_row_but_not_in_a_tight_table():
    """Cells with padding: the rows stand 8 pt apart, a label's two lines 3 pt ("Northern" over "Islands", its
    figures on the second line). In a table whose rows stand as close as lines, a label alone in its row is a
    section label over the row below."""
    rows = [["Region", "2019", "2020"], ["Capital region", "12", "14"], ["West", "9", "11"], ["Northern", "", ""],
            ["Islands", "7", "8"], ["Valley", "3", "4"], ["South", "5", "6"]]

    def set_at(tops: list[float]) -> Table:
        table = grid(rows)
        for cell in table.cells:
            cell.bbox = (cell.bbox[0], tops[cell.row], cell.bbox[2], tops[cell.row] + LINE)
        return table

    padded = set_at([100, 117, 134, 151, 163, 180, 197])
    assert texts(join_wrapped_rows(padded))[3] == ["Northern Islands", "7", "8"]
    tight = set_at([100 + ROW * r for r in range(len(rows))])
    assert texts(join_wrapped_rows(tight)) == rows


def test_lines_a_row_apart_are_rows_even_in_lower_case():
    spaced = grid([["Item", "Men"], ["tons of grain", "12"], ["litres of milk", "7"]])
    far = make_table(3, 2, [TableCell(c.row, c.col, c.text, header=c.header,
                                      bbox=(c.bbox[0], c.bbox[1] + 10 * c.row, c.bbox[2], c.bbox[3] + 10 * c.row))
                            for c in spaced.cells])
    assert texts(join_wrapped_rows(far)) == texts(spaced)


def test_a_header_wrapped_over_lines_is_one_header_row():
    wrapped = grid([["Sector", "Gross", "Persons", "Average"], ["", "value", "employed", "monthly"],
                    ["", "added", "", "earnings"], ["Mining", "12", "3", "2,100"]], header_rows=3)
    assert texts(joined_header_lines(wrapped)) == [["Sector", "Gross value added", "Persons employed",
                                                    "Average monthly earnings"], ["Mining", "12", "3", "2,100"]]


def test_a_header_over_several_columns_spans_them_and_a_stub_spans_the_header_rows():
    cells = [TableCell(0, 0, "Region", header=True, bbox=(100, 100, 140, 109)),
             TableCell(0, 2, "2019", header=True, bbox=(212, 100, 232, 109)),  # centred over columns 1 and 2
             TableCell(0, 4, "2020", header=True, bbox=(312, 100, 332, 109))]
    cells += [TableCell(1, c, label, header=True, bbox=(170 + 50 * (c - 1), 112, 200 + 50 * (c - 1), 121))
              for c, label in enumerate(["Men", "Women", "Men", "Women"], start=1)]
    cells += [TableCell(2, c, text, bbox=(100 + 50 * c, 124, 130 + 50 * c, 133))
              for c, text in enumerate(["North", "1", "2", "3", "4"])]
    table = widened_headers(make_table(3, 5, cells))
    spans = {(c.row, c.col): (c.text, c.row_span, c.col_span) for c in table.cells if c.text}
    assert spans[0, 0] == ("Region", 2, 1)
    assert spans[0, 1] == ("2019", 1, 2) and spans[0, 3] == ("2020", 1, 2)
    assert table.html.startswith('<table><tr><th rowspan="2">Region</th><th colspan="2">2019</th>'
                                 '<th colspan="2">2020</th></tr>')


def test_a_table_without_cell_boxes_is_left_as_it_is():
    cells = [TableCell(r, c, text) for r, row in enumerate([["A", "1"], ["Table 3. More", ""], ["B", "2"],
                                                           ["c", "3"]]) for c, text in enumerate(row)]
    table = make_table(4, 2, cells)
    assert split_at_captions(table) == [table]
    assert texts(join_wrapped_rows(table)) == texts(table)


def test_a_stub_header_set_between_two_header_rows_spans_both():
    found = grid([["", "Permanent", "", "Temporary", ""], ["Department", "", "", "", ""],
                  ["", "Headcount", "FTE", "Headcount", "FTE"], ["Archive", "12", "10.5", "3", "1.5"]],
                 header_rows=3)
    table = joined_header_lines(found)
    assert table.rows == 3
    assert [(c.text, c.row_span) for c in table.cells if c.row == 0][:2] == [("Department", 2), ("Permanent", 1)]


def test_a_stub_header_set_at_the_foot_of_a_two_row_header_spans_both():
    """Headers set bottom-aligned, as office software sets them: "Region" on the lower header row, nothing above it;
    it heads the stub over both header rows, like a header with nothing under it spans them down."""
    found = grid([["", "2020", "", "2021", ""], ["Region", "Men", "Women", "Men", "Women"],
                  ["North", "12", "10.5", "3", "1.5"]], header_rows=2)
    table = widened_headers(found)
    spans = {(c.row, c.col): (c.text, c.row_span, c.col_span) for c in table.cells if c.text}
    assert spans[0, 0] == ("Region", 2, 1)
    assert (1, 0) not in spans and spans[1, 1] == ("Men", 1, 1)


def test_headings_wrapped_over_lines_at_the_foot_of_the_header_are_one_header_row():
    """Long headings right-aligned at the header's foot: the longest reach three lines up, the shortest one; the
    finder gives three header rows. Each upper line sits a line above its own heading's next line, in line with
    it: one header row. A row of group headings over their sub-columns stays a header row of its own."""
    rows = [["", "", "Households with", "Share of the"], ["", "Number of", "internet", "total"],
            ["Item", "enterprises", "access", "(%)"], ["Urban", "45.9", "822,014", "71.1"]]
    cells = []
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            if text:
                right = 160 + 70 * c
                width = 90 if c == 0 else 5 * len(text)
                box = (100, 100 + r * ROW, 100 + width, 100 + r * ROW + LINE) if c == 0 else \
                    (right - width, 100 + r * ROW, right, 100 + r * ROW + LINE)
                cells.append(TableCell(r, c, text, header=r < 3, bbox=box))
    table = joined_header_lines(make_table(4, 4, cells))
    assert texts(table)[0] == ["Item", "Number of enterprises", "Households with internet access",
                               "Share of the total (%)"]
    assert table.rows == 2
    for groups in (["", "2019", "", "2020", ""], ["", "Urban", "", "Rural", ""]):
        found = grid([groups, ["Region", "Men", "Women", "Men", "Women"], ["North", "1", "2", "3", "4"]], header_rows=2)
        assert joined_header_lines(found).rows == 3


def moved(table: Table, row: int, col: int, down: float) -> Table:
    """The table with one cell's box moved down by `down` points (a label set between rows)."""
    for cell in table.cells:
        if (cell.row, cell.col) == (row, col):
            x0, y0, x1, y1 = cell.bbox
            cell.bbox = (x0, y0 + down, x1, y1 + down)
    return table


def test_group_labels_centred_on_their_rows_span_them():
    """LaTeX's \\multirow sets a group's label in the middle of its rows: on the middle row of three, between the
    two rows of two. Each spans its group; the method names and figures stay where they are."""
    found = moved(grid([["Category", "Method", "Acc."], ["", "ResNet-50", "76.1"], ["Supervised", "ViT-B/16", "81.3"],
                        ["", "Ours", "83.0"], ["Zero-shot", "CLIP", "68.3"], ["", "Ours", "70.2"]]), 4, 0, ROW / 2)
    table = centred_row_spans(found)
    spans = {(c.row, c.col): (c.text, c.row_span) for c in table.cells if c.text}
    assert spans[1, 0] == ("Supervised", 3) and spans[4, 0] == ("Zero-shot", 2)
    assert texts(table)[1:] == [["Supervised", "ResNet-50", "76.1"], ["ViT-B/16", "81.3"], ["Ours", "83.0"],
                                ["Zero-shot", "CLIP", "68.3"], ["Ours", "70.2"]]


def test_labels_on_the_first_row_of_their_group_and_lone_figures_span_nothing():
    """A label set on its group's first row, a figure with empty slots above and below it, and a label column
    filled in most rows keep one row each."""
    top_aligned = grid([["Region", "Sex", "2019"], ["North", "Men", "12"], ["", "Women", "14"], ["", "All", "26"],
                        ["South", "Men", "9"], ["", "Women", "8"], ["", "All", "17"]])
    sparse_figures = grid([["Item", "2019", "2020"], ["Wheat", "12", ""], ["Barley", "", "7"], ["Oats", "3", ""]])
    mostly_filled = grid([["Item", "Kind", "2019"], ["Wheat", "Grain", "12"], ["", "Straw", "4"],
                          ["Barley", "Grain", "7"], ["Oats", "Grain", "3"]])
    for table in (top_aligned, sparse_figures, moved(mostly_filled, 1, 0, ROW / 2)):
        assert all(c.row_span == 1 for c in centred_row_spans(table).cells)


def test_a_label_centred_on_the_first_two_rows_spans_them_though_a_finder_put_it_on_the_first():
    """A group of two on top, its label set between its rows and found on the first: the first body row's slot is
    filled, but not on that row's own line, so the column is one of centred labels."""
    found = moved(grid([["Category", "Method", "Acc."], ["Supervised", "ResNet-50", "76.1"], ["", "ViT-B/16", "81.3"],
                        ["", "CLIP", "68.3"], ["Zero-shot", "Ours", "70.2"], ["", "LiT", "71.0"]]), 1, 0, ROW / 2)
    table = centred_row_spans(found)
    spans = {(c.row, c.col): (c.text, c.row_span) for c in table.cells if c.text}
    assert spans[1, 0] == ("Supervised", 2) and spans[3, 0] == ("Zero-shot", 3)


def test_dot_leaders_are_cut_off_labels_and_a_missing_values_dots_stay():
    found = grid([["State", "2019", "2020"], ["Alabama ........................", "4,779", ".."],
                  ["Alaska . . . . . . . . . .", "...", "710"], ["Idaho ..", "1,567", "1,612"],
                  ["Wyoming", "......... 563", "577"], ["Others, etc.", "12", "14"]])
    assert texts(without_leaders(found))[1:] == [["Alabama", "4,779", ".."], ["Alaska", "...", "710"],
                                                 ["Idaho", "1,567", "1,612"], ["Wyoming", "563", "577"],
                                                 ["Others, etc.", "12", "14"]]
    assert "Alabama</td>" in without_leaders(found).html


def test_a_space_grouped_figures_first_digits_found_in_a_column_of_their_own_join_their_groups():
    """A finder set "7" of "7 590 669" in a column of its own, left of the groups' column: the columns are one. A
    column of small counts beside a column of three-digit figures, each under its own heading, stays."""
    found = grid([["Secteur", "", "2021", "", "2022"], ["Ensemble", "7", "590 669", "9", "855 682"],
                  ["Industrie", "", "703 635", "2", "643 312"], ["Services", "3", "854 154", "", "10 142"]],
                 widths=(80.0, 10.0, 40.0, 10.0, 40.0))
    joined = joined_digit_groups(found)
    assert texts(joined) == [["Secteur", "2021", "2022"], ["Ensemble", "7 590 669", "9 855 682"],
                             ["Industrie", "703 635", "2 643 312"], ["Services", "3 854 154", "10 142"]]
    assert joined.cells[4].bbox == (180.0, 112.0, 224.0, 121.0)  # the two pieces' boxes joined
    counts = grid([["Branch", "Staff", "Loans"], ["Centre", "7", "590"], ["Harbour", "12", "813"]])
    assert joined_digit_groups(counts) is counts


def test_a_row_of_dashes_typed_as_a_rule_is_no_row():
    """A table typed in Courier rules its header off with a line of dashes; a missing value's dash stays."""
    found = grid([["State", "2021", "2022"], ["--------------", "---------", "---------"], ["Alaska", "5,269", "-"],
                  ["Ohio", "--", "4,320"]])
    assert texts(without_typed_rules(found)) == [["State", "2021", "2022"], ["Alaska", "5,269", "-"],
                                                 ["Ohio", "--", "4,320"]]
    assert without_typed_rules(grid([["Term", "Use"], ["lemma", "index"]])).rows == 2
