"""Decides whether a page's text layer can be trusted and, if so, takes its lines."""

import unicodedata
from collections import Counter

from engine.geometry import area, center_inside
from engine.mathiness import span_math_share
from engine.orientation import turn_page
from engine.types import Line, PageState

MIN_CHARS = 10  # fewer visible characters than this: no text layer worth the name
MIN_READABLE = 0.8  # share of characters that are real text, not U+FFFD or private-use glyph codes
MIN_IMAGE_SHARE = 0.01  # an image this large (share of the page) with no text over it is read by OCR


def readable_share(text: str) -> float:
    """Share of non-space characters that are assigned, printable, not replacement or private use."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    good = sum(1 for c in chars if c != "\ufffd" and unicodedata.category(c) not in ("Co", "Cn", "Cc", "Cs"))
    return good / len(chars)


def trusted_layer(lines: list[Line]) -> bool:
    """Whether a page's text layer holds enough readable text to be taken as the page's text."""
    return _visible(lines) >= MIN_CHARS and readable_share(_text(lines)) >= MIN_READABLE


class TextLayerStage:
    """Keeps the text layer of pages that have a readable one and marks what OCR must read.

    A page without a usable layer is read by OCR whole; on a page with one, a large
    image that no text of the layer lies over (a pasted scan) is read by OCR too.
    A page whose layer reads sideways or upside down is turned upright (engine/orientation.py);
    the layer's lines that run across its reading direction are kept aside (`side_lines`).
    """

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            page.use_text_layer = trusted_layer(page.input.text_lines)
            if not page.use_text_layer:
                page.ocr_regions = [(0.0, 0.0, page.input.width, page.input.height)]
                continue
            turn_page(page, page.input.turn)  # a layer that reads sideways on the displayed page: work upright
            lines = page.input.text_lines
            page.side_lines = list(page.input.side_lines)
            body_font = _body_font(lines)
            page.lines = [_with_math_share(line, body_font) for line in lines]
            page_area = page.input.width * page.input.height
            for box in page.input.image_boxes:
                covered = [line for line in lines if center_inside(line.bbox, box)]
                if area(box) >= MIN_IMAGE_SHARE * page_area and _visible(covered) < MIN_CHARS:
                    page.ocr_regions.append(box)
        return pages


def _text(lines: list[Line]) -> str:
    return "".join(line.text for line in lines)


def _visible(lines: list[Line]) -> int:
    return sum(1 for c in _text(lines) if not c.isspace())




def _body_font(lines: list[Line]) -> str:
    counts: Counter[str] = Counter()
    for line in lines:
        for span in line.spans:
            counts[span.font] += len(span.text)
    return counts.most_common(1)[0][0] if counts else ""


def _with_math_share(line: Line, body_font: str) -> Line:
    line.math = span_math_share(line.spans, body_font, line.size)
    return line
