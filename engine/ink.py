"""Connected ink components of a rendered page, in points: what a scanned formula really covers."""

import math

import cv2
import numpy as np

from engine.types import BBox

MIN_PIXELS = 4  # components smaller than this are scan specks
BLANK_STD = 2.0  # an image whose grey levels vary less than this holds no ink
INK_CONTRAST = 60  # grey levels below the paper that make a pixel ink rather than paper texture


def blank(image: np.ndarray, stride: int = 1) -> bool:
    """Whether nothing is drawn on the image: its grey levels vary less than BLANK_STD, measured on every `stride`-th
    row and column (a whole page: its ink spans many, and the full measure costs 20 ms)."""
    return float(image[::stride, ::stride].std()) < BLANK_STD


def pixel_window(image: np.ndarray, scale: float, box: BBox) -> tuple[int, int, int, int]:
    """The pixels (x0, y0, x1, y1) of an image rendered at `scale` pixels per point that cover a box in points,
    clipped to the image."""
    height, width = image.shape[:2]
    return (max(0, int(box[0] * scale)), max(0, int(box[1] * scale)),
            min(width, int(np.ceil(box[2] * scale))), min(height, int(np.ceil(box[3] * scale))))


def ink_boxes(image: np.ndarray, scale: float, window: BBox) -> list[BBox]:
    """Boxes (in points) of the dark connected components inside `window` of an RGB page render."""
    x0, y0, x1, y1 = pixel_window(image, scale, window)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_RGB2GRAY)
    if blank(grey):
        return []
    _, ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    return [
        (float(x0 + left) / scale, float(y0 + top) / scale, float(x0 + left + w) / scale, float(y0 + top + h) / scale)
        for left, top, w, h, pixels in stats[1:count].tolist()
        if pixels >= MIN_PIXELS
    ]


def ink_share(image: np.ndarray) -> float:
    """The share of an RGB render's pixels that are ink: darker than the paper by INK_CONTRAST."""
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    if blank(grey):
        return 0.0
    counts = np.bincount(grey.ravel(), minlength=256)
    paper = grey_percentile(np.cumsum(counts), 90)
    return float(counts[:max(0, math.ceil(paper - INK_CONTRAST))].sum()) / grey.size


def grey_percentile(cumulative: np.ndarray, q: float) -> float:
    """np.percentile (linear) of uint8 grey levels from their cumulative counts: no sort of the page's pixels."""
    rank = q / 100 * (cumulative[-1] - 1)
    low, high = (int(np.searchsorted(cumulative, index, side="right")) for index in (math.floor(rank), math.ceil(rank)))
    return low + (high - low) * (rank - math.floor(rank))
