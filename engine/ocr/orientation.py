"""Which way up a scanned page lies, and which way a line of text running up or down the page reads.

A scan can lie on its side or upside down with nothing in the PDF saying so (no /Rotate: the image
itself is turned). The page's detected lines tell the axis: text set across a sideways page is
detected as boxes much taller than wide. PP-OCR's text-line direction classifier (shipped in the
rapidocr wheel) tells, for a line crop, whether it reads upright or upside down. Together: the longest
lines of the page's dominant axis are cut out as `crop_line` cuts them (a tall one turned a quarter
counter-clockwise), classified, and a weighted vote says how far to turn the page clockwise
(0, 90, 180 or 270 degrees) so that it reads upright.

The same classifier turns a single vertical line (an identifier running up the margin) the right way
before it is read.
"""

import math

import cv2
import numpy as np

from engine.ocr.detector import Detection, crop_line, normalize
from engine.ocr.models import CLS_HEIGHT, CLS_MAX_BATCH, CLS_WIDTH
from engine.runtime import OnnxModel

VERTICAL = 1.5  # crop_line turns a line this much taller than wide a quarter counter-clockwise
SIDE_TEXT = 3.0  # a line this much taller than wide is a run of text up or down the page, not a glyph or two
WINDOWS = 3  # pieces of one line the classifier looks at
SAMPLE = 12  # the longest lines of a page that vote on its orientation
UPSIDE_DOWN = 0.5  # a page whose voting lines are on (weighted) average more likely upside down is turned


def aspect(detection: Detection) -> float:
    """Height over width of the line's quadrilateral, measured as crop_line measures it."""
    quad = detection.quad
    width = max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[3] - quad[2]))
    height = max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2]))
    return float(height / max(width, 1e-6))


def is_side_text(detection: Detection) -> bool:
    """A line of several characters running up or down the page."""
    return aspect(detection) >= SIDE_TEXT


class LineDirection:
    """PP-OCR's text-line direction classifier: for each RGB line crop (read left to right), the probability
    that it is upside down."""

    def __init__(self, model: OnnxModel, max_batch: int = CLS_MAX_BATCH):
        self.model = model
        self.max_batch = max_batch

    def __call__(self, crops: list[np.ndarray]) -> list[float]:
        """The model squeezes its input to 48 x 192 pixels, which blurs a long line beyond telling; a line is
        classified in windows of that shape (up to WINDOWS, spread along it) and their answers averaged."""
        windows, owners = [], []
        for index, crop in enumerate(crops):
            for window in _windows(crop):
                windows.append(window)
                owners.append(index)
        upside = self._classify(windows)
        totals, counts = [0.0] * len(crops), [0] * len(crops)
        for index, p in zip(owners, upside):
            totals[index] += p
            counts[index] += 1
        return [total / max(count, 1) for total, count in zip(totals, counts)]

    def _classify(self, crops: list[np.ndarray]) -> list[float]:
        results: list[float] = []
        for start in range(0, len(crops), self.max_batch):
            chunk = crops[start:start + self.max_batch]
            batch = np.zeros((len(chunk), 3, CLS_HEIGHT, CLS_WIDTH), dtype=np.float32)
            for row, crop in enumerate(chunk):
                height, width = crop.shape[:2]
                resized_width = max(1, min(CLS_WIDTH, math.ceil(CLS_HEIGHT * width / max(height, 1))))
                resized = cv2.resize(crop, (resized_width, CLS_HEIGHT), interpolation=cv2.INTER_LINEAR)
                normalize(resized, batch[row, :, :, :resized_width])
            probs = self.model(batch)
            results.extend(float(p[1] / max(p[0] + p[1], 1e-6)) for p in probs)
        return results

    def page_turn(self, image: np.ndarray, detections: list[Detection]) -> int:
        """How far (clockwise degrees) to turn a page image so that it reads upright, from its detected lines."""
        tall = [d for d in detections if aspect(d) > VERTICAL]
        wide = [d for d in detections if aspect(d) < 1 / VERTICAL]
        if _length(tall) > _length(wide):  # the lines run up or down: a page on its side
            base, voters = 270, tall  # crop_line turns each a quarter counter-clockwise: 270 clockwise
        else:
            base, voters = 0, wide
        if not voters:
            return 0
        voters = sorted(voters, key=lambda d: -_long_side(d))[:SAMPLE]
        upside = self([crop_line(image, d.quad) for d in voters])
        weights = [_long_side(d) for d in voters]
        vote = sum(p * w for p, w in zip(upside, weights)) / sum(weights)
        return (base + 180) % 360 if vote > UPSIDE_DOWN else base

    def upright(self, crops: list[np.ndarray]) -> list[np.ndarray]:
        """The crops, each turned half a turn where the classifier finds it upside down."""
        return [np.ascontiguousarray(crop[::-1, ::-1]) if p > UPSIDE_DOWN else crop
                for crop, p in zip(crops, self(crops))]


def _windows(crop: np.ndarray) -> list[np.ndarray]:
    """Pieces of a line crop with the classifier's aspect ratio, spread evenly along it."""
    height, width = crop.shape[:2]
    size = max(1, round(height * CLS_WIDTH / CLS_HEIGHT))
    if width <= size:
        return [crop]
    starts = np.linspace(0, width - size, min(WINDOWS, math.ceil(width / size))).astype(int)
    return [crop[:, start:start + size] for start in starts]


def _long_side(detection: Detection) -> float:
    x0, y0, x1, y1 = detection.box
    return float(max(x1 - x0, y1 - y0))


def _length(detections: list[Detection]) -> float:
    return sum(_long_side(d) for d in detections)
