"""Pages for the VLM engine's tests, each of its own size (the test server tells pages apart by their image's
size), and the answers a model would give for them, written by hand in the models' published formats."""

import json
from pathlib import Path

import numpy as np
import pymupdf

from engine.types import PageInput
from engine.vlm.layout_json import model_size
from folio.samples import PARAGRAPHS, PageSpec, draw_page
from pages.pdf import open_pdf, page_graphics, page_input

HEIGHT = 792.0
LINES = ["The board met on Tuesday and read the letters of the month.", "No decision was taken on the quay."]
BOLD, BODY = "Times-Bold", "Times-Roman"
FRONT_MATTER = ("---\nprimary_language: en\nis_rotation_valid: True\nrotation_correction: 0\nis_table: False\n"
                "is_diagram: False\n---\n")


def _save(document: pymupdf.Document, path: Path) -> Path:
    document.set_metadata({"producer": "folio tests", "creationDate": "D:20260101000000Z",
                           "modDate": "D:20260101000000Z"})
    document.save(path, deflate=True, no_new_id=True)
    document.close()
    return path


def text_pdf(path: Path, width: float, lines: list[str]) -> Path:
    """A born-digital page of body lines, `width` points wide."""
    document = pymupdf.open()
    page = document.new_page(width=width, height=HEIGHT)
    for number, text in enumerate(lines):
        page.insert_text((60, 80 + 16 * number), text, fontname=BODY, fontsize=11)
    return _save(document, path)


def text_markdown(lines: list[str]) -> str:
    return FRONT_MATTER + " ".join(lines) + "\n"


LEDGER_TABLE = [("Series", "Volumes", ""), ("", "Boxes", "Pages"), ("Ledgers", "112", "38,400"),
                ("Letters", "64", "21,950")]


def ledger_pdf(path: Path, width: float = 570.0) -> Path:
    """A born-digital page with a title, a heading, paragraphs, a list, a table whose header spans two rows and two
    columns, and a display formula."""
    document = pymupdf.open()
    page = document.new_page(width=width, height=HEIGHT)
    page.insert_text((60, 70), "Harbour Office Accounts", fontname=BOLD, fontsize=18)
    page.insert_text((60, 105), "Receipts for 1901", fontname=BOLD, fontsize=13)
    page.insert_text((60, 130), "The harbour office kept its accounts in ledgers, one for each", fontname=BODY,
                     fontsize=11)
    page.insert_text((60, 144), "quarter, and closed them at the end of the year.", fontname=BODY, fontsize=11)
    page.insert_text((70, 170), "\u2022 Dues from shipping and pilotage", fontname=BODY, fontsize=11)
    page.insert_text((70, 186), "\u2022 Rents of the quays and warehouses", fontname=BODY, fontsize=11)
    for row, cells in enumerate(LEDGER_TABLE):
        y = 222 + 18 * row
        for col, text in enumerate(cells):
            if text:
                page.insert_text((80 + 120 * col, y), text, fontname=BOLD if row < 2 else BODY, fontsize=10)
        page.draw_line((70, y - 13), (440, y - 13), width=0.6)
    page.draw_line((70, 222 + 18 * 4 - 13), (440, 222 + 18 * 4 - 13), width=0.6)
    page.insert_text((230, 318), "a2 + b2 = c2", fontname=BODY, fontsize=12)
    page.insert_text((60, 350), "The accounts were audited every year by the city treasurer.", fontname=BODY,
                     fontsize=11)
    return _save(document, path)


LEDGER_MARKDOWN = FRONT_MATTER + """# Harbour Office Accounts

## Receipts for 1901

The harbour office kept its accounts in ledgers, one for each
quarter, and closed them at the end of the year.

- Dues from shipping and pilotage
- Rents of the quays and warehouses

<table>
<tr><th rowspan="2">Series</th><th colspan="2">Volumes</th></tr>
<tr><th>Boxes</th><th>Pages</th></tr>
<tr><td>Ledgers</td><td>112</td><td>38,400</td></tr>
<tr><td>Letters</td><td>64</td><td>21,950</td></tr>
</table>

\\[
a^{2} + b^{2} = c^{2}
\\]

The accounts were audited every year by the city treasurer.
"""


