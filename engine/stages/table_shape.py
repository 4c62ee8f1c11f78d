"""A found table's grid reshaped to the table a reader sees.

Table finders work line by line, so what a reader takes in at a glance comes out split or merged:

- tables stacked on a page, each under its own title, found as one: the grid is cut where a caption row
  ("Table 2.3 ...") runs across it, and the row under the cut is the new table's header when it holds no
  figures;
- a row label wrapped over several lines, found as several rows: a row whose label starts in lower case
  continues the label above it (its figures, on its first or last line, go with it); a row with a single
  piece of words under a cell of words continues that cell;
- a header wrapped over several lines, found as several header rows: a header row whose every cell sits
  under one cell of the row above continues those cells, and so does one under a row of the first lines of
  headings set at the header's foot (each a line above a cell of its own, in line with it);
- a header that spans the columns under it ("2019" over "Men" and "Women"), found in one of them: it
  widens over the columns of the header row below that are nearer to it than to any other header of its
  row; a header with nothing under it spans the header rows down, one in the lowest header row with nothing
  above it (a stub header set at the foot of the header) spans them up;
- a group label centred on the rows it groups (LaTeX's multirow), found in one of them: it spans them;
- figures whose digits are grouped by spaces ("7 590 669", as French and other statistical offices print them),
  found as two columns (the leading digits apart from the groups): the two columns are one;
- a row of dashes typed as a rule (a table typed in a monospaced font): no row;
- a row label followed by dot leaders out to its figures ("Alabama ........ 4,779"): the leaders are no text
  of the cell (a cell of dots alone, "..", is a statistical office's mark for a missing value and stays).

Every cut and join needs the cells' boxes on the page to confirm what the text suggests (the lines of a
wrapped label or header lie a line apart); a table without them is left as it is.
"""

import re
from dataclasses import replace
from itertools import pairwise
from statistics import median

from engine.figure_runs import YEAR
from engine.geometry import in_line, union
from engine.stages.blocks import join_texts
from engine.stages.classify import CAPTION
from engine.table_grid import make_table
from engine.types import BBox, Table, TableCell

LINE_GAP = 0.8  # a wrapped line starts at most this many line heights below the line before it
TIGHTER = 0.25  # of a line's height: how much closer than the rows a label's wrapped line stands, at least
MIN_ROW_GAPS = 3  # rows apart that show how far the table's rows stand
ALIGNED = 2.0  # points: two lines whose left edges, right edges or centres are this close are set in line
CENTRED = 0.25  # of a row's pitch: a group label this close to the middle of its rows is set centred on them
DIGIT = re.compile(r"\d")
LEADING_DIGITS = re.compile(r"[-+−–(]?\d{1,3}")  # a space-grouped figure's first digits: "7" of "7 590 669"
DIGIT_GROUPS = re.compile(r"(\d{1,3} )?\d{3}( \d{3})*([.,]\d+)?%?\)?")  # and its groups: "590 669" (or the
# whole figure, where its first digits were wide enough to reach the groups' column: "10 142")
TYPED_RULE = re.compile(r"[-=_─━]{4,}")  # a rule typed with dashes or equals signs
LEADERS = re.compile(r"^(?:\.\s*){3,}(?=\S)|\s*(?:\.\s*){3,}$|\s+\.{2,}$")  # dot leaders before or after a cell's text


def reshaped(region: BBox, table: Table) -> list[tuple[BBox, Table]]:
    """The table cut at its caption rows, each part with its wrapped rows and header lines joined and its
    spanning headers widened, with the part's box."""
    parts = split_at_captions(table)
    if len(parts) == 1:
        boxes = [(region, parts[0])]
    else:
        boxes = [(union([c.bbox for c in part.cells if c.bbox is not None]), part) for part in parts]
    return [(box, widened_headers(joined_header_lines(centred_row_spans(join_wrapped_rows(
        joined_digit_groups(without_leaders(without_typed_rules(part))))))))
        for box, part in boxes]


def without_typed_rules(table: Table) -> Table:
    """The table without its rows of dashes typed as rules (every cell with text in them a run of dashes)."""
    typed = [row for row in range(table.rows) if (filled := _filled(table, row))
             and all(TYPED_RULE.fullmatch(cell.text) for cell in filled)]
    if not typed or len(typed) == table.rows:
        return table
    cells = []
    for cell in _structural(table.cells):
        if cell.row in typed:
            continue
        covered = sum(1 for row in typed if cell.row < row < cell.row + cell.row_span)
        cells.append(replace(cell, row=cell.row - sum(1 for row in typed if row < cell.row),
                             row_span=cell.row_span - covered))
    return make_table(table.rows - len(typed), table.cols, cells)


