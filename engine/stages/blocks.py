"""Groups a page's lines into blocks: paragraphs, list items, headings, one block per visual unit."""

import heapq
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from engine.geometry import beside, mean_confidence, union
from engine.mathiness import looks_like_math
from engine.region_lines import group_by_regions
from engine.types import Block, Line, PageState

LIST_MARKER = re.compile(r"^([•◦▪‣∙·●○■□►▸\-–—*]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlc]+\)|[ivxlc]+\.)\s+\S")
SOFT_HYPHEN = "\u00ad"
HYPHENS = ("-", "\u2010")  # hyphen-minus and the hyphen proper
MAX_GAP = 0.7  # vertical gap between lines of one block, in units of the font size
MIN_OVERLAP = 0.4  # horizontal overlap with the block, as a share of the narrower of the two
INDENT = 0.8  # a line starting this many font sizes right of the line above starts a paragraph
SHORT_LINE = 0.75  # a line ending before this share of the block's width ends a paragraph


def join_lines(lines: list[Line]) -> str:
    """The lines' texts joined as `join_texts` joins them."""
    return join_texts(line.text for line in lines)


def join_texts(texts: Iterable[str]) -> str:
    """Texts of successive lines joined by spaces; a word hyphenated at a line end (with a hyphen before a
    lower-case letter, or with the soft hyphen a word processor breaks words with) is joined again."""
    text, broken = "", False
    for piece in texts:
        piece = piece.strip()
        if not piece.replace(SOFT_HYPHEN, ""):
            continue
        ends_broken, piece = piece.endswith(SOFT_HYPHEN), piece.replace(SOFT_HYPHEN, "")  # elsewhere it shows nothing
        if broken:
            text += piece
        elif len(text) >= 2 and text[-1] in HYPHENS and text[-2].isalpha() and piece[0].islower():
            text = text[:-1] + piece
        else:
            text = f"{text} {piece}" if text else piece
        broken = ends_broken
    return text


class BlockStage:
    """Lines to text blocks (typed `text` here; the classify stage refines the type).

    On a page read from its text layer, the lines of each text region of PyMuPDF's layout model form one
    block (a paragraph, a list item with its bullet, a code listing), cut where the region holds more than
    one (`split_region`): at each item of a list, and where the font changes (a heading over its paragraph);
    lines outside its regions, and every
    line of a rendered page (where the CDLA model's regions grouped worse than the rules on both benchmark
    splits), are grouped by the rules: spacing, indent, short last lines, font and list markers.

    Text running across the page's reading direction (`side_lines`: an arXiv identifier up the left
    margin, a stamp) never joins the body: a line of it in a side margin, clear of everything else on
    the page, becomes a `header` (upper half) or `footer` (lower half) block; the rest of it (a table's
    turned column heads, a figure's axis labels) is left to the table or figure it lies in.
    """

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            grouped, rest = group_by_regions(page.lines, page.regions) if page.use_text_layer else ([], page.lines)
            page.blocks += [
                Block(type="text", bbox=union([line.bbox for line in group]), lines=group, text=join_lines(group),
                      confidence=mean_confidence(group))
                for group in [part for region in grouped for part in split_region(region)] + group_lines(rest)
            ]
            page.blocks += margin_blocks(page.side_lines, page.blocks, page.input.height)
        return pages


def margin_blocks(side_lines: list[Line], blocks: list[Block], page_height: float) -> list[Block]:
    """A header or footer block for each line of side text that lies beside all the page's blocks."""
    found = []
    for line in side_lines:
        if line.text.strip() and beside(line.bbox, [block.bbox for block in blocks]):
            kind = "header" if (line.bbox[1] + line.bbox[3]) / 2 < page_height / 2 else "footer"
            found.append(Block(type=kind, bbox=line.bbox, lines=[line], text=line.text.strip(),
                               confidence=line.confidence))
    return found


def split_region(lines: list[Line]) -> list[list[Line]]:
    """A layout region's lines (in reading order) cut before each list item of a region that starts with one,
    and where the font size or weight changes between two lines of words (not at a bullet or a mark alone)."""
    listed = bool(lines) and LIST_MARKER.match(lines[0].text) is not None
    parts: list[list[Line]] = []
    for line in lines:
        previous = parts[-1][-1] if parts else None
        if previous is None or (listed and LIST_MARKER.match(line.text)) or (
                _worded(previous) and _worded(line) and not _same_font(previous, line)):
            parts.append([line])
        else:
            parts[-1].append(line)
    return parts


def _same_font(a: Line, b: Line) -> bool:
    return abs(a.size - b.size) <= 0.15 * max(a.size, b.size) and a.bold == b.bold


def _worded(line: Line) -> bool:
    return sum(c.isalnum() for c in line.text) >= 3


def group_lines(lines: list[Line]) -> list[list[Line]]:
    """Each line joins the block right above it when it continues that block, else starts one.

    Lines are taken top to bottom; a block is a candidate for the next line only while its last line is
    close enough above (`_Blocks` drops the others) and only where it overlaps the line horizontally (found
    through a grid of columns), so a page costs about n log n in its lines, not n x blocks.
    """
    blocks = _Blocks(lines)
    for line in sorted(lines, key=lambda l: (l.bbox[1], l.bbox[0])):
        blocks.expire(line.bbox[1])
        target = blocks.above(line)
        if target is not None and not _starts_paragraph(target, line):
            blocks.extend(target, line)
        else:
            blocks.start(line)
    return [block.lines for block in blocks.all]


