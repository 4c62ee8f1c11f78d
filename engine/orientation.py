"""Pages whose content does not read upright on the displayed page: a text layer set sideways or upside
down, a scan inserted lying on its side.

Every box the engine receives (PageInput) and returns (PageResult) is in the displayed page's
coordinates: PDF points, origin at the top-left of the page as a viewer shows it (with /Rotate applied),
the page's width and height as displayed. The stages, whose rules read lines left to right and top to
bottom, work in the page's upright frame instead: the displayed page turned clockwise by `PageState.turn`
degrees (0, 90, 180 or 270) so that its text reads upright. `turn_page` moves a page's state into that
frame and, with the opposite turn, back; the pipeline turns every page back before building its result.
"""

import dataclasses

import numpy as np

from engine.types import BBox, Block, FoundTable, Line, PageInput, PageState, Region, Word

TURNS = (0, 90, 180, 270)
MAJORITY = 2 / 3  # share of a page's characters that must run one way for the page to be read turned that way
AXIS_ALIGNED = 0.2  # a line whose direction has a larger off-axis component is diagonal (a watermark)


def direction_turn(dx: float, dy: float) -> int | None:
    """The clockwise turn that makes text running in direction (dx, dy) (y down) run left to right;
    None for a diagonal direction."""
    if abs(dy) <= AXIS_ALIGNED and abs(dx) > abs(dy):
        return 0 if dx > 0 else 180
    if abs(dx) <= AXIS_ALIGNED and abs(dy) > abs(dx):
        return 90 if dy < 0 else 270
    return None


def dominant_turn(weights: dict[int, float]) -> int:
    """The turn of the direction that carries most of the text (characters): a page is read turned only when
    that direction carries a clear majority, else as it is displayed (text in another direction is side text)."""
    best = max(TURNS, key=lambda turn: (weights.get(turn, 0.0), turn == 0))
    return best if weights.get(best, 0.0) > MAJORITY * sum(weights.values()) else 0


def turned_size(width: float, height: float, turn: int) -> tuple[float, float]:
    return (height, width) if turn in (90, 270) else (width, height)


def turn_box(box: BBox, turn: int, width: float, height: float) -> BBox:
    """A box of a frame `width` x `height`, in that frame turned clockwise by `turn` degrees."""
    x0, y0, x1, y1 = box
    if turn == 90:
        return (height - y1, x0, height - y0, x1)
    if turn == 180:
        return (width - x1, height - y1, width - x0, height - y0)
    if turn == 270:
        return (y0, width - x1, y1, width - x0)
    return box


def turn_image(image: np.ndarray, turn: int) -> np.ndarray:
    """An image turned clockwise by `turn` degrees (contiguous, as the models want it)."""
    return image if turn % 360 == 0 else np.ascontiguousarray(np.rot90(image, k=-(turn // 90)))


def turn_line(line: Line, turn: int, width: float, height: float) -> Line:
    spans = [dataclasses.replace(span, bbox=turn_box(span.bbox, turn, width, height)) for span in line.spans]
    words = [Word(word.text, turn_box(word.bbox, turn, width, height)) for word in line.words]
    return dataclasses.replace(line, bbox=turn_box(line.bbox, turn, width, height), spans=spans, words=words)


def turn_input(page: PageInput, turn: int) -> PageInput:
    """The page's input in its frame turned clockwise by `turn`; `turn` of the result is what is left to
    turn for its text layer to read upright."""
    turn %= 360
    if turn == 0:
        return page
    w, h = page.width, page.height
    width, height = turned_size(w, h, turn)
    return dataclasses.replace(
        page,
        width=width,
        height=height,
        turn=(page.turn - turn) % 360,
        text_lines=[turn_line(line, turn, w, h) for line in page.text_lines],
        side_lines=[turn_line(line, turn, w, h) for line in page.side_lines],
        image_boxes=[turn_box(box, turn, w, h) for box in page.image_boxes],
        drawing_boxes=[turn_box(box, turn, w, h) for box in page.drawing_boxes],
        layout_regions=[dataclasses.replace(r, bbox=turn_box(r.bbox, turn, w, h)) for r in page.layout_regions],
        found_tables=[FoundTable(bbox=turn_box(t.bbox, turn, w, h), table=t.table) for t in page.found_tables],
    )


def turn_page(page: PageState, turn: int) -> None:
    """Moves everything the page's state holds in page coordinates (and its image) into the frame turned
    clockwise by `turn` degrees; `page.turn` keeps the sum."""
    turn %= 360
    if turn == 0:
        return
    w, h = page.input.width, page.input.height
    page.input = turn_input(page.input, turn)
    page.ocr_regions = [turn_box(box, turn, w, h) for box in page.ocr_regions]
    page.lines = [turn_line(line, turn, w, h) for line in page.lines]
    page.side_lines = [turn_line(line, turn, w, h) for line in page.side_lines]
    page.regions = [Region(type=r.type, bbox=turn_box(r.bbox, turn, w, h), score=r.score) for r in page.regions]
    page.blocks = [_turn_block(block, turn, w, h) for block in page.blocks]
    if page.image is not None:
        page.image = turn_image(page.image, turn)
    page.turn = (page.turn + turn) % 360


def displayed_box(page: PageState, box: BBox) -> BBox:
    """A box of the page's working frame in the displayed page's coordinates."""
    return turn_box(box, (360 - page.turn) % 360, page.input.width, page.input.height)


def _turn_block(block: Block, turn: int, width: float, height: float) -> Block:
    return dataclasses.replace(block, bbox=turn_box(block.bbox, turn, width, height),
                               lines=[turn_line(line, turn, width, height) for line in block.lines])

