"""Text-line detection: DB probability maps from PP-OCR det, turned into line boxes."""

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.ocr.models import DET_MAX_BATCH, DET_MAX_SIDE, DET_PROFILE
from engine.runtime import OnnxModel, load_onnx_model
from engine.runtime.select import runs_on_cpu

PixelBox = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels of the page image
TEXT_INSET = 0.15  # share of the grown line height between the crop's edge and the ink
SPLIT_GAP = 1.0  # line heights of blank that part a detected line into two table cells (a word space, even in a
# monospaced listing, is under half of one)
MAX_SLANT = 0.05  # a line whose top edge climbs more than this share of its length is not split


@dataclass(frozen=True)
class Detection:
    """A text line: its (possibly slightly rotated) quadrilateral, upright bounding box and score."""

    quad: np.ndarray  # 4x2 float32, clockwise from top-left, in page-image pixels
    box: PixelBox
    line_height: float  # the quad's short side, in pixels
    score: float


def load_text_detector(path: Path, device: str, cache_dir: Path | None, threads: int = 0,
                       bf16: bool = False) -> "TextDetector":
    """The detector on the runtime `device` allows: on CPU OpenVINO compiled for each page size (15-20 % less CPU
    than ONNX Runtime for the same lines, and a smaller peak), in bfloat16 where `bf16` and the CPU computes it
    (half the CPU a page; the lines within a pixel or two of float32's, the bench's text and tables alike), else
    float32; without OpenVINO, ONNX Runtime without its arena (inputs are whole pages of many sizes, whose buffers
    it would keep)."""
    return TextDetector(load_onnx_model(path, device, DET_PROFILE, cache_dir, threads, arena=False,
                                        openvino="bf16" if bf16 else "f32"))


class TextDetector:
    """Finds text lines on page images; images of the same size run as one batch (on a GPU: on CPU a batch of
    pages gains nothing, so `max_batch` defaults to one there)."""

    def __init__(self, model: OnnxModel, max_side: int = DET_MAX_SIDE, max_batch: int | None = None,
                 threshold: float = 0.3, box_threshold: float = 0.5, unclip_ratio: float = 1.6,
                 min_height: int = 6):
        self.model = model
        self.max_side = max_side
        self.max_batch = max_batch or (1 if runs_on_cpu(model) else DET_MAX_BATCH)
        self.threshold = threshold
        self.box_threshold = box_threshold
        self.unclip_ratio = unclip_ratio
        self.min_height = min_height

    def __call__(self, images: list[np.ndarray]) -> list[list[Detection]]:
        """For each RGB image, its text lines in that image's pixels."""
        results: list[list[Detection]] = [[] for _ in images]
        by_shape: dict[tuple[int, int], list[int]] = defaultdict(list)
        for index, image in enumerate(images):
            by_shape[image.shape[:2]].append(index)
        for (height, width), indices in by_shape.items():
            in_h, in_w = self._input_size(height, width)
            for start in range(0, len(indices), self.max_batch):
                chunk = indices[start:start + self.max_batch]
                batch = np.empty((len(chunk), 3, in_h, in_w), np.float32)
                for row, i in enumerate(chunk):
                    normalize(cv2.resize(images[i], (in_w, in_h)), batch[row])
                maps = self.model(batch)[:, 0]
                for i, prob in zip(chunk, maps):
                    results[i] = self._boxes(prob, width / in_w, height / in_h, width, height)
        return results

    def _input_size(self, height: int, width: int) -> tuple[int, int]:
        scale = min(1.0, self.max_side / max(height, width))
        return (max(32, int(round(height * scale / 32)) * 32), max(32, int(round(width * scale / 32)) * 32))

    def _boxes(self, prob: np.ndarray, sx: float, sy: float, width: int, height: int) -> list[Detection]:
        mask = (prob > self.threshold).astype(np.uint8)
        mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        found = []
        for contour in contours:
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            if min(w, h) < 3:
                continue
            x, y, bw, bh = cv2.boundingRect(contour)
            score = float(prob[y:y + bh, x:x + bw][mask[y:y + bh, x:x + bw] > 0].mean())
            if score < self.box_threshold:
                continue
            grow = w * h * self.unclip_ratio / (w + h)  # DB's unclip distance for a rectangle, on both sides
            quad = cv2.boxPoints(((cx, cy), (w + grow, h + grow), angle)) * np.array([sx, sy], dtype=np.float32)
            quad = _clockwise_from_top_left(quad)
            line_height = float(min(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[0] - quad[1])))
            inset = TEXT_INSET * line_height  # the grown quad has margins around the ink; the box does not
            x0, y0 = np.clip(quad.min(axis=0) + inset, 0, [width, height])
            x1, y1 = np.clip(quad.max(axis=0) - inset, 0, [width, height])
            if line_height >= self.min_height and x1 > x0 and y1 > y0:
                found.append(Detection(quad, (int(x0), int(y0), int(x1), int(y1)), line_height, score))
        return found


