"""Decides whether a page's text layer can be trusted and, if so, takes its lines."""

import re
import unicodedata
from collections import Counter

from engine.types import Line, PageState

_MATH_FONT = re.compile(
    r"^(CM(MI|SY|EX|BSY|MIB)|LMMath|.*Math|StandardSym|Symbol|rsfs|eufm|eusm|MSAM|MSBM|stmary|wasy|esint|txsy|txex|"
    r"pxsy|pxex|MT(Extra|Symbol)|Euclid)",
    re.IGNORECASE,
)
_ROMAN_MATH_FONT = re.compile(r"^(CMR|CMBX|CMTI)\d", re.IGNORECASE)  # math roman when the body is not CM itself
MIN_CHARS = 10  # fewer visible characters than this: no text layer worth the name
MIN_READABLE = 0.8  # share of characters that are real text, not U+FFFD or private-use glyph codes


def readable_share(text: str) -> float:
    """Share of non-space characters that are assigned, printable, not replacement or private use."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    good = sum(1 for c in chars if c != "\ufffd" and unicodedata.category(c) not in ("Co", "Cn", "Cc", "Cs"))
    return good / len(chars)


def is_math_char(char: str) -> bool:
    """Operators, arrows, Greek and math alphanumerics: characters prose rarely uses."""
    code = ord(char)
    return (
        0x2200 <= code <= 0x22FF or 0x2A00 <= code <= 0x2AFF or 0x27C0 <= code <= 0x27EF or 0x2190 <= code <= 0x21FF
        or 0x1D400 <= code <= 0x1D7FF or 0x0391 <= code <= 0x03C9 or char in "∫∑∏√∞±×÷≤≥≠≈∂∇"
    )


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
    math = total = 0
    for span in line.spans:
        in_math_font = span.font != body_font and (
            _MATH_FONT.match(span.font) is not None or _ROMAN_MATH_FONT.match(span.font) is not None
        )
        for char in span.text:
            if char.isspace():
                continue
            total += 1
            math += in_math_font or is_math_char(char)
    line.math = math / total if total else 0.0
    return line
