"""Sample documents made with PyMuPDF: born-digital pages (one and two columns, a ruled table) and a scan.

The demo runs folio on them and the tests build their PDFs from the same pieces.
"""

import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pymupdf

A4 = pymupdf.paper_rect("a4")
MARGIN = 56.0
GUTTER = 18.0
BODY_FONT, BOLD_FONT = "Times-Roman", "Times-Bold"

PARAGRAPHS = [
    "The municipal archive received forty metres of records from the harbour office this year. "
    "Most of the files are ledgers and letters written between 1890 and 1935, and about a third "
    "had suffered water damage before they were transferred.",
    "Every box was listed on arrival, and the ledgers were cleaned, flattened and scanned at three "
    "hundred dots per inch. The letters will follow once the conservation studio has repaired the "
    "worst of the damaged folders.",
    "Readers asked most often for shipping registers, building permits and the minutes of the "
    "harbour board. Requests by post have fallen, while requests by electronic mail doubled.",
    "The reading room was closed for six weeks in spring while the ventilation was replaced. "
    "During the closure the staff completed the inventory of the photographic collection.",
    "Next year the archive will publish the harbour registers online, with full text search over "
    "the transcriptions made by volunteers, and will begin to digitize the land survey maps.",
]
TABLE = [
    ["Series", "Boxes", "Pages"],
    ["Harbour ledgers", "112", "38,400"],
    ["Building permits", "64", "21,950"],
    ["Board minutes", "27", "9,310"],
]


@dataclass
class PageSpec:
    """What one sample page shows."""

    title: str | None = None
    header: str = "Municipal Archive - Annual Report"
    columns: int = 1
    paragraphs: list[str] = field(default_factory=lambda: PARAGRAPHS[:3])
    table: list[list[str]] | None = None


def draw_page(document: pymupdf.Document, spec: PageSpec, page_no: int) -> pymupdf.Page:
    """Append a born-digital page drawn from `spec`."""
    page = document.new_page(width=A4.width, height=A4.height)
    page.insert_text((MARGIN, 36), spec.header, fontname=BODY_FONT, fontsize=8)
    page.insert_text((A4.width - MARGIN - 10, A4.height - 30), str(page_no), fontname=BODY_FONT, fontsize=9)
    top = 70.0
    if spec.title:
        page.insert_textbox(pymupdf.Rect(MARGIN, top, A4.width - MARGIN, top + 40), spec.title,
                            fontname=BOLD_FONT, fontsize=18, align=pymupdf.TEXT_ALIGN_CENTER)
        top += 50
    if spec.table:
        top = draw_table(page, spec.table, top) + 18
    width = (A4.width - 2 * MARGIN - GUTTER * (spec.columns - 1)) / spec.columns
    per_column = -(-len(spec.paragraphs) // spec.columns)
    for column in range(spec.columns):
        x0 = MARGIN + column * (width + GUTTER)
        y = top
        for text in spec.paragraphs[column * per_column:(column + 1) * per_column]:
            rect = pymupdf.Rect(x0, y, x0 + width, A4.height - 60)
            left = page.insert_textbox(rect, text, fontname=BODY_FONT, fontsize=10.5,
                                       align=pymupdf.TEXT_ALIGN_JUSTIFY)
            y = rect.y1 - left + 8  # insert_textbox returns the unused height of the rectangle
    return page


def draw_table(page: pymupdf.Page, rows: list[list[str]], top: float) -> float:
    """A ruled table with a header row; returns the y where it ends."""
    row_height, col_width = 18.0, 120.0
    x0 = (A4.width - col_width * len(rows[0])) / 2
    for r, row in enumerate(rows):
        y = top + r * row_height
        for c, text in enumerate(row):
            font = BOLD_FONT if r == 0 else BODY_FONT
            page.insert_text((x0 + c * col_width + 6, y + 13), text, fontname=font, fontsize=10)
    bottom = top + row_height * len(rows)
    right = x0 + col_width * len(rows[0])
    for y in (top, top + row_height, bottom):
        page.draw_line((x0, y), (right, y), width=0.8)
    return bottom


def born_digital_pdf(path: Path, specs: list[PageSpec]) -> Path:
    document = pymupdf.open()
    for number, spec in enumerate(specs, 1):
        draw_page(document, spec, number)
    _save(document, path)
    return path


def _save(document: pymupdf.Document, path: Path) -> None:
    """Saved with fixed metadata and no new file id, so the same pages give the same bytes."""
    document.set_metadata({"producer": "folio samples", "creationDate": "D:20260101000000Z",
                           "modDate": "D:20260101000000Z"})
    document.save(path, deflate=True, no_new_id=True)
    document.close()


def scanned_pdf(path: Path, specs: list[PageSpec], dpi: int = 150, seed: int = 7) -> Path:
    """The pages rendered to noisy grey images and saved as image-only pages: no text layer."""
    rng = random.Random(seed)
    source = pymupdf.open()
    for number, spec in enumerate(specs, 1):
        draw_page(source, spec, number)
    document = pymupdf.open()
    for page in source:
        pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        pixels = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width)
        noise = np.random.default_rng(rng.randrange(1 << 30)).normal(0, 6, pixels.shape)
        noisy = np.clip(pixels.astype(np.float32) * 0.92 + 12 + noise, 0, 255).astype(np.uint8)
        image = pymupdf.Pixmap(pymupdf.csGRAY, pixmap.width, pixmap.height, noisy.tobytes(), False)
        scan = document.new_page(width=page.rect.width, height=page.rect.height)
        scan.insert_image(scan.rect, pixmap=image)
    source.close()
    _save(document, path)
    return path


def sample_report_specs() -> list[PageSpec]:
    return [
        PageSpec(title="Annual Report of the Municipal Archive", columns=2, paragraphs=PARAGRAPHS[:4]),
        PageSpec(columns=1, paragraphs=PARAGRAPHS[3:], table=TABLE),
    ]


def write_samples(folder: Path) -> list[Path]:
    """The demo's sample folder: a two-page born-digital report and a one-page scan."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        born_digital_pdf(folder / "annual-report.pdf", sample_report_specs()),
        scanned_pdf(folder / "harbour-letter-scan.pdf",
                    [PageSpec(title="Letter to the Harbour Board", paragraphs=PARAGRAPHS[:2])]),
    ]
