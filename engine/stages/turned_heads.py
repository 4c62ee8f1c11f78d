"""A table's column heads turned to run up the page, as OCR reads them: one piece each.

Statistical tables with many narrow columns turn their heads a quarter, to run up the page. OCR reads each line of
such a head on its own (engine/stages/ocr.py turns and reads lines taller than wide), a head wrapped over two lines
as two pieces side by side, a long line the detector cut as pieces one above the other; the table would see a
header of several rows, each piece in a row of its own. The pieces of one head are joined into one.
"""

from dataclasses import replace

from engine.geometry import union
from engine.stages.blocks import join_lines
from engine.types import Line

TURNED = 1.5  # a line this much taller than wide was read turned (engine/ocr/detector.py crop_line)
HEAD_GAP = 0.5  # of a turned line's width: lines of one turned head stand closer than this


def turned_heads(lines: list[Line]) -> list[tuple[Line, list[Line]]]:
    """A table's column heads turned to run up the page, each as one piece with the OCR lines it was read in: lines
    taller than wide (TURNED times, two characters or more) that stand side by side or one above the other within
    HEAD_GAP of their width (a head wrapped over lines, a line the detector read in two pieces, `_piece_of`: not
    below the turned lines' lowest foot) are one head, read as such heads are mostly set: lines left to right, each
    from its foot up."""
    turned = [line for line in lines if line.height >= TURNED * line.width and len(line.text.replace(" ", "")) >= 2]
    tall = {id(line) for line in turned}
    foot = max((line.bbox[3] for line in turned), default=0.0)  # a figure of the row under the heads starts lower
    turned += [line for line in lines if id(line) not in tall and line.bbox[1] < foot
               and any(_piece_of(line, other) for other in turned)]
    groups: list[list[Line]] = []
    for line in sorted(turned, key=lambda l: l.bbox[0]):
        near = [group for group in groups if any(_touching(line, other) for other in group)]
        for group in near:
            groups.remove(group)
        groups.append([line, *(other for group in near for other in group)])
    heads = []
    for group in groups:
        if len(group) < 2:
            continue
        order = sorted(group, key=lambda l: (_stack(l, group), -l.bbox[3]))
        heads.append((replace(group[0], text=join_lines(order), bbox=union([l.bbox for l in group]),
                              words=[word for l in order for word in l.words]), group))
    return heads


def _touching(line: Line, other: Line) -> bool:
    """Two turned lines of one head: side by side, or one above the other, within HEAD_GAP of their width."""
    gap = HEAD_GAP * min(line.width, other.width)
    return (max(line.bbox[0], other.bbox[0]) - min(line.bbox[2], other.bbox[2]) <= gap
            and max(line.bbox[1], other.bbox[1]) - min(line.bbox[3], other.bbox[3]) <= gap)


def _piece_of(line: Line, turned: Line) -> bool:
    """A short piece of a turned line the detector read apart ("65" under "years and"): no wider than the line,
    in line with it, right above or below it."""
    return (line.width <= turned.width + HEAD_GAP * turned.width and _touching(line, turned)
            and min(line.bbox[2], turned.bbox[2]) - max(line.bbox[0], turned.bbox[0]) > 0.5 * line.width)


def _stack(line: Line, group: list[Line]) -> float:
    """The left edge of the leftmost line of the group that overlaps this one over half the narrower's width
    (pieces of one turned line share it)."""
    return min(other.bbox[0] for other in group
               if min(line.bbox[2], other.bbox[2]) - max(line.bbox[0], other.bbox[0]) > 0.5 * min(line.width,
                                                                                                   other.width))
