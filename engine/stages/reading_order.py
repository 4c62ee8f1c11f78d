"""Reading order: running headers first, then the body column by column, then footnotes and footers."""

from engine.types import BBox, Block, PageState

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

    top = [b for b in blocks if b.type in TOP_MARGIN_TYPES and center_y(b) < middle]
    bottom = [b for b in blocks if b.type in BOTTOM_MARGIN_TYPES and center_y(b) >= middle]
    footnotes = [b for b in blocks if b.type == "footnote"]
    body = [b for b in blocks if b.type not in TOP_MARGIN_TYPES + BOTTOM_MARGIN_TYPES + ("footnote",)]
    return sorted(top, key=_top_left) + xy_order(body) + xy_order(footnotes) + sorted(bottom, key=_top_left)


def _top_left(block: Block) -> tuple[float, float]:
    return block.bbox[1], block.bbox[0]


def xy_order(blocks: list[Block]) -> list[Block]:
    """Recursive XY-cut that keeps columns together.

    The region is cut into horizontal bands at empty rows. Consecutive bands that
    share an empty vertical gutter form one multi-column section, read column by
    column; a band that crosses the gutter (a full-width title, table or figure)
    ends the section.
    """
    if len(blocks) <= 1:
        return list(blocks)
    bands = _split(blocks, axis=1, min_gap=0.0)
    if len(bands) == 1:
        columns = _split(blocks, axis=0, min_gap=MIN_GUTTER)
        if len(columns) == 1:
            return sorted(blocks, key=_top_left)
        return [block for column in columns for block in xy_order(column)]
    ordered: list[Block] = []
    index = 0
    while index < len(bands):
        gutter = _widest_gap(bands[index])
        end = index + 1
        if gutter is not None:
            while end < len(bands) and not any(_crosses(block.bbox, gutter) for block in bands[end]):
                end += 1
        section = [block for band in bands[index:end] for block in band]
        if gutter is None:
            ordered.extend(xy_order(section))
        else:
            cut = (gutter[0] + gutter[1]) / 2
            left = [b for b in section if (b.bbox[0] + b.bbox[2]) / 2 < cut]
            right = [b for b in section if (b.bbox[0] + b.bbox[2]) / 2 >= cut]
            ordered.extend(xy_order(left) + xy_order(right))
        index = end
    return ordered


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


def _widest_gap(blocks: list[Block]) -> tuple[float, float] | None:
    """The widest empty vertical strip between the blocks of a band, if any is wide enough."""
    columns = _split(blocks, axis=0, min_gap=MIN_GUTTER)
    if len(columns) < 2:
        return None
    gaps = []
    for left, right in zip(columns, columns[1:]):
        start = max(b.bbox[2] for b in left)
        gaps.append((start, min(b.bbox[0] for b in right)))
    return max(gaps, key=lambda gap: gap[1] - gap[0])


def _crosses(bbox: BBox, gutter: tuple[float, float]) -> bool:
    center = (gutter[0] + gutter[1]) / 2
    return bbox[0] < center - 1.0 and bbox[2] > center + 1.0
