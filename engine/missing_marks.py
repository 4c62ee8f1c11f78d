"""Missing-value marks on a page image that OCR's detector passes over: a statistical table's lone dash ("-", "–")
or run of dots (".."), set in a cell of its own, is too thin or too small for the detector to call a text line,
yet it is the cell's whole content. Found by their shape, clear of every line OCR read and beside text of the
same row."""

from statistics import median

import cv2
import numpy as np

from engine.ink import pixel_window
from engine.types import BBox, Line

HYPHEN, EN_DASH = "-", "\u2013"
MAX_DASH_HEIGHT = 0.2  # of the median line height
MIN_DASH_WIDTH, MAX_DASH_WIDTH = 0.15, 1.2  # of the median line height (a hyphen is a sixth of it)
MIN_DASH_ASPECT = 1.8  # width over height (a hyphen at 150 dpi is 6 by 3 pixels)
EN_DASH_WIDTH = 0.4  # of the median line height: a wider dash is an en dash, a narrower one a hyphen
MAX_DOT = 0.2  # of the median line height, either side of a dot
DOT_GAP = 0.6  # of the median line height between two dots of one run, at most
MIN_DOTS, MAX_DOTS = 2, 3  # a longer run is leaders, a single dot a speck
CLEARANCE = 0.3  # of the median line height: a mark this near a line's box is part of that line's text
CONFIDENCE = 0.9  # of a mark found by its shape
RULE_GAP = 1.0  # of the median line height: flat pieces of ink closer than this on one level are a broken rule
RULE_LEVEL = 0.15  # of the median line height: how far apart two pieces' middles may lie and be on one level
MAX_GLYPH = 1.5  # of the median line height, a glyph's width and height at most (larger ink is rules or a frame)
STACK_GAP = 0.4  # of the median line height: ink this near over or under a mark makes it part of a glyph (±, =)
IN_ROW = (0.35, 0.95)  # where a mark's middle lies in a line's box, from its top, in shares of its height
WINDOW_MARGIN = 0.5  # of the median line height around each window


def missing_marks(grey: np.ndarray, scale: float, lines: list[Line], windows: list[BBox]) -> list[Line]:
    """Dashes and runs of two or three dots inside the windows (where tables may lie) of a greyscale page image
    (pixels per point `scale`), as lines in points: each clear of every line, within the height of a line of its
    row that stands left of it, and as tall as that line."""
    if not lines or scale <= 0:
        return []
    height = median(line.height for line in lines)
    found: dict[BBox, str] = {}
    for x0, y0, x1, y1 in windows:
        margin = WINDOW_MARGIN * height
        found |= dict(_marks_in(grey, scale, lines, (x0 - margin, y0 - margin, x1 + margin, y1 + margin), height))
    return [Line(text=text, bbox=box, size=height, confidence=CONFIDENCE) for box, text in found.items()]


