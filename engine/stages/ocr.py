"""OCR of pages without a usable text layer: render, detect lines, recognize them, all batched.

A whole page OCR'd whose text fails the trust measure (engine/ocr/trust.py: a script the
recognizer's dictionary lacks) is read again by the script fallback (Tesseract); if that cannot
read it either, the page gets no OCR text and says why in `untrusted`.

A page is read upright: a page turned by the text-layer stage is rendered turned the same way, and a
whole page to OCR (a scan that may lie on its side or upside down, with no /Rotate to say so) is turned
the way its detected lines say (engine/ocr/orientation.py) and detected again. Lines running up or down
an upright page are turned the way the direction classifier says and read; in a side margin (an
identifier up the margin) they are kept out of the body (`side_lines`), elsewhere (a table's turned
column heads) they stay where they are.
"""

import logging

import numpy as np

from engine.geometry import beside, center_inside
from engine.ink import blank
from engine.mathiness import text_math_share
from engine.ocr.detector import Detection, TextDetector, crop_line, split_at_gaps
from engine.ocr.fallback import ScriptFallback
from engine.ocr.lookalikes import dashes_read_as_one
from engine.ocr.orientation import VERTICAL, LineDirection, aspect, is_side_text
from engine.ocr.trust import MIN_CONFIDENCE, Trust, measure
from engine.ocr.two_pass import LineReader
from engine.ocr.word_boxes import ocr_words
from engine.orientation import turn_page
from engine.page_source import PageRenderer
from engine.types import Line, PageState

SMALL_LINE = 20  # pixels: a line the detector finds shorter than this is small type at the page's resolution
SMALL_SHARE, MIN_SMALL_LINES = 0.25, 6  # a page with this share and number of small lines is read sharper
TARGET_LINE = 28  # pixels: how tall the small lines' median is made, at most SHARPER times as tall as it was
SHARPER = 2.0
BLANK_STRIDE = 4  # a render is judged blank (nothing to read) on every 4th row and column
LINE_TO_FONT_SIZE = 0.7  # a detected line box is about this much taller than the font size

log = logging.getLogger(__name__)