def joined_digit_groups(table: Table) -> Table:
    """The table with each column of a space-grouped figure's first digits joined to the column of its digit groups
    on its right (`_digit_groups_apart`)."""
    while (col := next((c for c in range(table.cols - 1) if _digit_groups_apart(table, c)), None)) is not None:
        right = {cell.row for cell in table.cells if cell.col == col + 1 and cell.col_span == 1}
        leading = {cell.row: cell for cell in table.cells if cell.col == col and cell.col_span == 1
                   and cell.row in right}
        cells = []
        for cell in table.cells:
            if cell.col == col and cell.row in leading and cell.col_span == 1:
                continue  # joined to the groups on its right
            if cell.col == col + 1 and cell.col_span == 1 and cell.row in leading:
                first = leading[cell.row]
                boxes = [box for box in (first.bbox, cell.bbox) if box is not None]
                cell = replace(cell, text=f"{first.text} {cell.text}".strip(), bbox=union(boxes) if boxes else None)
            if cell.col > col:
                cell = replace(cell, col=cell.col - 1)
            elif cell.col + cell.col_span > col + 1:
                cell = replace(cell, col_span=cell.col_span - 1)
            cells.append(cell)
        table = make_table(table.rows, table.cols - 1, cells)
    return table


def _digit_groups_apart(table: Table, col: int) -> bool:
    """Whether the column holds a space-grouped figure's first digits and the next one its digit groups: in two or
    more body rows the column's text is one to three digits and the next column's three-digit groups, in no body
    row anything else; its header cells are empty where the next column's are not."""
    left = {cell.row: cell for cell in table.cells if cell.col == col and cell.col_span == 1}
    right = {cell.row: cell for cell in table.cells if cell.col == col + 1 and cell.col_span == 1}
    leading = [row for row, cell in left.items() if cell.text and not cell.header]
    return (len(leading) >= 2
            and all(LEADING_DIGITS.fullmatch(left[row].text) and row in right
                    and DIGIT_GROUPS.fullmatch(right[row].text) for row in leading)
            and all(DIGIT_GROUPS.fullmatch(cell.text) for cell in right.values() if cell.text and not cell.header)
            and not any(cell.text and right.get(row) is not None and right[row].text
                        for row, cell in left.items() if cell.header))


def without_leaders(table: Table) -> Table:
    """The table with the dot leaders cut off its cells' text."""
    cells = [replace(cell, text=stripped) if (stripped := LEADERS.sub("", cell.text)) and stripped != cell.text
             else cell for cell in table.cells]
    if all(new is old for new, old in zip(cells, table.cells)):
        return table
    return make_table(table.rows, table.cols, cells)


# -- the grid


def _filled(table: Table, row: int) -> list[TableCell]:
    """The cells with text that start in the row, left to right."""
    return sorted((c for c in table.cells if c.row == row and c.text), key=lambda c: c.col)


def _covering(table: Table, row: int, col: int) -> TableCell | None:
    return next((c for c in table.cells if c.row <= row < c.row + c.row_span and c.col <= col < c.col + c.col_span),
                None)


def _structural(cells: list[TableCell]) -> list[TableCell]:
    """Copies of the cells that hold text or span; single empty slots are refilled when the table is made."""
    return [replace(c) for c in cells if c.text or c.row_span > 1 or c.col_span > 1]


def _height(cell: TableCell) -> float:
    return cell.bbox[3] - cell.bbox[1] if cell.bbox is not None else 0.0


def _stacked(upper: TableCell, lower: TableCell) -> bool:
    """Whether the lower cell's text starts right under the upper's, a line apart (unknown boxes: no)."""
    if upper.bbox is None or lower.bbox is None:
        return False
    lines = max(1, round(_height(upper) / max(_height(lower), 1.0)))
    line = _height(upper) / lines
    return -0.5 * line <= lower.bbox[1] - upper.bbox[3] <= LINE_GAP * line


