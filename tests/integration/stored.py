"""A document stored as the flow would store it, written directly: every block type the outputs treat apart,
known text, no engine run. Its PDF holds the same words, so that pictures and reports can be drawn."""

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pymupdf
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from db.models import Block, Document, DocumentSource, Formula, Page, PageTable, TableCell
from engine import ENGINE_VERSION

LATEX = r"E = m c^{2} + \frac{a}{b}"
BLOCKS = [  # (type, box, text) in reading order; page 1 of 2
    ("header", (72, 30, 300, 42), "Harbour Board - Minutes 1931"),
    ("title", (72, 60, 520, 84), "Minutes of the Harbour Board"),
    ("text", (72, 100, 520, 140), "The board met on the 3rd of March.\n# of members present: 9."),
    ("list_item", (90, 150, 520, 164), "• Dredging of the inner basin"),
    ("list_item", (90, 168, 520, 182), "• Lighthouse repairs"),
    ("title", (72, 200, 520, 220), "Tonnage"),
    ("table", (72, 230, 520, 300), "Year Ships 1930 412 1931 398"),
    ("formula", (200, 320, 400, 350), "E = mc2 + a/b"),
    ("figure", (72, 370, 300, 500), ""),
    ("caption", (72, 505, 300, 520), "Figure 1: the inner basin"),
    ("page_number", (290, 800, 310, 812), "1"),
]
TABLE = [["Year", "Ships"], ["1930", "412"], ["1931", "398"]]


@dataclass(frozen=True)
class StoredSample:
    document_id: int
    sha256: str
    pdf: Path


def sample_pdf(path: Path) -> Path:
    """Two A4 pages with the blocks' words where their boxes are; the second page is left unread."""
    with pymupdf.open() as document:
        page = document.new_page(width=595, height=842)
        for kind, box, text in BLOCKS:
            if kind == "figure":
                page.draw_rect(pymupdf.Rect(box), color=(0.3, 0.3, 0.3), fill=(0.85, 0.85, 0.85))
            for line_no, line in enumerate(text.replace("•", "-").splitlines()):
                page.insert_text((box[0] + 1, box[1] + 9 + 11 * line_no), line, fontsize=9)
        document.new_page(width=595, height=842).insert_text((72, 100), "A torn page", fontsize=12)
        path.parent.mkdir(parents=True, exist_ok=True)
        document.save(path)
    return path


def store_sample(database: Engine, folder: Path, name: str = "minutes-1931.pdf") -> StoredSample:
    """The sample PDF written under folder and stored as a quarantined document: page 1 done, page 2 quarantined."""
    pdf = sample_pdf(folder / name)
    data = pdf.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    with Session(database) as session, session.begin():
        document = Document(sha256=sha256, status="quarantined", page_count=2, size_bytes=len(data),
                            first_source=str(pdf), metadata_={},
                            error="1 of 2 pages quarantined by validation")
        document.sources.append(DocumentSource(uri=str(pdf), size_bytes=len(data)))
        first = Page(page_no=1, width=595, height=842, text_layer=True, status="done", engine_version=ENGINE_VERSION)
        for order, (kind, box, text) in enumerate(BLOCKS):
            block = Block(reading_order=order, type=kind, x0=box[0], y0=box[1], x1=box[2], y1=box[3], text=text)
            if kind == "table":
                html = "<table>" + "".join(
                    "<tr>" + "".join(f"<{'th' if r == 0 else 'td'}>{cell}</{'th' if r == 0 else 'td'}>"
                                     for cell in row) + "</tr>" for r, row in enumerate(TABLE)) + "</table>"
                block.table = PageTable(n_rows=3, n_cols=2, html=html, cells=[
                    TableCell(row=r, col=c, text=cell, is_header=r == 0)
                    for r, row in enumerate(TABLE) for c, cell in enumerate(row)])
            if kind == "formula":
                block.formula = Formula(latex=LATEX, display=True)
            first.blocks.append(block)
        second = Page(page_no=2, width=595, height=842, text_layer=True, status="quarantined",
                      error="every block failed validation", engine_version=ENGINE_VERSION)
        document.pages.extend([first, second])
        session.add(document)
        session.flush()
        document_id = document.id
    return StoredSample(document_id, sha256, pdf)
