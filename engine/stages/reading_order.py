"""Reading order: running headers first, then the body column by column, then footnotes and footers."""

from engine.types import Block, PageState

MIN_GUTTER = 6.0  # points of empty space between two columns
TOP_MARGIN_TYPES = ("header", "page_number")
BOTTOM_MARGIN_TYPES = ("footer", "page_number")


class ReadingOrderStage:
    """Sets `order` on every block and sorts the page's blocks by it."""

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            page.blocks = reading_order(page.blocks, page.input.height)
            for index, block in enumerate(page.blocks):
                block.order = index
        return pages


def reading_order(blocks: list[Block], page_height: float) -> list[Block]:
    middle = page_height / 2

    def center_y(block: Block) -> float:
        return (block.bbox[1] + block.bbox[3]) / 2

    # a page number goes with the margin it sits in; a header or footer always with its own, so none is lost
    top = [b for b in blocks if b.type == "header" or (b.type == "page_number" and center_y(b) < middle)]
    bottom = [b for b in blocks if b.type == "footer" or (b.type == "page_number" and center_y(b) >= middle)]
    footnotes = [b for b in blocks if b.type == "footnote"]
    body = [b for b in blocks if b.type not in TOP_MARGIN_TYPES + BOTTOM_MARGIN_TYPES + ("footnote",)]
    return sorted(top, key=_top_left) + xy_order(body) + xy_order(footnotes) + sorted(bottom, key=_top_left)


def _top_left(block: Block) -> tuple[float, float]:
    return block.bbox[1], block.bbox[0]


def xy_order(blocks: list[Block]) -> list[Block]:
    """Recursive XY cut that keeps columns together.

    The region is cut into horizontal bands at empty rows. Consecutive bands whose
    empty vertical strips line up form one section; if that shared strip has blocks
    on both sides it is a gutter, and the section is read column by column. A band
    that fills the strip (a full-width title, table or figure) ends the section and
    stands alone.
    """
    if len(blocks) <= 1:
        return list(blocks)
    bands = _split(blocks, axis=1, min_gap=0.0)
    left_edge, right_edge = min(b.bbox[0] for b in blocks), max(b.bbox[2] for b in blocks)
    ordered: list[Block] = []
    start = 0
    while start < len(bands):
        free = _free_strips(bands[start], left_edge, right_edge)
        end = start + 1
        solid = len(_split(bands[start], axis=0, min_gap=0.0)) == 1
        while end < len(bands) and not solid:  # a band of one x-run opens no section: it may cross the gutter
            narrowed = _intersect(free, _free_strips(bands[end], left_edge, right_edge))
            if not narrowed:
                break
            free, end = narrowed, end + 1
        section = [block for band in bands[start:end] for block in band]
        gutter = _gutter(free, section)
        if gutter is None:
            ordered.extend(sorted(section, key=_top_left))
        else:
            left = [b for b in section if b.bbox[2] <= gutter[0] + 0.5]
            right = [b for b in section if b.bbox[2] > gutter[0] + 0.5]
            ordered.extend(xy_order(left) + xy_order(right))
        start = end
    return ordered


Strip = tuple[float, float]


def _split(blocks: list[Block], axis: int, min_gap: float) -> list[list[Block]]:
    """Blocks grouped into runs along `axis` (0: x, 1: y) separated by gaps wider than min_gap."""
    items = sorted(blocks, key=lambda b: b.bbox[axis])
    groups: list[list[Block]] = [[items[0]]]
    reach = items[0].bbox[axis + 2]
    for block in items[1:]:
        if block.bbox[axis] - reach > min_gap:
            groups.append([block])
        else:
            groups[-1].append(block)
        reach = max(reach, block.bbox[axis + 2])
    return groups


def _free_strips(band: list[Block], left_edge: float, right_edge: float) -> list[Strip]:
    """The empty vertical strips of a band, at least MIN_GUTTER wide, between the region's edges."""
    strips, cursor = [], left_edge
    for column in _split(band, axis=0, min_gap=0.0):
        start = min(b.bbox[0] for b in column)
        if start - cursor >= MIN_GUTTER:
            strips.append((cursor, start))
        cursor = max(cursor, max(b.bbox[2] for b in column))
    if right_edge - cursor >= MIN_GUTTER:
        strips.append((cursor, right_edge))
    return strips


def _intersect(first: list[Strip], second: list[Strip]) -> list[Strip]:
    both = [(max(a[0], b[0]), min(a[1], b[1])) for a in first for b in second]
    return [strip for strip in both if strip[1] - strip[0] >= MIN_GUTTER]


def _gutter(strips: list[Strip], section: list[Block]) -> Strip | None:
    """The widest strip with blocks wholly on each side of it, if any."""
    inner = [
        strip for strip in strips
        if any(b.bbox[2] <= strip[0] + 0.5 for b in section) and any(b.bbox[0] >= strip[1] - 0.5 for b in section)
    ]
    return max(inner, key=lambda strip: strip[1] - strip[0]) if inner else None
