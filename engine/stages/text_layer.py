"""Decides whether a page's text layer can be trusted and, if so, takes its lines."""

import unicodedata
from collections import Counter

from engine.mathiness import span_math_share
from engine.types import Line, PageState

MIN_CHARS = 10  # fewer visible characters than this: no text layer worth the name
MIN_READABLE = 0.8  # share of characters that are real text, not U+FFFD or private-use glyph codes


def readable_share(text: str) -> float:
    """Share of non-space characters that are assigned, printable, not replacement or private use."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    good = sum(1 for c in chars if c != "\ufffd" and unicodedata.category(c) not in ("Co", "Cn", "Cc", "Cs"))
    return good / len(chars)


class TextLayerStage:
    """Keeps the text layer of pages that have a readable one; the others go to OCR."""

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            lines = page.input.text_lines
            text = "".join(line.text for line in lines)
            visible = sum(1 for c in text if not c.isspace())
            page.use_text_layer = visible >= MIN_CHARS and readable_share(text) >= MIN_READABLE
            if page.use_text_layer:
                body_font = _body_font(lines)
                page.lines = [_with_math_share(line, body_font) for line in lines]
        return pages


def _body_font(lines: list[Line]) -> str:
    counts: Counter[str] = Counter()
    for line in lines:
        for span in line.spans:
            counts[span.font] += len(span.text)
    return counts.most_common(1)[0][0] if counts else ""


def _with_math_share(line: Line, body_font: str) -> Line:
    line.math = span_math_share(line.spans, body_font, line.size)
    return line