def ledger_layout_json(image_size: tuple[int, int], width: float = 570.0) -> str:
    """The ledger page as dots.ocr answers: boxes in pixels of the image as its processor resized it."""
    seen_width, seen_height = model_size(*image_size)
    scale = image_size[0] / width  # pixels per point of the image sent

    def box(x0: float, y0: float, x1: float, y1: float) -> list[int]:
        return [round(x0 * scale * seen_width / image_size[0]), round(y0 * scale * seen_height / image_size[1]),
                round(x1 * scale * seen_width / image_size[0]), round(y1 * scale * seen_height / image_size[1])]

    table = ('<table><tr><th rowspan="2">Series</th><th colspan="2">Volumes</th></tr><tr><th>Boxes</th>'
             '<th>Pages</th></tr><tr><td>Ledgers</td><td>112</td><td>38,400</td></tr><tr><td>Letters</td>'
             '<td>64</td><td>21,950</td></tr></table>')
    return json.dumps([
        {"bbox": box(58, 54, 270, 75), "category": "Title", "text": "# Harbour Office Accounts"},
        {"bbox": box(58, 93, 170, 108), "category": "Section-header", "text": "## Receipts for 1901"},
        {"bbox": box(58, 120, 380, 148), "category": "Text",
         "text": "The harbour office kept its accounts in ledgers, one for each quarter, and closed them at the end "
                 "of the year."},
        {"bbox": box(68, 160, 260, 174), "category": "List-item", "text": "\u2022 Dues from shipping and pilotage"},
        {"bbox": box(68, 176, 270, 190), "category": "List-item", "text": "\u2022 Rents of the quays and warehouses"},
        {"bbox": box(70, 209, 440, 281), "category": "Table", "text": table},
        {"bbox": box(228, 305, 300, 322), "category": "Formula", "text": "$$a^{2} + b^{2} = c^{2}$$"},
        {"bbox": box(58, 340, 380, 354), "category": "Text",
         "text": "The accounts were audited every year by the city treasurer."},
    ])


LEDGER_BOXES = [(58, 54, 270, 75), (58, 93, 170, 108), (58, 120, 380, 148), (68, 160, 260, 174), (68, 176, 270, 190),
                (70, 209, 440, 281), (228, 305, 300, 322), (58, 340, 380, 354)]  # each block's, in points


def ledger_grounded_markdown(width: float = 570.0) -> str:
    """The ledger page as DeepSeek-OCR answers: each element's type and box (normalised to 0-999 of the page), then
    its Markdown; the paragraph's box given as two, one a line, as the model sometimes does."""
    def det(x0: float, y0: float, x1: float, y1: float) -> str:
        return f"[{round(x0 / width * 999)}, {round(y0 / HEIGHT * 999)}, {round(x1 / width * 999)}, " \
               f"{round(y1 / HEIGHT * 999)}]"

    def element(kind: str, boxes: list[tuple[float, ...]], content: str) -> str:
        return f"<|ref|>{kind}<|/ref|><|det|>[{', '.join(det(*box) for box in boxes)}]<|/det|>\n{content}\n\n"

    title, heading, paragraph, first, second, table, formula, closing = LEDGER_BOXES
    return "".join([
        element("title", [title], "# Harbour Office Accounts"),
        element("sub_title", [heading], "## Receipts for 1901"),
        element("text", [(58, 120, 380, 134), (58, 134, 380, 148)],
                "The harbour office kept its accounts in ledgers, one for each\nquarter, and closed them at the end of "
                "the year."),
        element("text", [first], "- Dues from shipping and pilotage"),
        element("text", [second], "- Rents of the quays and warehouses"),
        element("table", [table], '<table><tr><td rowspan="2">Series</td><td colspan="2">Volumes</td></tr><tr>'
                '<td>Boxes</td><td>Pages</td></tr><tr><td>Ledgers</td><td>112</td><td>38,400</td></tr><tr>'
                '<td>Letters</td><td>64</td><td>21,950</td></tr></table>'),
        element("equation", [formula], "\\[\na^{2} + b^{2} = c^{2}\n\\]"),
        element("text", [closing], "The accounts were audited every year by the city treasurer."),
    ])


def scanned_copy(pdf: Path, path: Path, dpi: int = 150) -> Path:
    """The PDF's first page as a scan: an image of it on a page of the same size, no text layer."""
    with pymupdf.open(pdf) as source:
        pixmap = source[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        document = pymupdf.open()
        page = document.new_page(width=source[0].rect.width, height=source[0].rect.height)
        page.insert_image(page.rect, pixmap=pixmap)
    return _save(document, path)


LETTER = PageSpec(title="Letter to the Harbour Board", paragraphs=PARAGRAPHS[:2])
LETTER_MARKDOWN = FRONT_MATTER + "# Letter to the Harbour Board\n\n" + "\n\n".join(PARAGRAPHS[:2]) + "\n"
ASKS_TO_TURN = ("---\nprimary_language: en\nis_rotation_valid: False\nrotation_correction: 90\nis_table: False\n"
                "is_diagram: False\n---\n")


def turned_scan_pdf(path: Path, dpi: int = 150) -> Path:
    """A scanned letter (no text layer) inserted lying on its side: its top at the right-hand edge."""
    source = pymupdf.open()
    draw_page(source, LETTER, 1)
    pixmap = source[0].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    pixels = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width)
    turned = np.ascontiguousarray(np.rot90(pixels, k=-1))  # clockwise
    image = pymupdf.Pixmap(pymupdf.csGRAY, turned.shape[1], turned.shape[0], turned.tobytes(), False)
    document = pymupdf.open()
    page = document.new_page(width=source[0].rect.height, height=source[0].rect.width)
    page.insert_image(page.rect, pixmap=image)
    source.close()
    return _save(document, path)


def page_inputs(pdf: Path, document_id: int = 1) -> list[PageInput]:
    """The engine's inputs for every page of the PDF, as the parse task makes them."""
    document = open_pdf(pdf)
    try:
        return [page_input(page, f"{document_id}:{number}", pdf, page_graphics(page))
                for number, page in enumerate(document, 1)]
    finally:
        document.close()
