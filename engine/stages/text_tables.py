"""Where a rendered page holds a table that neither rules nor the layout model show: rows of text set in the same
columns, the way camelot's stream mode and a reader's eye find one.

A run of rows, each of two or more pieces apart from each other, is a table when its pieces line up in columns
(their spans, merged across rows, leave gaps), at least three rows hold pieces in two or more of those columns,
and its columns are not prose: none as wide as half the run (but a first column of long row labels beside
figures, or a description column between columns of short pieces), and beside the first one figures or short
labels (two columns of running text are a page's layout, not a table), and few of them hold a formula's operators
(a display formula's numerators, limits and operators line up too). Rows of a single piece inside the run that is
no prose (a wrapped label, a section label, a description's next line under it) stay in it, and so does the stub's
heading set between the rows of a two-level header; a caption line ("Table 3: ...") ends the run, so tables stacked
under their titles are found one by one.
"""

import re
from statistics import median

from engine.figure_runs import body_figure, figure_or_mark, two_figures
from engine.geometry import Row, in_line, merged_spans, text_rows, union
from engine.stages.classify import CAPTION
from engine.types import BBox, Line

PIECE_GAP = 0.5  # line heights between two pieces of one row, at least
ROW_GAP = 2.0  # line heights between two rows of one table, at most
MIN_ROWS = 3  # rows with pieces in two or more columns
MAX_COLUMN_SHARE = 0.5  # of the run's width: a wider column is prose (but a first column of labels: _table_box)
MIN_FIGURES = 0.6  # share of the pieces beside a wide first column that are figures
MAX_WORDS = 4  # a piece beside the first column holding more words than this is prose
LIST_MARK = re.compile(r"\(?(\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]|[•·▪◦*–-]")  # "28.", "(b)", "iv)", a bullet
MATH = re.compile(r"[=∑∏∫∮√∞∂∇]")  # what a formula's pieces hold and a statistical table's hardly ever
MAX_MATH_SHARE = 0.2  # of a run's pieces holding MATH: more, and the run is a formula
HEADING_GAP = 0.5  # of a line's height: the blank between two lines of one heading, at most
ALIGNED = 0.3  # line heights: two lines whose edges or centres are this close are set in line
SAME_SIZE = 0.2  # of a line's height: lines of one heading differ in height by less
STUB_ROWS = 4  # rows of a run from its first that show where its stub's column lies
GUTTER = 1.5  # line heights of empty band between two columns of a page's text, at least


def aligned_regions(lines: list[Line]) -> list[BBox]:
    """The boxes of the runs of rows that line up as tables, looked for in each of the page's columns."""
    if not lines:
        return []
    height = median(line.height for line in lines)
    return [region for column in page_columns(lines, height) for region in _column_regions(column, height)]


def page_columns(lines: list[Line], height: float) -> list[list[Line]]:
    """The lines split at the gutters between the page's columns of text (the facing pages of a scanned spread, a
    paper's two columns): a band GUTTER line heights wide or more that no line crosses, with prose on both sides.
    Beside figures or short labels such a band is a table's own column gap, and the page stays whole."""
    columns = [[line for line in lines if start <= line.bbox[0] and line.bbox[2] <= end]
               for start, end in merged_spans([(line.bbox[0], line.bbox[2]) for line in lines], GUTTER * height)]
    joined = columns[:1]
    for column in columns[1:]:
        if _prose(joined[-1]) and _prose(column):
            joined.append(column)
        else:
            joined[-1] = joined[-1] + column
    return joined


def _prose(lines: list[Line]) -> bool:
    return any(len(line.text.split()) > MAX_WORDS for line in lines)


