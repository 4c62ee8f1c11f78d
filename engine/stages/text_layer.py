"""Decides whether a page's text layer can be trusted (engine/layer_trust.py) and, if so, takes its lines."""

from collections import Counter

from engine.geometry import area, center_inside
from engine.layer_trust import MIN_CHARS, Verdict, garbled, measure_layer
from engine.mathiness import span_math_share
from engine.orientation import turn_page
from engine.types import BBox, Line, PageState

MIN_IMAGE_SHARE = 0.01  # an image this large (share of the page) with no text over it is read by OCR


class TextLayerStage:
    """Keeps the text layer of pages that have a readable one and marks what OCR must read.

    A page without a usable layer is read by OCR whole; a suspect one is kept until the OCR stage has
    checked it against its reading of some of its lines (`page.layer_trust` holds the measures). On a page
    with a layer, a large image that no text of the layer lies over (a pasted scan) is read by OCR too, and
    so is a line of mojibake in an otherwise readable layer (a font whose map to Unicode is wrong).
    A page whose layer reads sideways or upside down is turned upright (engine/orientation.py);
    the layer's lines that run across its reading direction are kept aside (`side_lines`).
    """

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            page.layer_trust = measure_layer(page.input.text_lines)
            page.use_text_layer = page.layer_trust.verdict is not Verdict.UNTRUSTED
            if not page.use_text_layer:
                page.ocr_regions = [(0.0, 0.0, page.input.width, page.input.height)]
                continue
            turn_page(page, page.input.turn)  # a layer that reads sideways on the displayed page: work upright
            lines = page.input.text_lines
            page.side_lines = list(page.input.side_lines)
            body_font = _body_font(lines)
            mojibake = [garbled(line.text) for line in lines]
            page.lines = [_with_math_share(line, body_font) for line, bad in zip(lines, mojibake) if not bad]
            page.ocr_regions += [_around(line.bbox) for line, bad in zip(lines, mojibake) if bad]
            page_area = page.input.width * page.input.height
            for box in page.input.image_boxes:
                covered = [line for line in lines if center_inside(line.bbox, box)]
                if area(box) >= MIN_IMAGE_SHARE * page_area and _visible(covered) < MIN_CHARS:
                    page.ocr_regions.append(box)
        return pages


def _around(box: BBox) -> BBox:
    """A line's box with room for OCR's detection of it, which may reach a little further."""
    pad = 0.25 * (box[3] - box[1])
    return box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad


def _visible(lines: list[Line]) -> int:
    return sum(1 for line in lines for c in line.text if not c.isspace())


def _body_font(lines: list[Line]) -> str:
    counts: Counter[str] = Counter()
    for line in lines:
        for span in line.spans:
            counts[span.font] += len(span.text)
    return counts.most_common(1)[0][0] if counts else ""


def _with_math_share(line: Line, body_font: str) -> Line:
    line.math = span_math_share(line.spans, body_font, line.size)
    return line
