"""Small box arithmetic shared by the stages (boxes are x0, y0, x1, y1 in points)."""

from dataclasses import dataclass, field

from engine.types import BBox, Line


def union(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def center_inside(box: BBox, region: BBox, slack_x: float = 0.0) -> bool:
    """Whether the box's center lies in the region (widened by slack_x on the left and right)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] - slack_x <= cx <= region[2] + slack_x and region[1] <= cy <= region[3]


def merged_spans(spans: list[tuple[float, float]], gap: float) -> list[tuple[float, float]]:
    """The (start, end) spans merged where one starts at most `gap` after those before it end, left to right."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + gap:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def overlaps(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def gap(a: BBox, b: BBox, axis: int) -> float:
    """Empty space between two boxes along an axis (0: x, 1: y); 0 when they overlap on it."""
    return max(0.0, max(a[axis], b[axis]) - min(a[axis + 2], b[axis + 2]))


def beside(box: BBox, boxes: list[BBox], slack: float = 1.0) -> bool:
    """Whether the box lies left or right of all the boxes (a side margin's), reaching at most `slack` into them."""
    left = min((b[0] for b in boxes), default=float("inf"))
    right = max((b[2] for b in boxes), default=float("-inf"))
    return box[2] <= left + slack or box[0] >= right - slack


def in_line(a: BBox, b: BBox, slack: float) -> bool:
    """Whether two boxes share a left edge, a right edge or a centre, within `slack`."""
    return min(abs(a[0] - b[0]), abs(a[2] - b[2]), abs(a[0] + a[2] - b[0] - b[2]) / 2) <= slack


def area(box: BBox) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def shared_area(a: BBox, b: BBox) -> float:
    """The area of the two boxes' intersection."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def iou(a: BBox, b: BBox) -> float:
    """Intersection over union of two boxes."""
    inter = shared_area(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def same_region(a: BBox, b: BBox, min_iou: float = 0.5) -> bool:
    """Whether two boxes mark the same region: overlapping enough, or each centred inside the other
    (so that a box drawn a few points looser, as OCR and detectors draw them, still counts)."""
    return iou(a, b) >= min_iou or (center_inside(a, b) and center_inside(b, a))


def mean_confidence(lines: list[Line]) -> float | None:
    """The mean OCR confidence of the lines; None for text-layer lines, which have none."""
    scores = [line.confidence for line in lines if line.confidence is not None]
    return sum(scores) / len(scores) if scores else None


@dataclass
class Row:
    """Lines set on one row of text, with the row's top and bottom."""

    lines: list[Line] = field(default_factory=list)
    top: float = 0.0
    bottom: float = 0.0

    def add(self, line: Line) -> None:
        if not self.lines:
            self.top, self.bottom = line.bbox[1], line.bbox[3]
        self.lines.append(line)
        self.top, self.bottom = min(self.top, line.bbox[1]), max(self.bottom, line.bbox[3])

    @property
    def center(self) -> float:
        return (self.top + self.bottom) / 2


def text_rows(lines: list[Line]) -> list[Row]:
    """Lines grouped into rows: a line joins a row it overlaps by half its height. A row that came to hold two lines
    set one above the other in a column (tight rows chained by a line set between them) is parted again."""
    rows: list[Row] = []
    for line in sorted(lines, key=_middle):
        row = rows[-1] if rows else None
        overlap = min(row.bottom, line.bbox[3]) - max(row.top, line.bbox[1]) if row else 0.0
        if row is not None and overlap >= 0.5 * line.height:
            row.add(line)
        else:
            row = Row()
            row.add(line)
            rows.append(row)
    return [part for row in rows for part in _unstacked(row)]


def _middle(line: Line) -> float:
    return (line.bbox[1] + line.bbox[3]) / 2


def _unstacked(row: Row) -> list[Row]:
    """The row as the rows its lines stand on when two of them stand one above the other in a column (over half
    the narrower one's width, their middles half a line height apart or more): the levels of such stacked lines,
    each line on the nearest (within a quarter of the way to the next level), a line between two levels (a label
    set between two rows) on a row of its own."""
    stacked: dict[int, Line] = {}
    reaching: list[Line] = []  # lines left of the current one that reach past its left edge
    for line in sorted(row.lines, key=lambda l: l.bbox[0]):
        reaching = [other for other in reaching if other.bbox[2] > line.bbox[0]]
        for other in reaching:
            if (min(line.bbox[2], other.bbox[2]) - line.bbox[0] > 0.5 * min(line.width, other.width)
                    and abs(_middle(line) - _middle(other)) >= 0.5 * min(line.height, other.height)):
                stacked |= {id(line): line, id(other): other}
        reaching.append(line)
    if not stacked:
        return [row]
    levels: list[float] = []
    for line in sorted(stacked.values(), key=_middle):
        if not levels or _middle(line) - levels[-1] >= 0.5 * line.height:
            levels.append(_middle(line))
    parts: dict[float, Row] = {}
    for line in sorted(row.lines, key=_middle):
        middle = _middle(line)
        nearest = min(levels, key=lambda level: abs(level - middle))
        spacing = min((abs(level - nearest) for level in levels if level != nearest), default=line.height)
        key = nearest if abs(nearest - middle) <= 0.25 * spacing else next(
            (k for k in parts if k not in levels and abs(k - middle) < 0.5 * line.height), middle)
        parts.setdefault(key, Row()).add(line)
    return [parts[key] for key in sorted(parts)]