class OcrStage:
    """Reads what the text-layer stage could not: whole pages, or image regions on a page."""

    def __init__(self, renderer: PageRenderer, detector: TextDetector, recognizer: LineReader,
                 fallback: ScriptFallback | None = None, direction: LineDirection | None = None):
        self.renderer = renderer
        self.detector = detector
        self.recognizer = recognizer
        self.fallback = fallback or ScriptFallback(None)
        self.direction = direction  # None: pages are read the way they lie

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        todo = [page for page in pages if page.ocr_regions]
        if not todo:
            return pages
        self.renderer(todo)
        inked = [page for page in todo if not blank(page.image, BLANK_STRIDE)]
        detections = self._upright(inked, self.detector([page.image for page in inked]))
        detections = self._small_text_sharper(inked, detections)
        crops, owners = [], []
        for page, found in zip(inked, detections):
            for detection in split_at_gaps(page.image, found):
                if _wanted(page, detection):
                    crops.append(crop_line(page.image, detection.quad))
                    owners.append((page, detection))
        crops = self._side_text_upright(crops, [detection for _, detection in owners])
        crop_of = {id(detection): crop for (_, detection), crop in zip(owners, crops)}
        readings: dict[int, list[tuple[str, float, Detection]]] = {id(page): [] for page in inked}
        upright: dict[int, list] = {id(page): [] for page in inked}
        for (text, confidence), (page, detection), crop in zip(self.recognizer(crops), owners, crops):
            readings[id(page)].append((text, confidence, detection))
            if not is_side_text(detection):
                upright[id(page)].append(crop)
        for page in inked:
            found = [reading for reading in readings[id(page)] if not is_side_text(reading[2])]
            side = [reading for reading in readings[id(page)] if is_side_text(reading[2])]
            trust = measure((text, confidence, detection.box) for text, confidence, detection in found)
            if not page.use_text_layer and not trust.trusted:  # judged on whole pages only, not on pictures
                found = self._read_again(page, trust, found, upright[id(page)])
                side = []
            texts = dashes_read_as_one([text for text, _, _ in found])
            found = [(text, confidence, detection) for text, (_, confidence, detection) in zip(texts, found)]
            lines = [_line_in_points(text, confidence, detection, page.image_scale, crop_of[id(detection)])
                     for text, confidence, detection in found if text and confidence >= MIN_CONFIDENCE]
            across = [_line_in_points(text, confidence, detection, page.image_scale, crop_of[id(detection)])
                      for text, confidence, detection in side if text and confidence >= MIN_CONFIDENCE]
            if self.direction is None:  # without the classifier half of them would read upside down
                across = []
            # in a side margin: kept out of the body; elsewhere (a table's turned column heads) read where it is
            margin = [line for line in across if beside(line.bbox, [other.bbox for other in lines + page.lines])]
            page.lines.extend(lines + [line for line in across if line not in margin])
            page.side_lines.extend(margin)
        return pages

    def _upright(self, pages: list[PageState], detections: list[list[Detection]]) -> list[list[Detection]]:
        """Each whole page to OCR turned so that it reads upright, and its lines detected again if it was turned
        (an image on a page read from its text layer lies as the page does)."""
        if self.direction is None:
            return detections
        turned = []
        for index, (page, found) in enumerate(zip(pages, detections)):
            if not page.use_text_layer and (turn := self.direction.page_turn(page.image, found)):
                log.info("page %s: the scan lies turned; read it turned %d degrees clockwise", page.input.key, turn)
                turn_page(page, turn)
                turned.append(index)
        for index, found in zip(turned, self.detector([pages[index].image for index in turned])):
            detections[index] = found
        return detections

    def _small_text_sharper(self, pages: list[PageState], detections: list[list[Detection]]
                            ) -> list[list[Detection]]:
        """Each page whose lines to read are mostly small type (a table set in five-point type: a decimal point is a
        pixel at 150 dpi) rendered again, its small lines' median TARGET_LINE pixels tall but no sharper than its
        largest image (a 150-dpi scan made larger shows nothing more, and its rules blur), and detected again."""
        again = []
        for index, (page, found) in enumerate(zip(pages, detections)):
            wanted = [detection for detection in found if _wanted(page, detection)]
            small = sorted(detection.line_height for detection in wanted
                           if detection.line_height < SMALL_LINE and not is_side_text(detection))
            if len(small) < max(MIN_SMALL_LINES, SMALL_SHARE * len(wanted)):
                continue
            sharpest = SHARPER if page.input.image_dpi is None else page.input.image_dpi / (72 * page.image_scale)
            if self.renderer.sharpen(page, min(SHARPER, sharpest, TARGET_LINE / small[len(small) // 2])):
                log.info("page %s: %d of %d lines under %d pixels; read at %.0f dpi", page.input.key, len(small),
                         len(wanted), SMALL_LINE, 72 * page.image_scale)
                again.append(index)
        for index, found in zip(again, self.detector([pages[index].image for index in again])):
            detections[index] = found
        return detections

    def _side_text_upright(self, crops: list, detections: list[Detection]) -> list:
        """Crops of lines running up or down the page (those crop_line turned), each turned to read upright."""
        side = [index for index, detection in enumerate(detections) if aspect(detection) > VERTICAL]
        if self.direction is None or not side:
            return crops
        for index, crop in zip(side, self.direction.upright([crops[index] for index in side])):
            crops[index] = crop
        return crops

    def _read_again(self, page: PageState, trust: Trust, found: list[tuple[str, float, Detection]],
                    crops: list) -> list[tuple[str, float, Detection]]:
        """The page's detected lines as the script fallback reads them; none when it cannot (`untrusted` says why)."""
        detections = [detection for _, _, detection in found]
        reading = self.fallback(page.image, round(72 * page.image_scale), trust, crops,
                                [detection.box for detection in detections])
        if reading.reason is not None:
            log.info("page %s: %s", page.input.key, reading.reason)
            page.untrusted = reading.reason
            return []
        log.info("page %s: PP-OCR text untrusted (%s); read with Tesseract %s (%s)", page.input.key,
                 trust.describe(), reading.language, reading.trust.describe())
        page.fallback_ocr = reading.language
        return [(text, confidence, detection) for (text, confidence), detection in zip(reading.readings, detections)]


def _in_points(detection: Detection, scale: float) -> tuple[float, float, float, float]:
    return tuple(float(v) / scale for v in detection.box)


def _wanted(page: PageState, detection: Detection) -> bool:
    """A detected line inside a region to read and not over text the layer already gives."""
    box = _in_points(detection, page.image_scale)
    return any(center_inside(box, region) for region in page.ocr_regions) and not any(
        center_inside(box, line.bbox) for line in page.lines
    )


def _line_in_points(text: str, confidence: float, detection: Detection, scale: float, crop: np.ndarray) -> Line:
    """The line read from `crop` in points, with its words where its ink puts them."""
    bbox = _in_points(detection, scale)
    return Line(text=text, bbox=bbox, size=LINE_TO_FONT_SIZE * detection.line_height / scale,
                confidence=confidence, math=text_math_share(text),
                words=ocr_words(text, crop, detection, scale, bbox))
