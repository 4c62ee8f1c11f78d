"""Types text blocks from typography and position: title, list item, caption, formula, footnote, margins."""

import re
from collections import Counter

import numpy as np

from engine.geometry import center_inside, gap, mean_confidence, same_region, union
from engine.ink import ink_boxes
from engine.mathiness import (
    FUNCTION_NAMES,
    MATH_SHARE,
    MAX_FORMULA_WORDS,
    WORD,
    is_math_char,
    looks_like_math,
    prose_words,
)
from engine.stages.blocks import LIST_MARKER, join_lines
from engine.types import BBox, Block, BlockType, PageState, Region

PAGE_NUMBER = re.compile(
    r"^(page\s+)?([-–—]\s*)?(\d{1,4}|[ivxlcdm]{1,6})(\s*[-–—])?(\s*(/|of)\s*\d{1,4})?$", re.IGNORECASE
)
CAPTION_NUMBER = r"\s*([a-z][-.]?)?[0-9ivxlc]+([.\-–][0-9]+)*[a-z]?\s*([:.–—-]|$)"  # "3.", "B-1.", "2 –", "4"
CAPTION = re.compile(r"^(table|tableau|tabelle|tabla|tabel|tabela|tabella|figure|figura|abbildung|graphique|gráfico|"
                     r"grafico|fig\.|tab\.|abb\.|chart|plate|map|exhibit|graph)" + CAPTION_NUMBER, re.IGNORECASE)
FOOTNOTE_MARK = re.compile(r"^([0-9]{1,2}|[*†‡§¶])\s*\S")
EQUATION_NUMBER = re.compile(r"^\(\s*\d+(\.\d+)?[a-z]?\s*\)$")
MARGIN = 0.08  # top and bottom share of the page where running headers, footers and folios live
TITLE_SIZE = 1.15  # a block this much larger than the body text is a heading
FOOTNOTE_SIZE = 0.92  # footnotes are set smaller than the body
MAX_TITLE_CHARS = 200
MAX_FORMULA_LINES = 6
MAX_FRAGMENT_CHARS = 40
INK_REACH = 1.5  # ink this many body sizes beside a formula's region is still part of it (matrix columns)
NUMBER_GAP = 2.0  # an equation number stands at least this many font sizes right of its formula
STACK_REACH = 0.5  # ink this many body sizes above or below a formula's region, overlapping it, is part of it
LAYOUT_FORMULA_TYPES = ("text", "title", "list_item", "formula", "footnote")  # what a layout formula region may take


def body_size(blocks: list[Block]) -> float:
    """The font size that carries the most characters on the page (rounded to half points)."""
    counts: Counter[float] = Counter()
    for block in blocks:
        for line in block.lines:
            counts[round(line.size * 2) / 2] += len(line.text)
    return counts.most_common(1)[0][0] if counts else 0.0


class ClassifyStage:
    """Gives each block its type; reading order is left to the next stage."""

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            body = body_size(page.blocks)
            for block in page.blocks:
                if block.type == "text":  # blocks typed by an earlier stage (tables) keep their type
                    block.type = classify(block, body, page.input.height, page.blocks)
                    if _is_layout_title(block, page.regions):
                        block.type = "title"
                    if _is_layout_caption(block, page.regions):
                        block.type = "caption"
            numbered_displays(page.blocks)
            blocks = formulas_from_layout(page.blocks, page.regions)
            blocks = merge_formula_parts(blocks, body)
            if page.image is not None:
                blocks = fit_formulas_to_ink(blocks, page.image, page.image_scale, body)
            page.blocks = _attach_equation_numbers(blocks, body, page.input.height)
        return pages


