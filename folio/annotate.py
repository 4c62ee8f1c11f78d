"""Pictures of what folio found, for people to check: a page with every stored block drawn on it.

Each block's box is drawn on the rendered page in its type's colour; tables are filled, formulas dashed,
running headers, footers and page numbers grey. Its label (reading-order number and type) sits in a margin
beside the page, joined to the box by a thin line, so that no label hides text; a legend under the page
names the colours of the types on it.
"""

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pymupdf
from sqlalchemy import Engine, select
from sqlalchemy.orm import selectinload

from base.settings import get_settings
from db.documents import find_document_id
from db.models import Block, Document, Page
from db.session import session_scope
from db.store import document_sources

COLOURS = {  # RGB in 0..1
    "title": (0.80, 0.10, 0.10), "text": (0.10, 0.35, 0.85), "list_item": (0.10, 0.60, 0.70),
    "table": (0.10, 0.60, 0.20), "formula": (0.75, 0.10, 0.75), "figure": (0.90, 0.50, 0.00),
    "caption": (0.55, 0.35, 0.10), "footnote": (0.40, 0.40, 0.80),
    "header": (0.50, 0.50, 0.50), "footer": (0.50, 0.50, 0.50), "page_number": (0.50, 0.50, 0.50),
}
LABEL_SIZE = 7.0
MARGIN = 72.0  # points on each side of the page for the labels
LEGEND_ROW = 14.0


@dataclass(frozen=True)
class StoredDocument:
    document_id: int
    sha256: str
    pdf: Path  # a source that still holds the document's bytes
    pages: list[Page]
    sources: tuple[str, ...] = ()  # every path or URI it was seen at, most recently seen first
    status: str = ""
    error: str | None = None
    updated_at: datetime | None = None

    @property
    def engine_versions(self) -> list[str]:
        return sorted({page.engine_version for page in self.pages if page.engine_version})


def load_document(database: Engine, reference: str) -> StoredDocument:
    """A stored document by its sha256 (or a unique prefix of at least 8 characters) or a path it was seen at."""
    from runs.reopen import file_with_bytes
    from sources.listing import path_uri

    path = path_uri(Path(reference).expanduser().resolve()) if Path(reference).expanduser().exists() else reference
    with session_scope(database) as session:
        query = select(Document).where(Document.id == find_document_id(session, path)).options(
            selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.table),
            selectinload(Document.pages).selectinload(Page.blocks).selectinload(Block.formula))
        document = session.execute(query).scalar_one()
        uris = document_sources(session, document.id)
    found = file_with_bytes(uris, document.sha256, get_settings().max_file_bytes, get_settings().spool)
    if found is None:
        raise FileNotFoundError(f"no source holds the bytes of document {document.id} any more: {', '.join(uris)}")
    return StoredDocument(document.id, document.sha256, found[0].path, list(document.pages), tuple(uris),
                          document.status, document.error, document.updated_at)


def annotate_page(stored: StoredDocument, page_no: int, out: Path, dpi: int = 110) -> Path:
    """The page rendered with every stored block drawn on it, labels in the margins and a legend, as a PNG."""
    page_row = next((page for page in stored.pages if page.page_no == page_no), None)
    if page_row is None:
        raise ValueError(f"document {stored.document_id} has no stored page {page_no} "
                         f"(pages: 1-{len(stored.pages)})")
    with pymupdf.open(stored.pdf) as document:
        page = document[page_no - 1]
        for block in page_row.blocks:
            _draw_box(page, block)
        picture = page.get_pixmap(dpi=dpi)
        displayed = page.rect
    with pymupdf.open() as sheet:
        width, height = picture.width * 72 / dpi, picture.height * 72 / dpi  # the picture in points
        scale = width / displayed.width
        labels = {side: _stack(side_blocks, scale) for side, side_blocks in _sides(page_row.blocks, displayed).items()}
        bottom = max([height] + [top + LABEL_SIZE + 2 for placed in labels.values() for top, _ in placed])
        types = [kind for kind in COLOURS if any(block.type == kind for block in page_row.blocks)]
        canvas = sheet.new_page(width=width + 2 * MARGIN, height=bottom + _legend_height(types, width + 2 * MARGIN))
        frame = pymupdf.Rect(MARGIN, 0, MARGIN + width, height)
        canvas.insert_image(frame, pixmap=picture)
        canvas.draw_rect(frame, color=(0.75, 0.75, 0.75), width=0.5)
        for side, placed in labels.items():
            for top, block in placed:
                _draw_label(canvas, block, top, side, scale, width)
        _draw_legend(canvas, types, bottom)
        out.parent.mkdir(parents=True, exist_ok=True)
        canvas.get_pixmap(dpi=dpi).save(out)
    return out


