"""A table's grid: cells made into a complete grid (every slot covered once) and written as HTML."""

import html

from engine.geometry import union
from engine.types import Table, TableCell


def make_table(n_rows: int, n_cols: int, cells: list[TableCell]) -> Table:
    """The table with its HTML; slots no cell covers become empty cells, and no slot is covered twice: spans
    end at the grid's edge and where an earlier cell (in row, column order) covers a slot; a cell starting on
    a covered slot joins the cell covering it."""
    covered: dict[tuple[int, int], TableCell] = {}
    complete: list[TableCell] = []
    for cell in sorted(cells, key=lambda c: (c.row, c.col)):
        cell.row_span = max(1, min(cell.row_span, n_rows - cell.row))
        cell.col_span = max(1, min(cell.col_span, n_cols - cell.col))
        if (cell.row, cell.col) in covered:
            owner = covered[cell.row, cell.col]
            owner.text = f"{owner.text} {cell.text}".strip()
            if owner.bbox is not None and cell.bbox is not None:
                owner.bbox = union([owner.bbox, cell.bbox])
            continue
        while cell.col_span > 1 and any((cell.row, c) in covered for c in range(cell.col, cell.col + cell.col_span)):
            cell.col_span -= 1
        while cell.row_span > 1 and any((r, c) in covered for r in range(cell.row, cell.row + cell.row_span)
                                        for c in range(cell.col, cell.col + cell.col_span)):
            cell.row_span -= 1
        covered.update(((r, c), cell) for r in range(cell.row, cell.row + cell.row_span)
                       for c in range(cell.col, cell.col + cell.col_span))
        complete.append(cell)
    for row in range(n_rows):
        for col in range(n_cols):
            if (row, col) not in covered:
                header = any(c.header for c in cells if c.row == row)
                complete.append(TableCell(row=row, col=col, text="", header=header))
    complete.sort(key=lambda c: (c.row, c.col))
    return Table(rows=n_rows, cols=n_cols, cells=complete, html=table_html(n_rows, complete))


def table_html(n_rows: int, cells: list[TableCell]) -> str:
    """The HTML of a table's cells, row by row in column order, with their spans and headers."""
    parts = ["<table>"]
    for row in range(n_rows):
        parts.append("<tr>")
        for cell in sorted((c for c in cells if c.row == row), key=lambda c: c.col):
            tag = "th" if cell.header else "td"
            attributes = (f' rowspan="{cell.row_span}"' if cell.row_span > 1 else "") + \
                         (f' colspan="{cell.col_span}"' if cell.col_span > 1 else "")
            parts.append(f"<{tag}{attributes}>{html.escape(cell.text, quote=False)}</{tag}>")
        parts.append("</tr>")
    parts.append("</table>")
    return "".join(parts)