def classify(block: Block, body: float, page_height: float, blocks: list[Block]) -> BlockType:
    text = block.text.strip()
    top, bottom = block.bbox[1], block.bbox[3]
    in_top_margin = bottom <= MARGIN * page_height
    in_bottom_margin = top >= (1 - MARGIN) * page_height
    small = block.size <= body * 1.05
    if (in_top_margin or in_bottom_margin) and len(block.lines) == 1 and PAGE_NUMBER.match(text):
        return "page_number"
    if in_top_margin and small and len(block.lines) <= 2 and _has_body_below(block, blocks) \
            and not CAPTION.match(text):  # a table's title at the top of its page
        return "header"
    if in_bottom_margin and small and len(block.lines) <= 2:
        return "footer"
    if is_display_math(block):
        return "formula"
    if CAPTION.match(text):
        return "caption"
    if _is_heading(block, body, text):
        return "title"
    if LIST_MARKER.match(text):
        return "list_item"
    if block.size < body * FOOTNOTE_SIZE and FOOTNOTE_MARK.match(text) and top > 0.5 * page_height:
        return "footnote"
    return "text"


def _is_heading(block: Block, body: float, text: str) -> bool:
    if not text or len(text) > MAX_TITLE_CHARS or len(block.lines) > 3 or text.endswith((".", ",", ";")):
        return False
    larger = body > 0 and block.size >= body * TITLE_SIZE
    bold = all(line.bold for line in block.lines)
    return larger or bold


def _is_layout_title(block: Block, regions: list[Region]) -> bool:
    """An OCR'd paragraph or list item the layout model marks as a title (OCR knows no font size or weight)."""
    return block.type in ("text", "list_item") and block.confidence is not None and _marked(block, regions, "title")


def _is_layout_caption(block: Block, regions: list[Region]) -> bool:
    """A paragraph, heading or list item the layout model marks as a caption (captions need not say "Figure 1:")."""
    return block.type in ("text", "title", "list_item") and _marked(block, regions, "caption")


def _marked(block: Block, regions: list[Region], kind: BlockType) -> bool:
    """Whether a region of that kind marks the block's box."""
    return any(region.type == kind and same_region(block.bbox, region.bbox) for region in regions)


def _has_body_below(block: Block, blocks: list[Block]) -> bool:
    return any(other.bbox[1] > block.bbox[3] for other in blocks if other is not block)


def _math_share(block: Block) -> float:
    chars = sum(len(line.text) for line in block.lines)
    return sum(line.math * len(line.text) for line in block.lines) / chars if chars else 0.0


def is_display_math(block: Block) -> bool:
    """Short, mostly math characters, an operator or symbol somewhere, hardly any words."""
    return len(block.lines) <= MAX_FORMULA_LINES and looks_like_math(block.text, _math_share(block))


def _is_fragment(block: Block) -> bool:
    """A scrap that can be part of a formula: a limit, an exponent, a fraction's numerator.

    An OCR'd scrap typed as a title counts too: OCR knows font sizes only from line heights, and a
    line of big operators or matrix brackets is taller than the body text without being a heading."""
    text = block.text.strip()
    typed = block.type in ("text", "formula", "list_item", "footnote") or (
        block.type == "title" and block.confidence is not None)
    return typed and len(text) <= MAX_FRAGMENT_CHARS and prose_words(text) <= 1 and not EQUATION_NUMBER.match(text)


_NAMES = "|".join(sorted(FUNCTION_NAMES, key=len, reverse=True))
GLUED_FUNCTION = re.compile(rf"^({_NAMES})[a-z]{{0,2}}$", re.IGNORECASE)  # "logb", "sinx": name and argument


def _words(text: str) -> int:
    """Prose words, where a function name read together with its subscript or argument ("logb", "sinx")
    is none."""
    return sum(1 for w in WORD.findall(text) if w.lower() not in FUNCTION_NAMES and not GLUED_FUNCTION.match(w))


def _no_prose(block: Block) -> bool:
    """Set in math (its fonts or symbols say so) or hardly any words: what a formula region may hold."""
    return _math_share(block) >= MATH_SHARE or _words(block.text) <= 1


