"""Lines grouped by the layout model's text regions: one block per paragraph, list item, heading or code listing."""

from engine.geometry import area, center_inside, text_rows
from engine.types import Line, Region

GROUPED_TYPES = ("text", "title", "list_item", "caption", "footnote", "header", "footer")  # formulas: the rules


def group_by_regions(lines: list[Line], regions: list[Region]) -> tuple[list[list[Line]], list[Line]]:
    """The lines of each text region holding their centre (the smallest, where regions nest), each group in
    reading order row by row; and the lines no region holds, for the rules to group."""
    boxes = sorted((r.bbox for r in regions if r.type in GROUPED_TYPES), key=area)
    groups: dict[int, list[Line]] = {}
    rest: list[Line] = []
    for line in lines:
        index = next((i for i, box in enumerate(boxes) if center_inside(line.bbox, box)), None)
        if index is None:
            rest.append(line)
        else:
            groups.setdefault(index, []).append(line)
    return [in_rows(group) for group in groups.values()], rest


def in_rows(lines: list[Line]) -> list[Line]:
    """The lines top to bottom, and left to right within a row."""
    return [line for row in text_rows(lines) for line in sorted(row.lines, key=lambda l: l.bbox[0])]