def _column_regions(lines: list[Line], height: float) -> list[BBox]:
    regions, run = [], []
    rows = text_rows(lines)
    for index, row in enumerate(rows):
        if run and row.top - run[-1].bottom > ROW_GAP * height:
            regions += _table_box(run, height)
            run = []
        if len(row.lines) == 1 and CAPTION.match(row.lines[0].text):  # the next table's title: this one ended
            regions += _table_box(run, height)
            run = []
        elif _split(row, height) or (run and len(row.lines) == 1 and (
                _within(row, run) or _stub_heading(row, run) or _wrapped_under(row.lines[0], run, height))):
            run = run + [row] if run else _heads_above(rows[:index], rows[index:], height) + [row]
        else:
            regions += _table_box(run, height)
            run = []
    return regions + _table_box(run, height)


def _heads_above(above: list[Row], below: list[Row], height: float) -> list[Row]:
    """The rows right above a run's first row (`below`: its rows) that begin its column headings set to the bottom
    (a heading wrapped over more lines than its neighbours starts higher): each a short piece a line above a piece
    of that row outside the stub's column (the left edge of the rows of two pieces or more under it), set in line
    with it (left, right or centre) in the same size (a units note over the table's corner is neither)."""
    first = below[0]
    edge = min(line.bbox[0] for row in below[:STUB_ROWS] if len(row.lines) >= 2 for line in row.lines)
    headings = [line for line in first.lines if line.bbox[0] > edge + height]
    heads: list[Row] = []
    for row in reversed(above):
        under = heads[0] if heads else first
        piece = row.lines[0]
        if len(row.lines) != 1 or CAPTION.match(piece.text) or len(piece.text.split()) > MAX_WORDS or (
                under.top - row.bottom > HEADING_GAP * piece.height) or not any(
                in_line(piece.bbox, line.bbox, ALIGNED * height)
                and abs(piece.height - line.height) <= SAME_SIZE * line.height for line in headings):
            break
        heads.insert(0, row)
    return heads


def _split(row: Row, height: float) -> bool:
    """Two or more pieces clear of each other: PIECE_GAP apart, or figures side by side (two cells a narrow gutter
    apart: engine/figure_runs.py)."""
    pieces = sorted((line for line in row.lines if line.text.split()), key=lambda line: line.bbox[0])
    right = pieces[0].bbox[2] if pieces else 0.0
    for before, after in zip(pieces, pieces[1:]):
        gap = after.bbox[0] - right
        if gap >= PIECE_GAP * height or (gap > 0 and two_figures(before.text.split()[-1], after.text.split()[0])):
            return True
        right = max(right, after.bbox[2])
    return False


def _within(row: Row, run: list[Row]) -> bool:
    """A single piece inside the run's span that is no prose (a label's or a header's next line, a section label):
    it ends before the second column begins, or it is short."""
    left = min(line.bbox[0] for r in run for line in r.lines)
    right = max(line.bbox[2] for r in run for line in r.lines)
    second = min((line.bbox[0] for r in run for line in beside_first(r)), default=right)
    piece = row.lines[0]
    slack = 0.05 * (right - left)
    return piece.bbox[0] >= left - slack and (piece.bbox[2] <= second or (
        piece.bbox[2] <= right + slack and len(piece.text.split()) <= MAX_WORDS))


def _wrapped_under(piece: Line, run: list[Row], height: float) -> bool:
    """A line of a cell's text wrapped under the run's last row: it starts where a piece of that row beside its
    first starts, that piece holds words, and the line runs under no other piece of the row (a description wrapped
    in its column, as TeX's `p{}` sets it), or under a line wrapped so before it; never in the run's first column
    (a note and the prose under it), nor under a row that a list's number or bullet starts (a numbered paragraph's
    hanging lines)."""
    above = run[-1]
    first = min(above.lines, key=lambda line: line.bbox[0])
    if LIST_MARK.fullmatch(first.text.strip()) or piece.bbox[0] <= min(
            line.bbox[0] for row in run for line in row.lines) + height:
        return False
    return any(abs(piece.bbox[0] - line.bbox[0]) <= 0.5 * height and len(line.text.split()) >= 2 and not any(
        other is not line and min(other.bbox[2], piece.bbox[2]) > max(other.bbox[0], piece.bbox[0])
        for other in above.lines) for line in beside_first(above) or above.lines)