@dataclass(eq=False)
class _Block:
    """A block being grouped: its lines, their left and right edges, and its place among the blocks."""

    lines: list[Line]
    left: float
    right: float
    index: int
    until: float = math.inf  # below this y, no line can continue the block (see _Blocks.expire)
    columns: range = range(0)  # the grid columns it is listed in


class _Blocks:
    """The blocks of a page so far, with those a line may continue indexed by grid column.

    A line continues a block only if its font size is within 15% of the block's last line and the gap
    above it is at most MAX_GAP font sizes, so it is at most MAX_GAP / 0.85 (< 1) of the last line's size
    below that line: lower down, the block is dropped from the index for good (lines come top to bottom).
    A line continues only a block it overlaps horizontally, so only the columns it spans are looked at.
    """

    COLUMNS = 256  # at most this many grid columns across the lines' extent

    def __init__(self, lines: list[Line]):
        self.all: list[_Block] = []
        xs = [x for line in lines for x in (line.bbox[0], line.bbox[2]) if math.isfinite(x)]
        widths = sorted(line.width for line in lines if line.width > 0)
        extent = max(xs) - min(xs) if xs else 0.0
        self.origin = min(xs, default=0.0)
        self.step = max(widths[len(widths) // 2] if widths else 1.0, extent / self.COLUMNS, 1e-3)
        self.grid: dict[int, set[_Block]] = defaultdict(set)
        self.unplaced: set[_Block] = set()  # blocks whose edges are not in order (or not finite): always looked at
        self.expiry: list[tuple[float, int]] = []  # (until, block index), a heap

    def _columns(self, left: float, right: float) -> range | None:
        if not left <= right or not math.isfinite(left) or not math.isfinite(right):
            return None
        return range(math.floor((left - self.origin) / self.step), math.floor((right - self.origin) / self.step) + 1)

    def start(self, line: Line) -> None:
        block = _Block([line], line.bbox[0], line.bbox[2], len(self.all))
        self.all.append(block)
        self._place(block)

    def extend(self, block: _Block, line: Line) -> None:
        block.lines.append(line)
        block.left, block.right = min(block.left, line.bbox[0]), max(block.right, line.bbox[2])
        self._place(block)

    def _place(self, block: _Block) -> None:
        last = block.lines[-1]
        block.until = last.bbox[3] + max(last.size, 0.0)
        if not math.isfinite(block.until):
            block.until = math.inf
        heapq.heappush(self.expiry, (block.until, block.index))
        columns = self._columns(block.left, block.right)
        if columns is None:
            self._unlist(block)
            self.unplaced.add(block)
            return
        self.unplaced.discard(block)
        for column in columns:  # a block only widens: it stays in the columns it was in
            if column not in block.columns:
                self.grid[column].add(block)
        block.columns = columns

    def _unlist(self, block: _Block) -> None:
        for column in block.columns:
            self.grid[column].discard(block)
        block.columns = range(0)
        self.unplaced.discard(block)

    def expire(self, y: float) -> None:
        """Drop the blocks no line at `y` or below can continue."""
        while self.expiry and self.expiry[0][0] < y:
            until, index = heapq.heappop(self.expiry)
            block = self.all[index]
            if block.until == until:
                self._unlist(block)

    def above(self, line: Line) -> _Block | None:
        """The block right above the line that the line may continue (nearest; the first made on a tie)."""
        columns = self._columns(line.bbox[0], line.bbox[2])
        if columns is None:
            candidates = {block for listed in self.grid.values() for block in listed}
        else:
            candidates = {block for column in columns for block in self.grid.get(column, ())}
        best, best_key = None, None
        for block in candidates | self.unplaced:
            gap = _continues(block, line)
            if gap is not None and (best_key is None or (gap, block.index) < best_key):
                best, best_key = block, (gap, block.index)
        return best


def _continues(block: _Block, line: Line) -> float | None:
    """The gap between the block's last line and the line, if the line may continue the block."""
    last = block.lines[-1]
    size = max(line.size, last.size)
    gap = line.bbox[1] - last.bbox[3]
    if gap > MAX_GAP * size or line.bbox[1] < last.bbox[1] + 0.5 * last.height:
        return None
    if not _same_font(last, line):
        return None
    overlap = min(block.right, line.bbox[2]) - max(block.left, line.bbox[0])
    if overlap < MIN_OVERLAP * min(block.right - block.left, line.width):
        return None
    return gap


def _starts_paragraph(block: _Block, line: Line) -> bool:
    """A list marker, an indent, a line above that stopped short (end of a paragraph, a heading),
    or an indented display formula above."""
    if LIST_MARKER.match(line.text):
        return True
    previous = block.lines[-1]
    if looks_like_math(previous.text, previous.math) and previous.bbox[0] - line.bbox[0] > INDENT * line.size:
        return True
    indented = line.bbox[0] - previous.bbox[0] > INDENT * line.size
    if indented and (len(block.lines) >= 2 or not LIST_MARKER.match(previous.text)):
        return True
    left, right = min(block.left, line.bbox[0]), max(block.right, line.bbox[2])
    return previous.bbox[2] < left + SHORT_LINE * (right - left)
