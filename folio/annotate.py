"""Pictures of what folio found, for people to check: pages with every block drawn, and an HTML report.

Each block's box is drawn on the rendered page in its type's colour with its reading-order number
and type; tables are filled, formulas dashed, running headers, footers and page numbers grey.
"""

import html
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from sqlalchemy import Engine, or_, select
from sqlalchemy.orm import selectinload

from db.models import Block, Document, DocumentSource, Page
from db.session import session_scope
from db.store import document_sources
from folio.settings import get_settings

COLOURS = {  # RGB in 0..1
    "title": (0.80, 0.10, 0.10), "text": (0.10, 0.35, 0.85), "list_item": (0.10, 0.60, 0.70),
    "table": (0.10, 0.60, 0.20), "formula": (0.75, 0.10, 0.75), "figure": (0.90, 0.50, 0.00),
    "caption": (0.55, 0.35, 0.10), "footnote": (0.40, 0.40, 0.80),
    "header": (0.50, 0.50, 0.50), "footer": (0.50, 0.50, 0.50), "page_number": (0.50, 0.50, 0.50),
}
LABEL_SIZE = 7.0


@dataclass(frozen=True)
class StoredDocument:
    document_id: int
    sha256: str
    pdf: Path  # a source that still holds the document's bytes
    pages: list[Page]


def load_document(engine: Engine, reference: str) -> StoredDocument:
    """A stored document by its sha256 (or a unique prefix of at least 8 characters) or a path it was seen at."""
    from tasks.discover import path_uri
    from tasks.reprocess import file_with_bytes

    path = path_uri(Path(reference).expanduser().resolve()) if Path(reference).expanduser().exists() else reference
    with session_scope(engine) as session:
        query = select(Document).outerjoin(DocumentSource).where(or_(
            DocumentSource.uri == path, Document.sha256.startswith(reference.lower()) if len(reference) >= 8
            else Document.sha256 == reference.lower())).options(
            selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.table),
            selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.formula))
        found = session.execute(query).scalars().unique().all()
        if len(found) != 1:
            raise ValueError(f"{'no' if not found else 'more than one'} stored document matches {reference}")
        document = found[0]
        uris = document_sources(session, document.id)
    found = file_with_bytes(uris, document.sha256, get_settings().max_file_bytes)
    if found is None:
        raise FileNotFoundError(f"no source holds the bytes of document {document.id} any more: {', '.join(uris)}")
    return StoredDocument(document.id, document.sha256, found[0].path, list(document.pages))


def annotate_page(stored: StoredDocument, page_no: int, out: Path, dpi: int = 110) -> Path:
    """The page rendered with every stored block drawn on it, as a PNG."""
    page_row = next((page for page in stored.pages if page.page_no == page_no), None)
    if page_row is None:
        raise ValueError(f"document {stored.document_id} has no stored page {page_no} "
                         f"(pages: 1-{len(stored.pages)})")
    with pymupdf.open(stored.pdf) as document:
        page = document[page_no - 1]
        for block in page_row.blocks:
            _draw_block(page, block)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.get_pixmap(dpi=dpi).save(out)
    return out


def _draw_block(page: pymupdf.Page, block: Block) -> None:
    """Draws the block's box and label; boxes are stored on the displayed page, PyMuPDF draws on the unrotated one."""
    colour = COLOURS.get(block.type, (0.0, 0.0, 0.0))
    unrotate = page.derotation_matrix
    rect = pymupdf.Rect(block.x0, block.y0, block.x1, block.y1)
    page.draw_rect(rect * unrotate, color=colour, width=1.2, dashes="[3 2] 0" if block.type == "formula" else None,
                   fill=colour if block.type == "table" else None, fill_opacity=0.12, overlay=True)
    if block.table is not None:  # the grid's size: cells have no boxes of their own
        label = f"{block.reading_order} table {block.table.n_rows}x{block.table.n_cols}"
    else:
        label = f"{block.reading_order} {block.type}"
    width = pymupdf.get_text_length(label, fontname="helv", fontsize=LABEL_SIZE) + 3
    top = max(rect.y0 - LABEL_SIZE - 2, 0)
    tag = pymupdf.Rect(rect.x0, top, rect.x0 + width, top + LABEL_SIZE + 2)
    page.draw_rect(tag * unrotate, color=None, fill=colour, overlay=True)
    page.insert_text(pymupdf.Point(tag.x0 + 1.5, tag.y1 - 2) * unrotate, label, fontname="helv", fontsize=LABEL_SIZE,
                     color=(1, 1, 1), rotate=page.rotation)


def write_report(stored: StoredDocument, out: Path, dpi: int = 110) -> Path:
    """A static HTML report: each page's picture beside its blocks, tables rendered, formulas as LaTeX."""
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    for page in stored.pages:
        parts = [f"<h2>Page {page.page_no} <small>{html.escape(page.status)}</small></h2>"]
        if page.status == "done":
            image = annotate_page(stored, page.page_no, out / f"page-{page.page_no}.png", dpi)
            parts.append(f'<div class="page"><img src="{image.name}" alt="page {page.page_no}"><ol start="0">')
            for block in page.blocks:
                parts.append(f'<li><span class="type">{block.type}</span> {_block_html(block)}</li>')
            parts.append("</ol></div>")
        else:
            parts.append(f"<p>{html.escape(page.error or '')}</p>")
        sections.append("\n".join(parts))
    index = out / "index.html"
    index.write_text(REPORT.format(title=html.escape(f"{stored.pdf.name} ({stored.sha256[:12]})"),
                                   body="\n".join(sections)), encoding="utf-8")
    return index


def _block_html(block: Block) -> str:
    if block.table is not None:
        return block.table.html
    if block.formula is not None:
        return f"<pre>{html.escape(block.formula.latex)}</pre>"
    return html.escape(block.text)


REPORT = """<!doctype html>
<html><head><meta charset="utf-8"><title>folio: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
.page {{ display: flex; gap: 2em; align-items: flex-start; }}
.page img {{ max-width: 55%; border: 1px solid #ccc; }}
.type {{ font-size: 0.8em; color: #666; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #999; padding: 2px 6px; }}
pre {{ background: #f4f4f4; padding: 4px; white-space: pre-wrap; }}
</style></head>
<body><h1>{title}</h1>
{body}
</body></html>
"""
