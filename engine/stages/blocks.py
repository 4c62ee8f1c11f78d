"""Groups a page's lines into blocks: paragraphs, list items, headings, one block per visual unit."""

import re

from engine.geometry import beside, mean_confidence, union
from engine.mathiness import looks_like_math
from engine.region_lines import group_by_regions
from engine.types import Block, Line, PageState

LIST_MARKER = re.compile(r"^([•◦▪‣∙·●○■□►▸\-–—*]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlc]+\)|[ivxlc]+\.)\s+\S")
MAX_GAP = 0.7  # vertical gap between lines of one block, in units of the font size
MIN_OVERLAP = 0.4  # horizontal overlap with the block, as a share of the narrower of the two
INDENT = 0.8  # a line starting this many font sizes right of the line above starts a paragraph
SHORT_LINE = 0.75  # a line ending before this share of the block's width ends a paragraph


def join_lines(lines: list[Line]) -> str:
    """Line texts joined by spaces; a word hyphenated at a line end is joined again."""
    text = ""
    for line in lines:
        piece = line.text.strip()
        if not piece:
            continue
        if len(text) >= 2 and text.endswith("-") and text[-2].isalpha() and piece[0].islower():
            text = text[:-1] + piece
        else:
            text = f"{text} {piece}" if text else piece
    return text


class BlockStage:
    """Lines to text blocks (typed `text` here; the classify stage refines the type).

    On a page read from its text layer, the lines of each text region of PyMuPDF's layout model form one
    block (a paragraph, a list item with its bullet, a code listing); lines outside its regions, and every
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
                for group in grouped + group_lines(rest)
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


def group_lines(lines: list[Line]) -> list[list[Line]]:
    """Each line joins the block right above it when it continues that block, else starts one."""
    groups: list[list[Line]] = []
    for line in sorted(lines, key=lambda l: (l.bbox[1], l.bbox[0])):
        target = _block_above(groups, line)
        if target is not None and not _starts_paragraph(target, line):
            target.append(line)
        else:
            groups.append([line])
    return groups


def _block_above(groups: list[list[Line]], line: Line) -> list[Line] | None:
    best, best_gap = None, None
    for group in groups:
        last = group[-1]
        size = max(line.size, last.size)
        gap = line.bbox[1] - last.bbox[3]
        if gap > MAX_GAP * size or line.bbox[1] < last.bbox[1] + 0.5 * last.height:
            continue
        if abs(line.size - last.size) > 0.15 * size or line.bold != last.bold:
            continue
        left, right = min(l.bbox[0] for l in group), max(l.bbox[2] for l in group)
        overlap = min(right, line.bbox[2]) - max(left, line.bbox[0])
        if overlap < MIN_OVERLAP * min(right - left, line.width):
            continue
        if best_gap is None or gap < best_gap:
            best, best_gap = group, gap
    return best


def _starts_paragraph(group: list[Line], line: Line) -> bool:
    """A list marker, an indent, a line above that stopped short (end of a paragraph, a heading),
    or an indented display formula above."""
    if LIST_MARKER.match(line.text):
        return True
    previous = group[-1]
    if looks_like_math(previous.text, previous.math) and previous.bbox[0] - line.bbox[0] > INDENT * line.size:
        return True
    indented = line.bbox[0] - previous.bbox[0] > INDENT * line.size
    if indented and (len(group) >= 2 or not LIST_MARKER.match(previous.text)):
        return True
    left = min(min(l.bbox[0] for l in group), line.bbox[0])
    right = max(max(l.bbox[2] for l in group), line.bbox[2])
    return previous.bbox[2] < left + SHORT_LINE * (right - left)
