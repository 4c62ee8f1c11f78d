"""A document's original PDF made searchable, as OCRmyPDF makes one: an invisible text layer (text render mode 3)
over every line folio read by OCR (or a VLM), each line at its stored box and stretched to its width, so that a
viewer's search and selection land on the words. Lines from a trusted text layer are not written again. The
original's bytes are kept as they are and the text added in an incremental update, where PyMuPDF can save one.

The text is set in a subset of Droid Sans Fallback, the Unicode font PyMuPDF ships ("cjk": Latin with its accents,
Greek, Cyrillic, mathematical symbols, CJK), cut by fontTools to the characters the document's text uses and embedded
once (a few kB): the base-14 fonts' single-byte encoding has no em dash, curly quote, "ł" or "ξ".
"""

import hashlib
import io
import tempfile
from pathlib import Path
from typing import Any

import pymupdf
from fontTools import subset
from fontTools.ttLib import TTFont

from folio.block_lines import block_lines
from sources.listing import uri_path

FONT = "folio-text"  # the embedded font's resource name


class SourceMissing(Exception):
    """The document's PDF is no longer where it was seen (or holds other bytes now)."""


def original_pdf(document: dict[str, Any]) -> bytes:
    """The bytes of the document's PDF, from the first place it was seen that still holds them."""
    uris = list(dict.fromkeys([document["source"], *document.get("sources", [])]))
    why = []
    for uri in uris:
        try:
            data = _read(uri)
        except OSError as error:
            why.append(error.strerror.lower() if error.strerror else str(error))
            continue
        if hashlib.sha256(data).hexdigest() == document["sha256"]:
            return data
        why.append("other bytes now")
    raise SourceMissing(f"{document['sha256'][:12]}: its PDF is no longer at "
                        + " or ".join(f"{uri} ({reason})" for uri, reason in zip(uris, why)))


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


def document_pdf(export: dict[str, Any]) -> bytes | None:
    """The document's original made searchable; None for a document that failed (nothing of it was read, and its
    file may be no PDF at all)."""
    if export["document"]["status"] == "failed":
        return None
    return searchable_pdf(export, original_pdf(export["document"]))


def searchable_pdf(export: dict[str, Any], original: bytes) -> bytes:
    """The original PDF with the document's OCR lines as invisible text; the original itself when it has none."""
    pages = [(page["page_no"], lines) for page in export["pages"] if (lines := ocr_lines(page))]
    if not pages:
        return original
    font = text_font("".join(line["text"] for _, lines in pages for line in lines))
    with tempfile.TemporaryDirectory(prefix="folio-pdf-") as folder:
        path = Path(folder) / "document.pdf"
        path.write_bytes(original)
        with pymupdf.open(path) as document:
            for page_no, lines in pages:
                page = document[page_no - 1]
                page.insert_font(fontname=FONT, fontbuffer=font.buffer)
                for line in lines:
                    _write_line(page, font, line["text"], line["bbox"])
            if document.can_save_incrementally():
                document.saveIncr()
                return path.read_bytes()
            return document.tobytes()


def text_font(text: str) -> pymupdf.Font:
    """PyMuPDF's Unicode font cut to the characters of `text` (and the space)."""
    full = TTFont(io.BytesIO(pymupdf.Font("cjk").buffer))
    cutter = subset.Subsetter(subset.Options(notdef_outline=True, name_IDs=["*"], recalc_bounds=True))
    cutter.populate(unicodes={ord(" "), *map(ord, text)})
    cutter.subset(full)
    buffer = io.BytesIO()
    full.save(buffer)
    return pymupdf.Font(fontbuffer=buffer.getvalue())


def _write_line(page: pymupdf.Page, font: pymupdf.Font, text: str, bbox: list[float]) -> None:
    """One line as invisible text over its box (in the displayed page's coordinates), as wide as the box: the font's
    ascender to descender fill the box's height."""
    x0, y0, x1, y1 = bbox
    size = max(1.0, (y1 - y0) / (font.ascender - font.descender))
    length = font.text_length(text, fontsize=size)
    if length <= 0 or x1 <= x0:
        return
    baseline = pymupdf.Point(x0, y1 + font.descender * size) * page.derotation_matrix
    stretch = pymupdf.Matrix((x1 - x0) / length, 1)  # along the line, in the displayed page's frame
    turn = pymupdf.Matrix(page.rotation)
    page.insert_text(baseline, text, fontsize=size, fontname=FONT, render_mode=3, rotate=page.rotation,
                     morph=(baseline, ~turn * stretch * turn))