def numbered_displays(blocks: list[Block]) -> None:
    """A short line with a math symbol and an equation number like "(3)" beside it, far right on its row,
    is a display formula, whatever its fonts (a formula set in the text font, OCR's garbled symbols)."""
    numbers = [b.bbox for b in blocks if EQUATION_NUMBER.match(b.text.strip())]
    numbers += [line.bbox for b in blocks if len(b.lines) > 1 for line in b.lines[:1]
                if EQUATION_NUMBER.match(line.text.strip())]  # a number OCR grouped with the paragraph below
    for block in blocks:
        if block.type not in ("text", "title", "list_item") or len(block.lines) > MAX_FORMULA_LINES:
            continue
        text = block.text
        if EQUATION_NUMBER.match(text.strip()) or _words(text) > MAX_FORMULA_WORDS \
                or not any(is_math_char(char) for char in text):
            continue
        apart = max(block.size, 6.0) * NUMBER_GAP
        if any(box[0] >= block.bbox[2] + apart and _same_row(block.bbox, box) for box in numbers):
            block.type = "formula"


def formulas_from_layout(blocks: list[Block], regions: list[Region]) -> list[Block]:
    """The blocks inside a layout model's formula region become one formula block, when none of them is prose.

    The layout model sees a display formula as one region where the text layer or OCR has scraps
    (limits, a fraction's parts, matrix rows) that the rules alone may leave as text or headings; a
    figure block the layout model also saw as a formula region holding math is a formula too.
    Paragraphs with inline math are never taken: a block that is prose, or whose centre lies outside
    the region, keeps its type; the region's equation number stays apart (it is attached later).
    """
    merged: dict[int, Block] = {}  # id of a replaced block -> the formula that replaces it
    for region in (r for r in regions if r.type == "formula"):
        members = [b for b in blocks if id(b) not in merged and not EQUATION_NUMBER.match(b.text.strip()) and (
            (b.type in LAYOUT_FORMULA_TYPES and center_inside(b.bbox, region.bbox))
            or (b.type == "figure" and b.lines and same_region(b.bbox, region.bbox)))]  # seen as both: math wins
        if not members or not all(_no_prose(b) for b in members):
            continue
        mathy = any(b.type == "formula" or _math_share(b) >= MATH_SHARE or any(is_math_char(c) for c in b.text)
                    for b in members)
        if not mathy:
            continue
        lines = sorted((line for b in members for line in b.lines), key=lambda line: (line.bbox[1], line.bbox[0]))
        formula = Block(type="formula", bbox=union([b.bbox for b in members]), lines=lines,
                        text=" ".join(line.text for line in lines), confidence=mean_confidence(lines))
        for b in members:
            merged[id(b)] = formula
    kept, placed = [], set()
    for block in blocks:
        formula = merged.get(id(block))
        if formula is None:
            kept.append(block)
        elif id(formula) not in placed:
            kept.append(formula)
            placed.add(id(formula))
    return kept


def merge_formula_parts(blocks: list[Block], body: float) -> list[Block]:
    """Scraps next to a formula (stacked limits, fractions, big operators) join it; one block per formula."""
    reach = max(body, 6.0)
    formulas = [b for b in blocks if b.type == "formula"]
    absorbed: set[int] = set()
    for formula in formulas:
        if id(formula) in absorbed:
            continue
        grew = True
        while grew:
            grew = False
            for other in blocks:
                if other is formula or id(other) in absorbed or not _is_fragment(other):
                    continue
                if gap(formula.bbox, other.bbox, 0) <= 2.5 * reach and gap(formula.bbox, other.bbox, 1) <= 0.6 * reach:
                    formula.lines = formula.lines + other.lines
                    formula.bbox = union([formula.bbox, other.bbox])
                    absorbed.add(id(other))
                    grew = True
        formula.lines.sort(key=lambda line: (line.bbox[1], line.bbox[0]))
        formula.text = " ".join(line.text for line in formula.lines)
    return [b for b in blocks if id(b) not in absorbed]


