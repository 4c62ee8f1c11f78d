"""Checks each suspect text layer (engine/layer_trust.py) against OCR of some of its lines.

The text-layer stage keeps a suspect layer (fonts without a character map, punctuation runs, words not
shaped like words) until this stage has read a sample of its lines from the rendered page: where OCR
reads the same text, the layer is used; where it contradicts it (glyph soup), the layer is dropped and
the page is read by OCR whole, like a scan. The measure and the verdict stay on the page.
"""

import logging

import numpy as np

from engine.layer_trust import Verdict, agreement
from engine.ocr.two_pass import LineReader
from engine.orientation import turn_page
from engine.page_source import PageRenderer
from engine.types import Line, PageState

MAX_LINES = 12  # lines read per page: enough to tell soup from text, a fraction of a page's OCR
MIN_LINE_CHARS = 4  # shorter lines (numbers, labels) say little
MAX_MATH = 0.5  # share of math in a line of prose
MIN_PROSE_LINES = 3  # fewer lines of prose than this: the page is checked on all its lines
PAD = 0.2  # of the line's height, around its box

log = logging.getLogger(__name__)


class LayerCheckStage:
    """Reads sampled lines of suspect layers with OCR and keeps or drops each layer by how well they agree."""

    def __init__(self, renderer: PageRenderer, recognizer: LineReader):
        self.renderer = renderer
        self.recognizer = recognizer

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        suspect = [page for page in pages if page.layer_trust is not None
                   and page.layer_trust.verdict is Verdict.SUSPECT]
        if not suspect:
            return pages
        self.renderer(suspect)
        samples = {id(page): sampled_lines(page.lines) for page in suspect}
        crops = [line_crop(page.image, line.bbox, page.image_scale) for page in suspect for line in samples[id(page)]]
        readings = iter(self.recognizer(crops))
        for page in suspect:
            layer = [line.text for line in samples[id(page)]]
            read = [next(readings)[0] for _ in layer]
            page.layer_trust = page.layer_trust.checked(agreement(layer, read))
            log.info("page %s: text layer %s", page.input.key, page.layer_trust.describe())
            if page.layer_trust.verdict is Verdict.UNTRUSTED:
                read_as_scan(page)
        return pages


def sampled_lines(lines: list[Line]) -> list[Line]:
    """Up to MAX_LINES of the page's lines with some text, spread over the page; lines of prose where there are
    enough of them (OCR reads math symbols poorly, so they would make a good layer look contradicted)."""
    candidates = [line for line in lines if len("".join(line.text.split())) >= MIN_LINE_CHARS
                  and line.width >= line.height]
    prose = [line for line in candidates if line.math < MAX_MATH]
    candidates = prose if len(prose) >= MIN_PROSE_LINES else candidates
    step = max(1, len(candidates) / MAX_LINES)
    return [candidates[int(index * step)] for index in range(min(MAX_LINES, len(candidates)))]


def line_crop(image: np.ndarray, bbox: tuple[float, float, float, float], scale: float) -> np.ndarray:
    """The pixels of a line's box, with a margin, from a page rendered at `scale` pixels per point."""
    x0, y0, x1, y1 = (value * scale for value in bbox)
    pad = PAD * (y1 - y0)
    height, width = image.shape[:2]
    left, top = max(0, int(x0 - pad)), max(0, int(y0 - pad))
    right, bottom = min(width, int(np.ceil(x1 + pad))), min(height, int(np.ceil(y1 + pad)))
    return image[top:max(bottom, top + 1), left:max(right, left + 1)]


def read_as_scan(page: PageState) -> None:
    """Drops the page's text layer: back in the displayed frame, with nothing but the whole page to read."""
    turn_page(page, -page.turn)
    page.use_text_layer = False
    page.lines, page.side_lines = [], []
    page.ocr_regions = [(0.0, 0.0, page.input.width, page.input.height)]