def _draw_box(page: pymupdf.Page, block: Block) -> None:
    """The block's box; boxes are stored on the displayed page, PyMuPDF draws on the unrotated one."""
    colour = COLOURS.get(block.type, (0.0, 0.0, 0.0))
    rect = pymupdf.Rect(block.x0, block.y0, block.x1, block.y1)
    page.draw_rect(rect * page.derotation_matrix, color=colour, width=1.2,
                   dashes="[3 2] 0" if block.type == "formula" else None,
                   fill=colour if block.type == "table" else None, fill_opacity=0.12, overlay=True)


def _label(block: Block) -> str:
    if block.table is not None:  # the grid's size: cells have no boxes of their own
        return f"{block.reading_order} table {block.table.n_rows}x{block.table.n_cols}"
    return f"{block.reading_order} {block.type}"


def _sides(blocks: list[Block], displayed: pymupdf.Rect) -> dict[str, list[Block]]:
    """Blocks labelled in the left margin (their middle in the page's left half) and in the right one."""
    sides: dict[str, list[Block]] = {"left": [], "right": []}
    for block in blocks:
        sides["left" if (block.x0 + block.x1) / 2 <= displayed.width / 2 else "right"].append(block)
    return sides


def _stack(blocks: list[Block], scale: float) -> list[tuple[float, Block]]:
    """(top, block) of each label: at its block's top, moved down as little as needed not to cover the one above."""
    placed: list[tuple[float, Block]] = []
    below = 0.0
    for block in sorted(blocks, key=lambda b: (b.y0, b.reading_order)):
        top = max(block.y0 * scale, below)
        placed.append((top, block))
        below = top + LABEL_SIZE + 3
    return placed


def _draw_label(canvas: pymupdf.Page, block: Block, top: float, side: str, scale: float, width: float) -> None:
    """The label in its margin and a thin line from it to the box's near edge."""
    colour = COLOURS.get(block.type, (0.0, 0.0, 0.0))
    text = _label(block)
    text_width = min(pymupdf.get_text_length(text, fontname="helv", fontsize=LABEL_SIZE) + 3, MARGIN - 4)
    x0 = MARGIN - 2 - text_width if side == "left" else MARGIN + width + 2
    tag = pymupdf.Rect(x0, top, x0 + text_width, top + LABEL_SIZE + 2)
    canvas.draw_rect(tag, color=None, fill=colour)
    canvas.insert_text(pymupdf.Point(tag.x0 + 1.5, tag.y1 - 2), text, fontname="helv", fontsize=LABEL_SIZE,
                       color=(1, 1, 1))
    edge = MARGIN + (block.x0 if side == "left" else block.x1) * scale
    middle = (top + tag.y1) / 2
    anchor = pymupdf.Point(edge, min(max(middle, block.y0 * scale), block.y1 * scale))
    start = pymupdf.Point(tag.x1 if side == "left" else tag.x0, middle)
    canvas.draw_line(start, anchor, color=colour, width=0.6, stroke_opacity=0.7)


def _legend_entries(types: list[str]) -> list[tuple[str, str]]:
    """(type, legend text): tables filled, formulas dashed, the rest outlined."""
    notes = {"table": " (filled)", "formula": " (dashed)"}
    return [(kind, kind.replace("_", " ") + notes.get(kind, "")) for kind in types]


def _legend_rows(types: list[str], width: float) -> list[list[tuple[str, str, float]]]:
    """The legend's entries (type, text, width) laid out in rows that fit the sheet."""
    rows: list[list[tuple[str, str, float]]] = [[]]
    used = MARGIN
    for kind, text in _legend_entries(types):
        entry = 14 + pymupdf.get_text_length(text, fontname="helv", fontsize=LABEL_SIZE + 1) + 12
        if rows[-1] and used + entry > width - 8:
            rows.append([])
            used = MARGIN
        rows[-1].append((kind, text, entry))
        used += entry
    return rows


def _legend_height(types: list[str], width: float) -> float:
    return 8 + LEGEND_ROW * len(_legend_rows(types, width)) if types else 0.0


def _draw_legend(canvas: pymupdf.Page, types: list[str], top: float) -> None:
    """A row (or rows) of swatches, each drawn as its boxes are, with the type's name."""
    y = top + 6
    for row in _legend_rows(types, canvas.rect.width):
        x = MARGIN
        for kind, text, entry in row:
            colour = COLOURS[kind]
            swatch = pymupdf.Rect(x, y + 2, x + 10, y + 10)
            canvas.draw_rect(swatch, color=colour, width=1.2, dashes="[2 1] 0" if kind == "formula" else None,
                             fill=colour if kind == "table" else None, fill_opacity=0.3)
            canvas.insert_text(pymupdf.Point(x + 14, y + 9.5), text, fontname="helv", fontsize=LABEL_SIZE + 1,
                               color=(0.1, 0.1, 0.1))
            x += entry
        y += LEGEND_ROW