def fit_formulas_to_ink(blocks: list[Block], image: np.ndarray, scale: float, body: float) -> list[Block]:
    """On rendered pages a formula's box becomes the ink it covers, and the scraps inside it join it.

    OCR boxes miss tall signs, limits and matrix rows and carry loose margins; ink components
    centred in the box seed the region, which then takes components on its rows within `reach`.
    Ink inside other blocks (body text, equation numbers, other formulas) is never taken.
    """
    reach = max(body, 6.0)
    formulas = [b for b in blocks if b.type == "formula"]
    for formula in formulas:
        protected = [b.bbox for b in blocks if b is not formula and (b.type == "formula" or not _is_fragment(b))]
        x0, y0, x1, y1 = formula.bbox
        window = (x0 - 8 * reach, y0 - 3 * reach, x1 + 8 * reach, y1 + 3 * reach)
        components = [c for c in ink_boxes(image, scale, window)
                      if not any(center_inside(c, box) for box in protected)]
        formula.bbox = _grow(formula.bbox, components, INK_REACH * reach, STACK_REACH * reach)
    absorbed = {id(b) for b in blocks for f in formulas
                if b.type != "formula" and _is_fragment(b) and center_inside(b.bbox, f.bbox)}
    for formula in formulas:
        inside = [b for b in blocks if id(b) in absorbed and center_inside(b.bbox, formula.bbox)]
        if inside:
            formula.lines = sorted(formula.lines + [line for b in inside for line in b.lines],
                                   key=lambda line: (line.bbox[1], line.bbox[0]))
            formula.text = " ".join(line.text for line in formula.lines)
    return [b for b in blocks if id(b) not in absorbed]


def _grow(box: BBox, components: list[BBox], reach: float, stack: float) -> BBox:
    """The union of the components centred in `box`, widened by those on its rows within `reach` and by those
    stacked right above or below it within `stack` (a big operator over its limit, a fraction's parts)."""
    members = [c for c in components if center_inside(c, box)]
    if not members:
        return box
    region = union(members)
    rest = [c for c in components if c not in members]
    grew = True
    while grew:
        grew = False
        for component in list(rest):
            middle = (component[1] + component[3]) / 2
            on_row = region[1] <= middle <= region[3] and gap(region, component, 0) <= reach
            stacked = gap(region, component, 0) == 0 and gap(region, component, 1) <= stack
            if on_row or stacked:
                region = union([region, component])
                rest.remove(component)
                grew = True
    return region


def _attach_equation_numbers(blocks: list[Block], body: float, page_height: float) -> list[Block]:
    """An equation number like "(3)" on a formula's row belongs to that formula's text (not its box).

    A number that the line grouping put at the head of the paragraph below (on scans, where it
    then reads as a list marker) is taken out of that paragraph, which is typed again without it.
    """
    formulas = [b for b in blocks if b.type == "formula"]

    def owner_of(text: str, box: BBox) -> Block | None:
        return next((f for f in formulas if EQUATION_NUMBER.match(text.strip()) and _same_row(f.bbox, box)), None)

    kept = []
    for block in blocks:
        owner = owner_of(block.text, block.bbox)
        if owner is not None:
            owner.text = f"{owner.text} {block.text.strip()}"
            continue
        if block.type != "formula" and len(block.lines) > 1:
            first = min(block.lines, key=lambda line: (line.bbox[1], line.bbox[0]))
            owner = owner_of(first.text, first.bbox)
            if owner is not None:
                owner.text = f"{owner.text} {first.text.strip()}"
                block.lines = [line for line in block.lines if line is not first]
                block.bbox = union([line.bbox for line in block.lines])
                block.text = join_lines(block.lines)
                block.confidence = mean_confidence(block.lines)
                if block.type == "list_item":
                    block.type = classify(block, body, page_height, blocks)
        kept.append(block)
    return kept


def _same_row(a: BBox, b: BBox) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.3 * min(a[3] - a[1], b[3] - b[1])
