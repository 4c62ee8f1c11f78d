"""Check boxes on a page image: small squares at text height that OCR reads as nothing, yet in a form or a
questionnaire's grid they are a table's cells (a column of boxes under "Yes" and one under "No")."""

from statistics import median

import cv2
import numpy as np

from engine.geometry import area, overlaps, shared_area
from engine.types import BBox, Line

EMPTY, TICKED = "\u2610", "\u2612"  # ☐ and ☒, the text a box's cell holds
MARKS = (EMPTY, TICKED)
MIN_SIDE, MAX_SIDE = 0.6, 1.6  # of the median line height: smaller squares are letters' holes, larger are frames
MAX_ASPECT = 1.25  # width over height, either way
MIN_FILL = 0.75  # of its bounding box the outline encloses: a square, not a letter or a curve
CORNER_TOLERANCE = 0.06  # of the outline's length: how far a side may bend and still be one side
TICK_INK = 0.15  # share of a box's inner pixels that are dark: a tick or a cross in it
DARK = 128  # grey level below which a pixel is ink
LABEL_GAP = 1.5  # line heights: text that starts this near after a box is the box's own label


def checkboxes(grey: np.ndarray, scale: float, line_height: float) -> list[tuple[BBox, bool]]:
    """The squares about a line tall in a greyscale page image (pixels per point `scale`), in points, with whether
    each holds a mark. Outlined boxes and filled squares set off from the paper around them are both found, by
    the edges around them; a box's outer edge is taken before its inner one."""
    edges = cv2.dilate(cv2.Canny(cv2.GaussianBlur(grey, (3, 3), 0), 30, 90), np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    smallest, largest = MIN_SIDE * line_height * scale, MAX_SIDE * line_height * scale
    sized = [(contour, (x, y, w, h)) for contour in contours for x, y, w, h in [cv2.boundingRect(contour)]
             if smallest <= min(w, h) and max(w, h) <= largest and max(w, h) <= MAX_ASPECT * min(w, h)]
    found: list[tuple[BBox, bool]] = []
    for contour, (x, y, w, h) in sorted(sized, key=lambda item: cv2.contourArea(item[0]), reverse=True):
        corners = cv2.approxPolyDP(contour, CORNER_TOLERANCE * cv2.arcLength(contour, True), True)
        if len(corners) != 4 or not cv2.isContourConvex(corners) or cv2.contourArea(contour) < MIN_FILL * w * h:
            continue
        box = (x / scale, y / scale, (x + w) / scale, (y + h) / scale)
        if any(overlaps(box, other) for other, _ in found):
            continue
        inner = grey[y + h // 4:y + h - h // 4, x + w // 4:x + w - w // 4]
        found.append((box, inner.size > 0 and float(np.count_nonzero(inner < DARK)) / inner.size >= TICK_INK))
    return found


def mark_lines(grey: np.ndarray, scale: float, lines: list[Line]) -> list[tuple[Line, Line | None]]:
    """The page's check boxes that answer a label, as one-character lines, each with the line it replaces where OCR
    read the box as a character or two (□, 口): boxes clear of every other line, with text on their left in the
    same row and none right after them (a box just before its text is a list's bullet)."""
    if not lines:
        return []
    height = median(line.height for line in lines)
    marks: list[tuple[Line, Line | None]] = []
    for box, ticked in checkboxes(grey, scale, height):
        row = [line for line in lines if line.bbox[1] <= (box[1] + box[3]) / 2 <= line.bbox[3]]
        reading = next((line for line in row if _reads(line, box)), None)
        if (any(overlaps(box, line.bbox) for line in lines if line is not reading)
                or not any(line.bbox[2] <= box[0] for line in row)
                or any(0 <= line.bbox[0] - box[2] <= LABEL_GAP * height for line in row)):
            continue
        marks.append((Line(text=TICKED if ticked else EMPTY, bbox=box, size=box[3] - box[1]), reading))
    return marks


def _reads(line: Line, box: BBox) -> bool:
    """OCR's reading of the box itself: a character or two set mostly on it, neither a Latin letter nor a digit
    (□, 口 and the like; "99" read there is a figure whose digits ran into a square)."""
    text = "".join(line.text.split())
    return (len(text) <= 2 and not any(c.isascii() and c.isalnum() for c in text)
            and shared_area(line.bbox, box) >= 0.5 * area(line.bbox))
