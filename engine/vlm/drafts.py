"""A block a model answered with its type and its content, as a draft: tables as HTML (read into cells), formulas as
LaTeX, other text as Markdown (a title's heading marks dropped; a header or footer holding only a page number is a
page number)."""

import re

from engine.types import BBox, BlockType
from engine.vlm.answer import Draft, bare_latex, is_page_number, plain
from engine.vlm.tables import html_table

_HEADING_MARKS = re.compile(r"^#{1,6}\s+")
_ANY_TAG = re.compile(r"<[^>]*>")


def typed_draft(kind: BlockType, content: str, box: BBox | None) -> Draft:
    """The draft of a block of this type; a table without a cell in it is its words as text."""
    if kind == "table":
        table = html_table(content)
        if table is not None:
            return Draft(type="table", text=" ".join(cell.text for cell in table.cells if cell.text), box=box,
                         table=table)
        kind, content = "text", _ANY_TAG.sub(" ", content)
    if kind == "formula":
        latex = bare_latex(content)
        return Draft(type="formula", text=latex, box=box, latex=latex)
    text = plain(_HEADING_MARKS.sub("", content.strip()) if kind == "title" else content)
    if kind in ("header", "footer") and is_page_number(text):
        kind = "page_number"
    return Draft(type=kind, text=text, box=box)
