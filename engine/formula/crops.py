"""Formula crops made to look like what the formula model learnt from, whatever the page's font size and scan.

Every crop is scaled so that the body text's em is EM_PIXELS pixels, cut to the formula's ink and
given a white margin of MARGIN_EM ems: the same formula at 9 or 14 pt, rendered or scanned at any
resolution, gives the model the same picture. A scan's crop is first levelled by the page's skew
(found from the whole page's text rows, which small crops cannot say), sharpened against the
scanner's blur, and flattened to white paper and black ink; an equation number that reached into
the crop ("(3)" at the margin) is cut off.

The constants were measured on pages made by benchmarks/formula_crops.py (born-digital and scanned,
9-14 pt, scans at 150-300 dpi, turned up to 1.5 degrees), not on the benchmark's formulas: formula
NED was lowest with the em at 24-32 pixels (a 10 pt line rendered at 170-230 dpi; larger renders
make the model see bold and script letters), a margin of 0.2-0.3 em around the ink, and an unsharp
mask of 1-2 pixels at the scan's own resolution.
"""

import re

import cv2
import numpy as np
import pymupdf

from engine.orientation import turn_box, turn_image
from engine.skew import MIN_SKEW, level
from engine.types import BBox

EM_PIXELS = 28.0  # the body text's em in a crop, in pixels (10 pt at 200 dpi)
MARGIN_EM = 0.25  # white margin around the formula's ink, in ems
WINDOW_EM = 0.15  # how far beyond the block's box the formula's ink is looked for, in ems
SKEW_ROOM_EM = 1.0  # what is rendered beyond the box when the crop is turned level, in ems
SHARPEN_SIGMA = 1.5  # unsharp mask radius for scans, in pixels of the scan
SHARPEN_AMOUNT = 1.0
INK_LEVEL = 160  # a pixel darker than this (0-255, on white paper) is ink
NUMBER_GAP_EM = 1.0  # an equation number stands at least this far right of its formula
MAX_NUMBER_EM = 3.5  # and is at most this wide
MAX_SCAN_SCALE = 600 / 72  # scans finer than 600 dpi are read at 600
DEFAULT_EM = 10.0  # points, when the page's body size is unknown
ENDS_WITH_NUMBER = re.compile(r"\(\s*\d+(\.\d+)?[a-z]?\s*\)\s*$")


def sharpen(grey: np.ndarray, sigma: float = SHARPEN_SIGMA, amount: float = SHARPEN_AMOUNT) -> np.ndarray:
    """An unsharp mask: the scanner's blur, which makes thin strokes look bold to the model, partly undone."""
    soft = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), sigma)
    return np.clip(grey + amount * (grey - soft), 0, 255).astype(np.uint8)


def flatten_paper(crop: np.ndarray) -> np.ndarray:
    """A scanned crop made to look like the clean renders the model learnt from: paper white, ink stretched.

    Pixels lighter than Otsu's threshold are paper and become white; the rest is stretched from the
    darkest ink to the paper's grey, which keeps the ink's anti-aliased edges. RGB in, RGB out; grey
    in, grey out.
    """
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
    threshold, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    paper = grey > threshold
    if not paper.any() or paper.all():
        return crop
    ink, white = float(np.percentile(grey, 1)), float(np.median(grey[paper]))
    flat = np.clip((grey.astype(np.float32) - ink) * (255.0 / max(1.0, white - ink)), 0, 255)
    flat[paper] = 255
    flat = flat.astype(np.uint8)
    return cv2.cvtColor(flat, cv2.COLOR_GRAY2RGB) if crop.ndim == 3 else flat


def ink_box(grey: np.ndarray) -> tuple[int, int, int, int] | None:
    """The smallest box (x0, y0, x1, y1, exclusive ends) holding every ink pixel; None for a blank crop."""
    rows, columns = np.nonzero((grey < INK_LEVEL).any(axis=1)), np.nonzero((grey < INK_LEVEL).any(axis=0))
    if not len(rows[0]):
        return None
    return int(columns[0][0]), int(rows[0][0]), int(columns[0][-1]) + 1, int(rows[0][-1]) + 1