def _stub_heading(row: Row, run: list[Row]) -> bool:
    """A short piece left of a run of header rows only (no figures yet): the stub's heading, set between the rows
    of a two-level header (a group heading's row above, its sub-headings below)."""
    return len(row.lines[0].text.split()) <= MAX_WORDS and not any(
        body_figure(line.text) for r in run for line in beside_first(r))


def _table_box(run: list[Row], height: float) -> list[BBox]:
    """The run's box when its rows line up in columns that are not prose; else none. A single line after the last
    row of pieces stays in the run only when it continues a label or a description (`_continues`); else it is the
    paragraph or the note below."""
    split = [row for row in run if len(row.lines) >= 2]
    left = min((line.bbox[0] for row in split for line in row.lines), default=0.0)
    first = max((piece.bbox[2] for row in split if (piece := min(row.lines, key=lambda line: line.bbox[0])).bbox[0]
                 <= left + height), default=0.0)  # where the first column ends
    while run and len(run[-1].lines) == 1 and not _continues(run, first + 0.5 * height, height):
        run = run[:-1]
    if len(split) < MIN_ROWS:
        return []
    pieces = [line for row in run for line in row.lines]
    if sum(1 for piece in pieces if MATH.search(piece.text)) > MAX_MATH_SHARE * len(pieces):
        return []  # a display formula's pieces: numerators, operators and limits line up too
    body = next((index for index, row in enumerate(run) if any(body_figure(p.text) for p in beside_first(row))), 0)
    columns = merged_spans([(piece.bbox[0], piece.bbox[2]) for row in run[body:] for piece in row.lines], 1.0)
    box = union([line.bbox for line in pieces])
    width = box[2] - box[0]
    wide = [index for index, (a, b) in enumerate(columns) if b - a > MAX_COLUMN_SHARE * width]
    described = {id(line) for line in _described(columns, wide, pieces)}
    beside = [line for line in pieces if line.bbox[0] > columns[0][1] and id(line) not in described]
    if len(columns) < 2 or not beside or sum(1 for line in beside if len(line.text.split()) > MAX_WORDS) > 0.2 * len(
            beside):
        return []
    if described:
        return [box]
    if any(wide) or (wide and (len(columns) < 3 or _figures(beside) < MIN_FIGURES)):
        return []  # a wide first column: labels beside two or more columns of figures (not a list's page numbers)
    return [box]


def _described(columns: list[tuple[float, float]], wide: list[int], pieces: list[Line]) -> list[Line]:
    """The pieces of a description column: the one wide column, neither the first nor alone with it, between
    columns of short pieces (a dataset's name, its wrapped description, its size), where every piece of the other
    columns is short; else none. Prose set beside a column of labels is two columns, a page's two columns of text
    hold long lines on both sides."""
    if len(wide) != 1 or wide[0] == 0 or len(columns) < 3:
        return []
    start, end = columns[wide[0]]
    inside = [line for line in pieces if start <= line.bbox[0] and line.bbox[2] <= end]
    others = [line for line in pieces if not (start <= line.bbox[0] and line.bbox[2] <= end)]
    return inside if all(len(line.text.split()) <= MAX_WORDS for line in others) else []


def _figures(lines: list[Line]) -> float:
    """The share of the lines that are a figure or a missing value's mark."""
    return sum(1 for line in lines if figure_or_mark(line.text)) / len(lines) if lines else 0.0


def beside_first(row: Row) -> list[Line]:
    """The row's pieces right of its first, left to right."""
    return sorted(row.lines, key=lambda line: line.bbox[0])[1:]


def _continues(run: list[Row], first_column_end: float, height: float) -> bool:
    """Whether the run's last line, alone in its row, goes on with the run: in lower case inside the first column
    (a label), or starting with no capital wrapped under the row above (a description)."""
    line = run[-1].lines[0]
    return (line.text[:1].islower() and line.bbox[2] <= first_column_end) or (
        not line.text[:1].isupper() and len(run) >= 2 and _wrapped_under(line, run[:-1], height))
