"""A scan's skew: the small turn that levels its rows of text, found from the page's ink, and the levelling."""

import cv2
import numpy as np

from engine.types import PageState

MIN_SKEW = 0.2  # degrees: a page turned less than this is left as it is
MAX_SKEW = 3.0  # degrees: the largest skew looked for
SKEW_STEP = 0.05
COARSE_STEP = 0.25  # degrees between the angles of the first, coarse search


def scan_skew(page: PageState) -> float:
    """The skew of the page's render, measured once for all the stages that level it."""
    if page.skew is None:
        page.skew = page_skew(page.image)
    return page.skew


def page_skew(image: np.ndarray) -> float:
    """Degrees (counter-clockwise, as cv2 turns) that level the page's text rows: a projection profile search.

    The angle whose rows of ink are sharpest (largest sum of squared row sums) wins; pages with little
    ink are left level. The search runs every COARSE_STEP degrees, then every SKEW_STEP around the best: a text
    page's sharpness falls off over most of a degree on either side of its peak (a row's height over the page's
    width), so the coarse search lands next to it; on dev's and real/'s 63 scans both searches give the same angles.
    """
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    factor = 1000 / max(grey.shape)
    if factor < 1:
        grey = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    _, ink = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    ys, xs = np.nonzero(ink)
    if len(xs) < 200 or len(xs) > 0.5 * ink.size:
        return 0.0
    xs, ys = xs - xs.mean(), ys - ys.mean()

    def sharpest(angles: list[float]) -> float:
        best, best_score = 0.0, -1.0
        for angle in sorted(angles, key=abs):  # ties: the smaller turn
            theta = np.deg2rad(angle)
            rows = np.round(ys * np.cos(theta) - xs * np.sin(theta)).astype(np.int64)
            score = float((np.bincount(rows - rows.min()).astype(np.float64) ** 2).sum())
            if score > best_score:
                best, best_score = angle, score
        return best

    coarse = sharpest(_angles(COARSE_STEP))
    return round(sharpest([angle for angle in _angles(SKEW_STEP) if abs(angle - coarse) <= COARSE_STEP + 1e-9]), 2)


def _angles(step: float) -> list[float]:
    """Every `step` degrees from -MAX_SKEW to MAX_SKEW."""
    steps = round(MAX_SKEW / step)
    return [i * step for i in range(-steps, steps + 1)]


def level(grey: np.ndarray, angle: float, centre: tuple[float, float] | None = None) -> np.ndarray:
    """The image turned by `angle` degrees about `centre` (its own by default), the corners filled from its
    edges."""
    height, width = grey.shape
    matrix = cv2.getRotationMatrix2D(centre or (width / 2, height / 2), angle, 1.0)
    return cv2.warpAffine(grey, matrix, (width, height), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)


def levelled_box(box: tuple[float, float, float, float], angle: float,
                 centre: tuple[float, float]) -> tuple[float, float, float, float]:
    """A box on a page turned by `angle` degrees about `centre` (as `level` turns the page's pixels): its centre
    moves with the page, its size stays (a line of text stays level in its own box)."""
    matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    new_x = matrix[0, 0] * x + matrix[0, 1] * y + matrix[0, 2]
    new_y = matrix[1, 0] * x + matrix[1, 1] * y + matrix[1, 2]
    half_w, half_h = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
    return (float(new_x - half_w), float(new_y - half_h), float(new_x + half_w), float(new_y + half_h))
