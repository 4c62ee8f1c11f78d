"""A document's original PDF made searchable, as OCRmyPDF makes one: an invisible text layer (text render mode 3)
over every line folio read by OCR (or a VLM), each line at its stored box and stretched to its width, so that a
viewer's search and selection land on the words. Lines from a trusted text layer are not written again. The
original's bytes are kept as they are and the text added in an incremental update, where PyMuPDF can save one.
"""

import hashlib
import tempfile
from pathlib import Path
from typing import Any

import pymupdf

from folio.block_lines import block_lines
from sources.listing import uri_path

FONT = "helv"  # a base-14 font: nothing embedded
FONT_SHARE = 0.73  # of a line box's height set as the font size: Helvetica's box (ascender to descender) fills it
DESCENT = 0.28  # of the font size from the box's foot to the baseline


class SourceMissing(Exception):
    """The document's PDF is no longer where it was seen (or holds other bytes now)."""


def original_pdf(document: dict[str, Any]) -> bytes:
    """The bytes of the document's PDF, from the first place it was seen that still holds them."""
    uris = list(dict.fromkeys([document["source"], *document.get("sources", [])]))
    for uri in uris:
        try:
            data = _read(uri)
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == document["sha256"]:
            return data
    raise SourceMissing(f"{document['sha256'][:12]}: its PDF is no longer at {' or '.join(uris)} (moved, deleted or "
                        "changed since it was read)")


def _read(uri: str) -> bytes:
    if uri.startswith("s3://"):
        from botocore.exceptions import BotoCoreError, ClientError

        from sources.s3 import read_object

        try:
            return read_object(uri)
        except (BotoCoreError, ClientError) as error:
            raise OSError(str(error)) from error
    return uri_path(uri).read_bytes()


def ocr_lines(page: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's lines read by OCR, in reading order: on a page read from its text layer those with a confidence
    (images on it read by OCR), on one without every line (a VLM's blocks: their text over their boxes)."""
    return [line for block in page["blocks"] for line in block_lines(block)
            if (line["confidence"] is not None or not page["text_layer"]) and line["text"].strip()]


def searchable_pdf(export: dict[str, Any], original: bytes) -> bytes:
    """The original PDF with the document's OCR lines as invisible text; the original itself when it has none."""
    pages = [(page["page_no"], lines) for page in export["pages"] if (lines := ocr_lines(page))]
    if not pages:
        return original
    with tempfile.TemporaryDirectory(prefix="folio-pdf-") as folder:
        path = Path(folder) / "document.pdf"
        path.write_bytes(original)
        with pymupdf.open(path) as document:
            for page_no, lines in pages:
                page = document[page_no - 1]
                for line in lines:
                    _write_line(page, line["text"], line["bbox"])
            if document.can_save_incrementally():
                document.saveIncr()
                return path.read_bytes()
            return document.tobytes()


def _write_line(page: pymupdf.Page, text: str, bbox: list[float]) -> None:
    """One line as invisible text over its box (in the displayed page's coordinates), as wide as the box."""
    x0, y0, x1, y1 = bbox
    size = max(1.0, FONT_SHARE * (y1 - y0))
    length = pymupdf.get_text_length(text, fontname=FONT, fontsize=size)
    if length <= 0 or x1 <= x0:
        return
    baseline = pymupdf.Point(x0, y1 - DESCENT * size) * page.derotation_matrix
    stretch = pymupdf.Matrix((x1 - x0) / length, 1)  # along the line, in the displayed page's frame
    turn = pymupdf.Matrix(page.rotation)
    page.insert_text(baseline, text, fontsize=size, fontname=FONT, render_mode=3, rotate=page.rotation,
                     morph=(baseline, ~turn * stretch * turn))
