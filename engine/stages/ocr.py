"""OCR of pages without a usable text layer: render, detect lines, recognize them, all batched."""

import pymupdf

from engine.geometry import center_inside
from engine.mathiness import text_math_share
from engine.ocr.detector import Detection, TextDetector, crop_line
from engine.ocr.recognizer import TextRecognizer
from engine.render import render_page, render_scale
from engine.types import Line, PageState

BLANK_STD = 2.0  # a render whose grey levels vary less than this has nothing to read
MIN_CONFIDENCE = 0.5  # recognized lines below this are noise (specks, rules, stamps)
LINE_TO_FONT_SIZE = 0.7  # a detected line box is about this much taller than the font size


class PageRenderer:
    """Renders pages within a pixel budget, opening each PDF once per batch."""

    def __init__(self, dpi: int, max_pixels: int):
        self.dpi = dpi
        self.max_pixels = max_pixels

    def __call__(self, pages: list[PageState]) -> None:
        open_documents: dict[str, pymupdf.Document] = {}
        try:
            for page in pages:
                path = page.input.pdf_path
                if path not in open_documents:
                    open_documents[path] = pymupdf.open(path)
                pdf_page = open_documents[path][page.input.page_index]
                page.image_scale = render_scale(page.input.width, page.input.height, self.dpi, self.max_pixels)
                page.image = render_page(pdf_page, page.image_scale)
        finally:
            for document in open_documents.values():
                document.close()


class OcrStage:
    """Reads what the text-layer stage could not: whole pages, or image regions on a page."""

    def __init__(self, renderer: PageRenderer, detector: TextDetector, recognizer: TextRecognizer):
        self.renderer = renderer
        self.detector = detector
        self.recognizer = recognizer

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        todo = [page for page in pages if page.ocr_regions]
        if not todo:
            return pages
        self.renderer(todo)
        inked = [page for page in todo if float(page.image.std()) >= BLANK_STD]
        detections = self.detector([page.image for page in inked])
        crops, owners = [], []
        for page, found in zip(inked, detections):
            for detection in found:
                if _wanted(page, detection):
                    crops.append(crop_line(page.image, detection.quad))
                    owners.append((page, detection))
        for (text, confidence), (page, detection) in zip(self.recognizer(crops), owners):
            if text and confidence >= MIN_CONFIDENCE:
                page.lines.append(_line_in_points(text, confidence, detection, page.image_scale))
        return pages


def _in_points(detection: Detection, scale: float) -> tuple[float, float, float, float]:
    return tuple(float(v) / scale for v in detection.box)


def _wanted(page: PageState, detection: Detection) -> bool:
    """A detected line inside a region to read and not over text the layer already gives."""
    box = _in_points(detection, page.image_scale)
    return any(center_inside(box, region) for region in page.ocr_regions) and not any(
        center_inside(box, line.bbox) for line in page.lines
    )


def _line_in_points(text: str, confidence: float, detection: Detection, scale: float) -> Line:
    return Line(text=text, bbox=_in_points(detection, scale), size=LINE_TO_FONT_SIZE * detection.line_height / scale,
                confidence=confidence, math=text_math_share(text))