def _merged_rows(table: Table, upper: int) -> Table | None:
    """The table with row `upper + 1` joined into row `upper`: each cell's text appended to the cell above it in the
    same columns (or moved up where that slot is empty); None when the two rows' cells do not line up."""
    lower = upper + 1
    cells = _structural(table.cells)
    kept: list[TableCell] = []
    for cell in sorted(cells, key=lambda c: (c.row, c.col)):
        if cell.row == lower:
            if cell.row_span > 1:
                return None
            above = next((c for c in kept if c.row <= upper < c.row + c.row_span
                          and c.col < cell.col + cell.col_span and cell.col < c.col + c.col_span), None)
            if above is not None:
                if (above.col, above.col_span) != (cell.col, cell.col_span):
                    return None
                above.text = join_texts([above.text, cell.text])
                above.bbox = union([b for b in (above.bbox, cell.bbox) if b is not None]) if (
                    above.bbox or cell.bbox) else None
                continue
            cell.row = upper
        elif cell.row > lower:
            cell.row -= 1
        elif cell.row + cell.row_span > lower:
            cell.row_span -= 1
        kept.append(cell)
    return make_table(table.rows - 1, table.cols, kept)


# -- stacked tables


def split_at_captions(table: Table) -> list[Table]:
    """The table cut at each row that holds nothing but a caption; parts of fewer than two rows are dropped. A
    table whose cells have no boxes is not cut."""
    cuts = [row for row in range(1, table.rows - 1) if len(filled := _filled(table, row)) == 1
            and filled[0].row_span == 1 and CAPTION.match(filled[0].text)]
    if not cuts or any(c.bbox is None for c in table.cells if c.text):
        return [table]
    parts = []
    for start, end in zip([0] + [cut + 1 for cut in cuts], cuts + [table.rows]):
        if end - start < 2:
            continue
        cells = [replace(c, row=c.row - start, row_span=min(c.row_span, end - c.row))
                 for c in _structural(table.cells) if start <= c.row < end]
        if start > 0 and not any(DIGIT.search(c.text) for c in cells if c.row == 0):
            for cell in cells:
                cell.header = cell.row == 0
        parts.append(make_table(end - start, table.cols, cells))
    return parts or [table]


# -- wrapped rows


def join_wrapped_rows(table: Table) -> Table:
    """The table with each row that continues the row above joined to it: a lower-case label under a label (one
    of the two rows holding no figures), or a single piece of words under a cell of words of its column (a
    label alone in the first column stays a row: a section label)."""
    row = table.rows - 1
    while row >= 1:
        joined = _merged_rows(table, row - 1) if _continues(table, row) else None
        if joined is not None:
            table = joined
        row -= 1
    return table


def _continues(table: Table, row: int) -> bool:
    filled, above = _filled(table, row), _filled(table, row - 1)
    if not filled:
        return False
    label, over = _covering(table, row, 0), _covering(table, row - 1, 0)
    if (label is not None and label.text and label.row == row and label.row_span == 1 and over is not None
            and over.text and not label.header and _stacked(over, label)):
        if label.text[:1].islower():
            return all(c.col == 0 for c in filled) or all(c.col == 0 for c in above)
        return all(c.col == 0 for c in above) and _tighter_than_rows(table, over, label)
    if len(filled) != 1 or filled[0].col == 0 or filled[0].row_span != 1 or not _wordy(filled[0].text):
        return False
    piece = filled[0]
    cell_above = _covering(table, row - 1, piece.col)
    return (cell_above is not None and cell_above.text and _wordy(cell_above.text)
            and (cell_above.col, cell_above.col_span) == (piece.col, piece.col_span)
            and cell_above.row + cell_above.row_span - 1 == row - 1)


def _tighter_than_rows(table: Table, upper: TableCell, lower: TableCell) -> bool:
    """Whether a label's next line stands closer under it than the table's rows stand apart (a label wrapped in a
    cell with padding: "Northern / Islands"), and at its left edge. Where rows stand as close as lines, a label
    alone in its row is a section label."""
    labels = sorted((c for c in table.cells if c.col == 0 and c.text and c.bbox is not None and not c.header),
                    key=lambda c: c.row)
    gaps = [b.bbox[1] - a.bbox[3] for a, b in pairwise(labels) if b.row == a.row + 1 and b is not lower]
    line = _height(lower)
    return (len(gaps) >= MIN_ROW_GAPS and abs(upper.bbox[0] - lower.bbox[0]) <= ALIGNED
            and lower.bbox[1] - upper.bbox[3] < median(gaps) - TIGHTER * line)


