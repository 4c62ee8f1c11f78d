"""Ruling lines (table borders, rules under headers) from vector drawings or from page pixels."""

from dataclasses import dataclass

import cv2
import numpy as np

from engine.types import BBox

MAX_THICKNESS = 3.0  # points: thicker shapes are boxes or images, not rules
MIN_LENGTH = 8.0  # points
SCANNED_GAP = 2.5  # points: a rule found in page pixels comes out in pieces up to about 2 points apart (noise, a
# scan's faint spots); partial rules under neighbouring header cells stand further apart


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal (y0 == y1 up to thickness) or vertical straight line, in points."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def horizontal(self) -> bool:
        return (self.x1 - self.x0) >= (self.y1 - self.y0)

    @property
    def position(self) -> float:
        """y of a horizontal rule, x of a vertical one."""
        return (self.y0 + self.y1) / 2 if self.horizontal else (self.x0 + self.x1) / 2

    @property
    def start(self) -> float:
        return self.x0 if self.horizontal else self.y0

    @property
    def end(self) -> float:
        return self.x1 if self.horizontal else self.y1


def rules_from_boxes(boxes: list[BBox]) -> list[Rule]:
    """Thin, long boxes (drawn lines and hairline rectangles) as rules."""
    rules = []
    for x0, y0, x1, y1 in boxes:
        width, height = x1 - x0, y1 - y0
        if (height <= MAX_THICKNESS and width >= MIN_LENGTH) or (width <= MAX_THICKNESS and height >= MIN_LENGTH):
            rules.append(Rule(x0, y0, x1, y1))
    return merge_rules(rules)


def rules_from_image(image: np.ndarray, scale: float, min_length_pt: float = 20.0) -> list[Rule]:
    """Long thin dark runs in a page image (pixels per point `scale`), as rules in points."""
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    ink = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 15)
    length = max(10, int(min_length_pt * scale))
    rules = []
    for kernel_shape in ((length, 1), (1, length)):
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, kernel_shape)
        lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, kernel)
        count, _, stats, centroids = cv2.connectedComponentsWithStats(lines, connectivity=8)
        for (x, y, w, h, area), (cx, cy) in zip(stats[1:count], centroids[1:count]):
            thickness = area / max(w, h)  # mean thickness: a slightly skewed scan line has a tall box
            if thickness > MAX_THICKNESS * scale:
                continue
            half = thickness / 2
            if w >= h:
                rules.append(Rule(x / scale, (cy - half) / scale, (x + w) / scale, (cy + half) / scale))
            else:
                rules.append(Rule((cx - half) / scale, y / scale, (cx + half) / scale, (y + h) / scale))
    return merge_rules(rules, gap=SCANNED_GAP)


def merge_rules(rules: list[Rule], tolerance: float = 1.5, gap: float | None = None) -> list[Rule]:
    """Collinear pieces (`tolerance` points apart across) that touch (a grid drawn cell by cell) or stand at most
    `gap` points apart along (default `tolerance`) joined into one rule."""
    gap = tolerance if gap is None else gap
    merged: list[Rule] = []
    for horizontal in (True, False):
        pieces = sorted((r for r in rules if r.horizontal == horizontal), key=lambda r: (r.position, r.start))
        lanes: list[list[Rule]] = []
        for rule in pieces:
            lane = next((lane for lane in lanes if abs(lane[-1].position - rule.position) <= tolerance), None)
            if lane is None:
                lanes.append([rule])
            else:
                lane.append(rule)
        for lane in lanes:
            lane.sort(key=lambda r: r.start)
            current = lane[0]
            for rule in lane[1:]:
                if rule.start <= current.end + gap:
                    current = Rule(min(current.x0, rule.x0), min(current.y0, rule.y0),
                                   max(current.x1, rule.x1), max(current.y1, rule.y1))
                else:
                    merged.append(current)
                    current = rule
            merged.append(current)
    return merged