def without_number(grey: np.ndarray, em_pixels: float) -> np.ndarray:
    """The crop without an equation number at its right end: ink NUMBER_GAP_EM or more right of the rest,
    at most MAX_NUMBER_EM wide. Only called for a formula whose last line reads like "(3)"."""
    inked = np.nonzero((grey < INK_LEVEL).any(axis=0))[0]
    wide = np.nonzero(np.diff(inked) > NUMBER_GAP_EM * em_pixels)[0] if len(inked) > 1 else []
    if not len(wide):
        return grey
    last = int(wide[-1])  # the right-most wide gap: the number lies beyond it
    if inked[-1] - inked[last + 1] > MAX_NUMBER_EM * em_pixels:
        return grey
    return grey[:, :inked[last] + 1]


def scan_scale(pdf_page: pymupdf.Page, box: BBox) -> float | None:
    """Pixels per point of the finest raster image drawn under the box (a scan), None when there is none."""
    best = None
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    rotation = pdf_page.rotation_matrix
    for info in pdf_page.get_image_info():
        rect = pymupdf.Rect(info["bbox"]) * rotation
        if rect.width <= 0 or not (rect.x0 <= cx <= rect.x1 and rect.y0 <= cy <= rect.y1):
            continue
        across = max(info["width"], info["height"]) / max(rect.width, rect.height)
        best = across if best is None else max(best, across)
    return best


def formula_crop(pdf_page: pymupdf.Page, box: BBox, em: float, scanned: bool, skew: float = 0.0, turn: int = 0,
                 numbered: bool = False) -> np.ndarray:
    """The formula in `box` (displayed page coordinates) as the model should see it: RGB, dark on white.

    `em` is the page's body size in points, `skew` the page's skew in degrees (scans), `turn` the
    clockwise turn that makes the page read upright, `numbered` whether its last line ends with an
    equation number that may have reached into the box.
    """
    em = em if em > 0 else DEFAULT_EM
    target = EM_PIXELS / em  # pixels per point in the crop the model gets
    scale = target
    if scanned:  # read at the scan's own pixels: its blur and noise are measured in them
        native = scan_scale(pdf_page, box)
        scale = min(native, MAX_SCAN_SCALE) if native else max(target, 200 / 72)
    turning = scanned and abs(skew) >= MIN_SKEW
    room = (SKEW_ROOM_EM if turning else WINDOW_EM) * em
    x0, y0, x1, y1 = box
    clip = pymupdf.Rect(x0 - room, y0 - room, x1 + room, y1 + room) & pdf_page.rect
    pixmap = pdf_page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), clip=clip, colorspace=pymupdf.csGRAY,
                                 alpha=False)
    grey = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
    # where the box and its window lie in the rendered pixels, turned upright with them
    height, width = grey.shape
    sx, sy = width / max(clip.width, 1e-6), height / max(clip.height, 1e-6)
    reach = WINDOW_EM * em
    window = (max(0.0, (x0 - reach - clip.x0) * sx), max(0.0, (y0 - reach - clip.y0) * sy),
              min(float(width), (x1 + reach - clip.x0) * sx), min(float(height), (y1 + reach - clip.y0) * sy))
    grey = np.ascontiguousarray(turn_image(grey, turn))
    window = turn_box(window, turn % 360, width, height)
    if turning:  # levelled about the box's centre, so the box stays where it was
        grey = level(grey, skew, ((window[0] + window[2]) / 2, (window[1] + window[3]) / 2))
    left, top = int(window[0]), int(window[1])
    grey = grey[top:max(top + 1, int(np.ceil(window[3]))), left:max(left + 1, int(np.ceil(window[2])))]
    if scanned:
        grey = flatten_paper(sharpen(grey))
    inked = ink_box(grey)
    if inked is not None:
        grey = grey[inked[1]:inked[3], inked[0]:inked[2]]
        if numbered:
            grey = without_number(grey, em * scale)
            inked = ink_box(grey)
            grey = grey[inked[1]:inked[3], inked[0]:inked[2]] if inked else grey
    if abs(scale - target) > 1e-6 * target:
        factor = target / scale
        size = (max(1, round(grey.shape[1] * factor)), max(1, round(grey.shape[0] * factor)))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC)
    margin = max(1, round(MARGIN_EM * EM_PIXELS))
    grey = np.pad(grey, margin, constant_values=255)
    return cv2.cvtColor(grey, cv2.COLOR_GRAY2RGB)


def ends_with_number(text: str) -> bool:
    """Whether a line's text ends with an equation number like "(3)" or "(2.1a)"."""
    return ENDS_WITH_NUMBER.search(text) is not None