def split_at_gaps(image: np.ndarray, detections: list[Detection]) -> list[Detection]:
    """The detections with each level line cut where its ink leaves a blank SPLIT_GAP line heights wide or more: the
    detector runs neighbouring table cells ("Employed   Unemployed") into one line, and the recogniser then drops
    the blank between them."""
    out = []
    for detection in detections:
        x0, y0, x1, y1 = detection.box
        run = detection.quad[1] - detection.quad[0]
        if abs(run[1]) > MAX_SLANT * abs(run[0]) or y1 - y0 < 4:
            out.append(detection)
            continue
        grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image[y0:y1, x0:x1]
        _, ink = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
        pieces = column_runs(ink.any(axis=0), SPLIT_GAP * detection.line_height)
        if len(pieces) < 2:
            out.append(detection)
            continue
        top, bottom = detection.quad[:, 1].min(), detection.quad[:, 1].max()
        margin = x0 - detection.quad[:, 0].min()
        for start, end in pieces:
            left, right = x0 + start - margin, x0 + end + margin
            quad = np.array([[left, top], [right, top], [right, bottom], [left, bottom]], dtype=np.float32)
            out.append(Detection(quad, (x0 + start, y0, x0 + end, y1), detection.line_height, detection.score))
    return out


def column_runs(columns: np.ndarray, gap: float) -> list[tuple[int, int]]:
    """(start, end) of the runs of True columns (inked, or blank), runs closer than `gap` joined (1: none)."""
    inked = np.flatnonzero(columns)
    if not len(inked):
        return []
    breaks = np.flatnonzero(np.diff(inked) > gap)
    starts = [inked[0], *inked[breaks + 1]]
    ends = [*inked[breaks], inked[-1]]
    return [(int(a), int(b) + 1) for a, b in zip(starts, ends)]


def _clockwise_from_top_left(quad: np.ndarray) -> np.ndarray:
    """Corners ordered top-left, top-right, bottom-right, bottom-left."""
    by_x = quad[np.argsort(quad[:, 0])]
    left, right = by_x[:2], by_x[2:]
    top_left, bottom_left = left[np.argsort(left[:, 1])]
    top_right, bottom_right = right[np.argsort(right[:, 1])]
    return np.array([top_left, top_right, bottom_right, bottom_left], dtype=np.float32)


def crop_line(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The quadrilateral cut out of the image and warped upright."""
    width = int(round(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[3] - quad[2]))))
    height = int(round(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2]))))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(quad, target)
    crop = cv2.warpPerspective(image, matrix, (max(1, width), max(1, height)), borderMode=cv2.BORDER_REPLICATE,
                               flags=cv2.INTER_CUBIC)
    if height > 1.5 * width:  # a vertical line of text: turn it to read left to right
        crop = np.rot90(crop)
    return crop


def normalize(image: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """RGB HWC uint8 to BGR CHW float32 in [-1, 1], as PP-OCR was trained, into `out` when given (a channel at a
    time, scaled in place: a page in 5 ms, against 24 for OpenCV's blob and 65 for numpy's broadcasting)."""
    out = np.empty((3, *image.shape[:2]), np.float32) if out is None else out
    for channel in range(3):
        out[channel] = image[:, :, 2 - channel]
    out -= 127.5
    out *= 1 / 127.5  # in this order, the values of OpenCV's blob to the bit
    return out
