"""A document's export rendered for people: Markdown (as Docling and Marker write it), HTML or plain text.

Titles become headings (the first `#`, later ones `##`), tables Markdown tables (HTML where a cell spans
rows or columns), display formulas `$$...$$`; running headers, footers and page numbers are left out, and
a figure is a placeholder. A page that was not read is an HTML comment with its status and error.
"""

import html
import re
from dataclasses import dataclass
from typing import Any

from db.export import Render, json_body
from db.statuses import PageStatus
from folio.alto import to_alto
from folio.searchable_pdf import document_pdf

FURNITURE = frozenset({"header", "footer", "page_number"})
_BULLET = re.compile(r"^\s*[•◦▪▫‣⁃●○■□·*–—-]\s*")
_ENUMERATED = re.compile(r"^\s*\d{1,3}[.)]\s")
_MARKDOWN_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)]\s)", re.MULTILINE)


@dataclass(frozen=True)
class Format:
    suffix: str
    content_type: str
    render: Render
    full: bool = False  # rendered from the full export: with each block's lines and the document's sources


def _body_blocks(export: dict[str, Any]):
    """(page, block or None) in reading order, furniture left out; None stands for a page that was not read."""
    for page in export["pages"]:
        if page["status"] != PageStatus.DONE and not page["blocks"]:
            yield page, None
        for block in page["blocks"]:
            if block["type"] not in FURNITURE:
                yield page, block


def _unread(page: dict[str, Any]) -> str:
    return f"page {page['page_no']}: {page['status']}" + (f": {page['error']}" if page.get("error") else "")


def _comment(text: str) -> str:
    return f"<!-- {text.replace('--', '- -')} -->"


def to_markdown(export: dict[str, Any]) -> str:
    """The document as Markdown."""
    parts: list[tuple[str, str]] = []  # (block type, Markdown); list items are kept together
    titled = False
    for page, block in _body_blocks(export):
        if block is None:
            parts.append(("comment", _comment(_unread(page))))
            continue
        kind = block["type"]
        if kind == "title":
            parts.append((kind, ("##" if titled else "#") + " " + _one_line(block["text"])))
            titled = True
        elif kind == "list_item":
            parts.append((kind, _list_item(block["text"])))
        elif kind == "table" and block.get("table"):
            parts.append((kind, _markdown_table(block["table"])))
        elif kind == "formula" and block.get("latex"):
            parts.append((kind, f"$$\n{block['latex'].strip()}\n$$"))
        elif kind == "figure":
            parts.append((kind, "<!-- image -->"))
        elif block["text"].strip():
            parts.append((kind, _paragraph(block["text"])))
    out = ""
    for index, (kind, text) in enumerate(parts):
        if index:
            out += "\n" if kind == "list_item" and parts[index - 1][0] == "list_item" else "\n\n"
        out += text
    return out + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _paragraph(text: str) -> str:
    """Text kept as written, a line that would start Markdown syntax (a heading, a list, a quote) escaped."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return _MARKDOWN_LINE_START.sub(r"\1\\\2", "\n".join(lines))


def _list_item(text: str) -> str:
    text = _one_line(text)
    if _ENUMERATED.match(text):
        return text
    return "- " + _BULLET.sub("", text)


def _markdown_table(table: dict[str, Any]) -> str:
    """A Markdown table, its first row the header; the table's HTML when a cell spans rows or columns."""
    cells = table["cells"]
    if not cells or any(cell["row_span"] > 1 or cell["col_span"] > 1 for cell in cells):
        return table["html"]
    grid = [[""] * table["cols"] for _ in range(table["rows"])]
    for cell in cells:
        grid[cell["row"]][cell["col"]] = _one_line(cell["text"]).replace("\\", "\\\\").replace("|", "\\|")
    lines = ["| " + " | ".join(row) + " |" for row in grid]
    lines.insert(1, "|" + "|".join("---" for _ in grid[0]) + "|")
    return "\n".join(lines)


def to_text(export: dict[str, Any]) -> str:
    """The document's body as plain text: blocks in reading order, table rows with tab-separated cells."""
    parts = []
    for page, block in _body_blocks(export):
        if block is None:
            parts.append(f"[{_unread(page)}]")
        elif block["type"] == "table" and block.get("table"):
            parts.append(_text_table(block["table"]))
        elif block["type"] == "formula" and block.get("latex"):
            parts.append(block["latex"].strip())
        elif block["type"] != "figure" and block["text"].strip():
            parts.append(block["text"].strip())
    return "\n\n".join(parts) + "\n"


def _text_table(table: dict[str, Any]) -> str:
    rows: dict[int, list[str]] = {}
    for cell in table["cells"]:
        rows.setdefault(cell["row"], []).append(_one_line(cell["text"]))
    return "\n".join("\t".join(cells) for _, cells in sorted(rows.items()))


def to_html(export: dict[str, Any]) -> str:
    """The document as a standalone HTML page; formulas as \\[...\\] for MathJax or KaTeX to typeset."""
    document = export["document"]
    body: list[str] = []
    in_list = titled = False
    for page, block in _body_blocks(export):
        item = block is not None and block["type"] == "list_item"
        if in_list and not item:
            body.append("</ul>")
        if item and not in_list:
            body.append("<ul>")
        in_list = item
        if block is not None and block["type"] == "title":
            body.append(f"<h{2 if titled else 1}>{html.escape(_one_line(block['text']))}</h{2 if titled else 1}>")
            titled = True
        else:
            body.append(_comment(_unread(page)) if block is None else _html_block(block))
    if in_list:
        body.append("</ul>")
    title = html.escape(document["source"].rsplit("/", 1)[-1])
    return (f'<!doctype html>\n<html><head><meta charset="utf-8"><title>{title}</title>\n'
            f'<meta name="folio-sha256" content="{document["sha256"]}"></head>\n<body>\n'
            + "\n".join(body) + "\n</body></html>\n")


def _html_block(block: dict[str, Any]) -> str:
    kind, text = block["type"], html.escape(block["text"].strip())
    if kind == "list_item":
        return f"<li>{html.escape(_BULLET.sub('', block['text'].strip()))}</li>"
    if kind == "table" and block.get("table"):
        return block["table"]["html"]
    if kind == "formula" and block.get("latex"):
        return f'<div class="formula">\\[{html.escape(block["latex"].strip())}\\]</div>'
    if kind == "figure":
        return "<figure></figure>"
    if kind == "caption":
        return f"<p class=\"caption\">{text}</p>"
    return f"<p>{text}</p>" if text else ""


FORMATS = {
    "json": Format(".json", "application/json", json_body),
    "markdown": Format(".md", "text/markdown; charset=utf-8", to_markdown),
    "html": Format(".html", "text/html; charset=utf-8", to_html),
    "text": Format(".txt", "text/plain; charset=utf-8", to_text),
    "alto": Format(".alto.xml", "application/xml", to_alto, full=True),
    "pdf": Format(".pdf", "application/pdf", document_pdf, full=True),
}