def centred_row_spans(table: Table) -> Table:
    """The table with the group labels of a column set in the middle of the rows they group (LaTeX's `\\multirow`, a
    merged cell centred vertically) spanning those rows. A column of such labels holds words in at most half the
    body rows, none on the first body row's own line (labels set on their group's first row stand there), and its
    groups follow one another from the first body row to the last: each from the row after the last group's to the
    row that puts the label in the middle of them (within CENTRED of a row's pitch), the label's slot the only one
    filled in its column (a label found between two rows may span them already)."""
    head = _header_rows(table)
    cells = _structural(table.cells)
    spans: list[tuple[TableCell, int, int]] = []
    for col in range(table.cols):
        labels = sorted((c for c in cells if c.row >= head and c.col <= col < c.col + c.col_span and c.text),
                        key=lambda c: c.row)
        if not labels or 2 * len(labels) > table.rows - head or any(
                c.col != col or c.col_span != 1 or c.bbox is None or not _wordy(c.text) for c in labels) or (
                (labels[0].row, labels[0].row_span) == (head, 1) and _centred(cells, labels[0], head, head)):
            continue
        groups, start = [], head
        for label, after in zip(labels, [c.row for c in labels[1:]] + [table.rows]):
            end = next((end for end in range(label.row + label.row_span - 1, after)
                        if _centred(cells, label, start, end)), None)
            if end is None:
                break
            groups.append((label, start, end))
            start = end + 1
        if start == table.rows:
            spans += groups
    if not any(top < bottom for _, top, bottom in spans):
        return table
    for cell, top, bottom in spans:
        cell.row, cell.row_span = top, bottom - top + 1
    return make_table(table.rows, table.cols, cells)


def _centred(cells: list[TableCell], label: TableCell, top: int, bottom: int) -> bool:
    """Whether the label's box is centred on the text of rows top to bottom beside it."""
    extent = _rows_extent(cells, label, top, bottom)
    if extent is None:
        return False
    pitch = (extent[1] - extent[0]) / (bottom - top + 1)
    return abs((extent[0] + extent[1]) / 2 - (label.bbox[1] + label.bbox[3]) / 2) <= CENTRED * pitch


def _rows_extent(cells: list[TableCell], cell: TableCell, top: int, bottom: int) -> tuple[float, float] | None:
    """The top and bottom of the text of rows top to bottom, the cell aside; None where a row's cells have no box."""
    beside = [c for c in cells if c is not cell and c.bbox is not None and c.row_span == 1 and c.text
              and top <= c.row <= bottom]
    if {c.row for c in beside} != set(range(top, bottom + 1)):
        return None
    return min(c.bbox[1] for c in beside), max(c.bbox[3] for c in beside)


def _wordy(text: str) -> bool:
    """Words rather than figures: more letters than digits."""
    return sum(ch.isalpha() for ch in text) > sum(ch.isdigit() for ch in text)


# -- headers


def _header_rows(table: Table) -> int:
    """How many rows on top are header rows (every cell of them a header)."""
    count = 0
    while count < table.rows and all(c.header for c in table.cells if c.row == count):
        count += 1
    return count


def joined_header_lines(table: Table) -> Table:
    """The table with each header row that continues the one above it joined to it: every cell of the lower row
    sits right under a cell of the upper row, one under each, and the upper row has no fewer cells. A header
    row whose cells all have empty slots above and below them (a label set between two header rows, "Region"
    beside "2019" and "Men") joins the row above, its cells spanning down over the row below."""
    table = _between_rows_joined(table)
    row = _header_rows(table) - 1
    while row >= 1:
        lower, upper = _filled(table, row), _filled(table, row - 1)
        above = [_covering(table, row - 1, cell.col) for cell in lower]
        if (lower and len(upper) >= len(lower) and all(a is not None and a.text for a in above)
                and len({id(a) for a in above}) == len(above)
                and all(_stacked(a, cell) and (a.col, a.col_span) == (cell.col, cell.col_span)
                        for a, cell in zip(above, lower))) or _wrapped_over(upper, lower):
            table = _merged_rows(table, row - 1) or table
        row -= 1
    return table


