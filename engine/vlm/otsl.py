"""Tables in OTSL, as PaddleOCR-VL's table recognition (and Docling's TableFormer) writes them.

Each row is a run of cell tokens ended by `<nl>`: `<fcel>` opens a cell whose text follows, `<ecel>` an empty cell,
`<lcel>` continues the cell to its left (a column span), `<ucel>` the cell above (a row span), `<xcel>` both (the
inside of a cell spanning rows and columns). `<ched>`, `<rhed>` and `<srow>` (Docling's column headers, row headers
and section rows) open a cell like `<fcel>`, the first two as header cells.
"""

import re

from engine.table_grid import table_html
from engine.types import Table, TableCell
from engine.vlm.answer import UnreadableAnswer, plain

_TOKEN = re.compile(r"<(fcel|ecel|lcel|ucel|xcel|ched|rhed|srow|nl)>")
OPENS = {"fcel": False, "ecel": False, "ched": True, "rhed": True, "srow": False}  # token: opens a header cell


def otsl_table(answer: str) -> Table:
    """The table an OTSL answer describes, its cells with their spans; UnreadableAnswer where it describes none."""
    text = answer.strip().removeprefix("<otsl>").removesuffix("</otsl>")
    parts = _TOKEN.split(text)
    if len(parts) < 3:
        raise UnreadableAnswer("no OTSL cell token (<fcel>, <ecel>, <nl>, …) in the answer")
    rows: list[list[tuple[str, str]]] = [[]]
    for token, content in zip(parts[1::2], parts[2::2]):
        if token == "nl":
            rows.append([])
        else:
            rows[-1].append((token, plain(content)))
    rows = [row for row in rows if row]
    if not rows:
        raise UnreadableAnswer("the OTSL answer has no cell")
    width = max(len(row) for row in rows)
    grid = [row + [("ecel", "")] * (width - len(row)) for row in rows]  # a short row filled with empty cells
    cells: list[TableCell] = []
    for r, row in enumerate(grid):
        for c, (token, content) in enumerate(row):
            if token not in OPENS:
                if token in ("lcel", "xcel") and c == 0 or token in ("ucel", "xcel") and r == 0:
                    raise UnreadableAnswer(f"OTSL row {r + 1}, cell {c + 1}: <{token}> continues no cell")
                continue
            cols = 1 + next((i for i, (t, _) in enumerate(row[c + 1:]) if t != "lcel"), width - c - 1)
            down = 1 + next((i for i, below in enumerate(grid[r + 1:]) if below[c][0] not in ("ucel", "xcel")),
                            len(grid) - r - 1)
            cells.append(TableCell(row=r, col=c, text=content, row_span=down, col_span=cols,
                                   header=OPENS[token]))
    return Table(rows=len(grid), cols=width, cells=cells, html=table_html(len(grid), cells))