def _marks_in(grey: np.ndarray, scale: float, lines: list[Line], window: BBox, height: float
              ) -> list[tuple[BBox, str]]:
    x0, y0, x1, y1 = pixel_window(grey, scale, window)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return []
    _, ink = cv2.threshold(grey[y0:y1, x0:x1], 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    stats = stats[1:count]
    boxes = _boxes(stats, (x0, y0), scale)
    small = boxes[(stats[:, 2] <= MAX_DASH_WIDTH * height * scale) & (stats[:, 3] <= MAX_DOT * height * scale)]
    flat = boxes[(stats[:, 3] <= MAX_DASH_HEIGHT * height * scale) & (stats[:, 2] >= 2 * stats[:, 3])]
    glyphs = boxes[np.all(stats[:, 2:4] <= MAX_GLYPH * height * scale, axis=1)]
    shaped = [(box, _dash(box, height), _dot(box, height)) for box in map(tuple, small.tolist())]
    shaped = [item for item in shaped if item[2] or (item[1] and not _in_rule(item[0], flat, height))]
    taken = np.array([line.bbox for line in lines]) + CLEARANCE * height * np.array([-1, -1, 1, 1])
    free = [(box, dash) for box, dash, _ in shaped if not np.any(
        (box[0] < taken[:, 2]) & (taken[:, 0] < box[2]) & (box[1] < taken[:, 3]) & (taken[:, 1] < box[3]))]
    marks = [(box, EN_DASH if box[2] - box[0] >= EN_DASH_WIDTH * height else HYPHEN) for box, dash in free if dash]
    marks += [(box, dots) for box, dots in _dot_runs([box for box, dash in free if not dash], height)
              if not _in_rule(box, flat, height, dots=True)]
    return [((box[0], row.bbox[1], box[2], row.bbox[3]), text) for box, text in marks
            if (row := _row_line(box, lines)) is not None and not _stacked(box, glyphs, height)]


def _boxes(stats: np.ndarray, origin: tuple[int, int], scale: float) -> np.ndarray:
    """Components' boxes in points (x0, y0, x1, y1), from their stats in a window at `origin` (pixels)."""
    corners = (stats[:, :2] + np.array(origin)) / scale
    return np.hstack([corners, corners + stats[:, 2:4] / scale])


def _in_rule(box: BBox, flat: np.ndarray, height: float, dots: bool = False) -> bool:
    """Whether another flat piece of ink lies beside the dash (or run of dots) on its level, closer than RULE_GAP:
    a rule the scan broke into pieces (a `\\cmidrule` under a group heading), not a mark alone in its cell."""
    middle = (box[1] + box[3]) / 2
    beside = (np.abs((flat[:, 1] + flat[:, 3]) / 2 - middle) <= RULE_LEVEL * height) & (
        np.maximum(flat[:, 0] - box[2], box[0] - flat[:, 2]) < RULE_GAP * height)
    return int(np.count_nonzero(beside)) > (0 if dots else 1)  # a dash is one of the flat pieces itself


def _stacked(box: BBox, glyphs: np.ndarray, height: float) -> bool:
    """Whether a glyph's ink lies over or under the mark, nearer than STACK_GAP: the mark is a glyph's stroke (the
    bar of a "±", one of an "=", a "+" cut at the page's edge), not a mark alone in its cell."""
    over = (glyphs[:, 0] < box[2]) & (box[0] < glyphs[:, 2])
    gap = np.maximum(glyphs[:, 1] - box[3], box[1] - glyphs[:, 3])
    inside = (glyphs[:, 0] >= box[0]) & (glyphs[:, 2] <= box[2]) & (glyphs[:, 1] >= box[1]) & (glyphs[:, 3] <= box[3])
    return bool(np.any(over & (gap < STACK_GAP * height) & ~inside))


def _dash(box: BBox, height: float) -> bool:
    width, tall = box[2] - box[0], max(box[3] - box[1], 1e-6)
    return (tall <= MAX_DASH_HEIGHT * height and MIN_DASH_WIDTH * height <= width <= MAX_DASH_WIDTH * height
            and width >= MIN_DASH_ASPECT * tall)


def _dot(box: BBox, height: float) -> bool:
    width, tall = box[2] - box[0], box[3] - box[1]
    return 0 < width <= MAX_DOT * height and 0 < tall <= MAX_DOT * height and max(width, tall) <= 2 * min(width, tall)


def _dot_runs(dots: list[BBox], height: float) -> list[tuple[BBox, str]]:
    """Dots side by side on one baseline, DOT_GAP apart at most, as runs of MIN_DOTS to MAX_DOTS."""
    runs: list[list[BBox]] = []
    for dot in sorted(dots, key=lambda box: box[0]):
        run = next((run for run in runs if 0 <= dot[0] - run[-1][2] <= DOT_GAP * height
                    and abs(dot[3] - run[-1][3]) <= MAX_DOT * height), None)
        if run is None:
            runs.append([dot])
        else:
            run.append(dot)
    return [((run[0][0], min(d[1] for d in run), run[-1][2], max(d[3] for d in run)), "." * len(run))
            for run in runs if MIN_DOTS <= len(run) <= MAX_DOTS]


def _row_line(box: BBox, lines: list[Line]) -> Line | None:
    """The nearest line left of the mark in whose row it stands: its middle in that line's ink band (a dash at half
    the x-height, dots on the baseline), not at the edge of the line's box (a broken rule between two rows). The
    mark takes that line's top and bottom, as OCR boxes a line."""
    middle = (box[1] + box[3]) / 2
    left = [line for line in lines
            if line.bbox[2] <= box[0] and IN_ROW[0] <= (middle - line.bbox[1]) / max(line.height, 1e-6) <= IN_ROW[1]]
    return max(left, key=lambda line: line.bbox[2], default=None)