def _wrapped_over(upper: list[TableCell], lower: list[TableCell]) -> bool:
    """Whether the upper header row holds the first lines of headers wrapped over lines set at the header's foot
    (the longest headings reach highest): each of its cells sits a line above a cell of the lower row, in the same
    columns and aligned with it (left, right or centre), no year among them (a year heads the columns under it),
    and it holds more than half as many cells as the lower row, or half as many where the lower row's headings
    already wrap (a row of group headings holds fewer, over headings of one line), or each of its cells lies over
    a wrapped heading alone (the longest heading of a header set at its foot: a group heading reaches over the
    headings it groups)."""
    under = {(cell.col, cell.col_span): cell for cell in lower}
    pairs = [(cell, under.get((cell.col, cell.col_span))) for cell in upper]
    if not pairs or any(below is None or not _stacked(cell, below) or not in_line(cell.bbox, below.bbox, ALIGNED)
                        or YEAR.fullmatch(cell.text.strip()) for cell, below in pairs):
        return False
    wrapping = any(_height(below) > 1.5 * _height(cell) for cell, below in pairs)
    alone = all(_height(below) > 1.5 * _height(cell) and not any(
        other is not below and _overlap_x(other, cell) for other in lower) for cell, below in pairs)
    return 2 * len(upper) > len(lower) or (wrapping and 2 * len(upper) >= len(lower)) or alone


def _overlap_x(one: TableCell, other: TableCell) -> bool:
    """Whether two cells' boxes share a stretch across (unknown boxes: no)."""
    return (one.bbox is not None and other.bbox is not None
            and min(one.bbox[2], other.bbox[2]) > max(one.bbox[0], other.bbox[0]))




def _between_rows_joined(table: Table) -> Table:
    row = 1
    while row < _header_rows(table) - 1:
        cells = _filled(table, row)
        between = cells and all(c.row_span == 1 and not _text_at(table, row - 1, c) and not _text_at(table, row + 1, c)
                                for c in cells)
        joined = _merged_rows(table, row - 1) if between else None
        if joined is None:
            row += 1
            continue
        for cell in joined.cells:
            if cell.row == row - 1 and any(cell.text == c.text and cell.col == c.col for c in cells):
                cell.row_span = 2
        table = make_table(joined.rows, joined.cols, _structural(joined.cells))
    return table


def _text_at(table: Table, row: int, cell: TableCell) -> bool:
    """Whether the row holds text in the cell's columns."""
    return any((other := _covering(table, row, col)) is not None and other.text
               for col in range(cell.col, cell.col + cell.col_span))


def widened_headers(table: Table) -> Table:
    """Spanning headers widened over the columns of the header row below nearer to them than to any other header
    of their row; a top header with nothing under it spans the header rows down, a bottom one with nothing above
    it spans them up."""
    rows = _header_rows(table)
    if rows < 2 or table.rows <= rows:
        return table
    cells = _structural(table.cells)
    changed = False
    for row in range(rows - 1):
        upper = [c for c in cells if c.row == row and c.text and c.col >= 1 and c.bbox is not None]
        if not upper:
            continue
        taken: dict[int, list[int]] = {id(c): list(range(c.col, c.col + c.col_span)) for c in upper}
        for col in range(1, table.cols):
            if any(c.row <= row < c.row + c.row_span and c.col <= col < c.col + c.col_span and c.text for c in cells):
                continue
            below = next((c for c in cells if c.row == row + 1 and c.col == col and c.text and c.bbox), None)
            if below is not None:
                middle = (below.bbox[0] + below.bbox[2]) / 2
                nearest = min(upper, key=lambda c: abs((c.bbox[0] + c.bbox[2]) / 2 - middle))
                taken[id(nearest)].append(col)
        for cell in upper:
            start, end = min(taken[id(cell)]), max(taken[id(cell)])
            blocked = any(other is not cell and other.row == row and start <= other.col <= end for other in upper)
            if not blocked and (start, end - start + 1) != (cell.col, cell.col_span):
                cell.col, cell.col_span, changed = start, end - start + 1, True
    for cell in (c for c in cells if c.row == 0 and c.text and c.row_span == 1):
        under = [_covering(table, row, col) for row in range(1, rows) for col in range(cell.col, cell.col +
                                                                                        cell.col_span)]
        if all(u is None or not u.text for u in under):
            cell.row_span, changed = rows, True
    for cell in (c for c in cells if c.row == rows - 1 and c.text and c.row_span == 1):
        if not any(other.text and other.row < cell.row and other.col < cell.col + cell.col_span
                   and cell.col < other.col + other.col_span for other in cells):
            cell.row, cell.row_span, changed = 0, rows, True
    if not changed:
        return table
    cells = [c for c in cells if not (c.row < rows and not c.text and c.row_span == 1 and c.col_span == 1)]
    return make_table(table.rows, table.cols, cells)
