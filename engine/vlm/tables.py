"""Tables as models write them, HTML (with spans and <th>) or Markdown pipes, read into folio's Table."""

import re
from html.parser import HTMLParser

from engine.table_grid import make_table
from engine.types import Table, TableCell
from engine.vlm.answer import plain

MAX_SPAN = 1000  # a rowspan or colspan beyond this is a model's stutter, not a table


class _HtmlTable(HTMLParser):
    """Rows of cells (text, row span, column span, header) of the first table in a piece of HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[str, int, int, bool]]] = []
        self._cell: list | None = None
        self._depth = 0  # tables open; a table inside a cell is that cell's text
        self._head = False
        self._done = False  # the first table has ended: what follows is not read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth += 1
        if self._depth > 1 or tag == "br":
            self._text(" ")
        elif tag == "thead":
            self._head = True
        elif tag == "tr":
            self.close_cell()
            self.rows.append([])
        elif tag in ("td", "th"):
            self.close_cell()
            if not self.rows:
                self.rows.append([])
            spans = dict(attrs)
            self._cell = ["", _span(spans.get("rowspan")), _span(spans.get("colspan")), tag == "th" or self._head]

    def handle_endtag(self, tag: str) -> None:
        if self._done:
            return
        if tag == "table":
            self._depth -= 1
            self._done = self._depth <= 0
        if self._depth > 1 or (tag == "table" and not self._done):
            self._text(" ")
        elif tag in ("td", "th", "tr", "table"):
            self.close_cell()
        elif tag == "thead":
            self._head = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._done:
            self._cell[0] += data

    def _text(self, data: str) -> None:
        if self._cell is not None:
            self._cell[0] += data

    def close_cell(self) -> None:
        if self._cell is not None:
            text, rows, cols, header = self._cell
            self.rows[-1].append((plain(text), rows, cols, header))
            self._cell = None


def _span(value: str | None) -> int:
    try:
        return min(MAX_SPAN, max(1, int(str(value).strip())))
    except ValueError:
        return 1


def html_table(markup: str) -> Table | None:
    """The first table of the HTML, cells placed on the grid with their spans; None when it has no cell."""
    parser = _HtmlTable()
    parser.feed(markup)
    parser.close()
    parser.close_cell()
    return grid_table(parser.rows)


def grid_table(rows: list[list[tuple[str, int, int, bool]]]) -> Table | None:
    """Rows of (text, row span, column span, header) placed on a grid: each cell at the first column its row's
    earlier cells and the row spans from above leave free."""
    taken: set[tuple[int, int]] = set()
    cells: list[TableCell] = []
    for row, found in enumerate(rows):
        col = 0
        for text, row_span, col_span, header in found:
            while (row, col) in taken:
                col += 1
            cells.append(TableCell(row=row, col=col, text=text, row_span=row_span, col_span=col_span,
                                   header=header))
            taken.update((r, c) for r in range(row, row + min(row_span, len(rows) - row))
                         for c in range(col, col + col_span))
            col += col_span
    if not cells:
        return None
    n_cols = max(cell.col + cell.col_span for cell in cells)
    return make_table(len(rows), n_cols, cells)


_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def is_pipe_separator(line: str) -> bool:
    """Whether the line is the |---|:---:| row under a Markdown table's header."""
    return bool(_SEPARATOR.match(line))


def pipe_table(lines: list[str]) -> Table | None:
    """A Markdown pipe table: the rows above the separator are its header."""
    rows: list[list[tuple[str, int, int, bool]]] = []
    header = any(is_pipe_separator(line) for line in lines)
    for line in lines:
        if is_pipe_separator(line):
            header = False
            continue
        rows.append([(plain(cell.replace("\\|", "|")), 1, 1, header) for cell in _pipe_cells(line)])
    return grid_table(rows)


def _pipe_cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return re.split(r"(?<!\\)\|", inner)
