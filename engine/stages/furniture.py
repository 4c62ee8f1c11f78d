"""Page furniture: running heads, footers, page numbers and margin stamps, found across a document's pages.

The classify stage types a page on its own; running heads and footers are recognised best by what a
document repeats. This stage is the engine's one document-level pass: it groups the batch's pages by
document (`PageInput.pdf_path`; a batch holds consecutive pages of its documents) and compares each
page's outer blocks with the other pages of the same document in the batch. It runs after ClassifyStage
(body font sizes and block types are known) and before ReadingOrderStage, which keeps furniture out of
the body order (headers first, footers and page numbers last).

A block is a candidate when it is short, lies in an outer zone of the page and nothing of the body lies
beyond it: in the top band above all body content, in the bottom band below it, or in a side margin
clear of the body's columns. A candidate becomes furniture on one of these cues:

- repetition: text like it (digits normalised, fuzzy) on another page of the document, in the same zone
  at about the same height and in about the same font size;
- a page number: a bare number, "- 3 -", "Page 3 of 9", "7-45", a roman numeral;
- the row of a page number: a line beside the page number in the same band (a running head "Title  9");
- a margin stamp: an "arXiv:" identifier or a "Downloaded from/by/on" line;
- in the top or bottom band, a revision line ("Rev. 3", "Revised 12 March 2024", "Version 2.0", "Last
  updated ...") or a block the layout model marks as a page header or footer (but a caption, "Table 9. ...",
  that the model took for one): what a one-page document, with no other page to repeat it, shows of its
  furniture;
- in a side margin, a rotated line (read by OCR, much taller than wide) or a column of line numbers.

A short block a little further in (up to WIDE_BAND), still beyond all the body, is furniture only when
a like block sits in the band of another page at the same place: pages of one document can differ in
size, and a page number drawn at the same coordinates falls out of the band of the taller page.
Numbers stacked on several rows of a band are a table's or a list's, not page numbers.

Top zone blocks become `header`, bottom ones `footer`, side ones `header` or `footer` by the half of the
page they sit in; a page number becomes `page_number`. Types the classify stage gave from position are
kept; this stage only adds furniture.
"""

import heapq
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from engine.geometry import same_region
from engine.stages.classify import CAPTION, PAGE_NUMBER, body_size
from engine.types import Block, BlockType, PageState

BAND = 0.15  # top and bottom share of the page where running heads, footers and page numbers may sit
WIDE_BAND = 0.22  # further in, a block beyond the body is furniture only if another page has it in its band
SIDE = 0.10  # left and right share of the page where margin stamps and line numbers may sit
MAX_LINES = 3  # furniture is a line or two (a footer with an address three)
MAX_CHARS = 200
MAX_SIZE = 1.3  # a block this much larger than the body text is a heading or a chapter number, not furniture
SAME_HEIGHT = 0.02  # two pages' blocks at most this share of the page height apart sit at the same height
SAME_SIZE = 0.25  # font sizes this close (relative) are the same (OCR sizes come from line heights)
SIMILAR = 0.8  # difflib ratio of two normalised texts that are the same running head
TOLERANCE = 1.0  # points of overlap allowed between furniture and the body it lies beyond
ROTATED = 4.0  # a block this many times taller than wide is a rotated line
CANDIDATE_TYPES = ("text", "title", "list_item", "footnote", "caption", "header", "footer", "page_number")
FURNITURE_TYPES = ("header", "footer", "page_number")

CHAPTER_PAGE = re.compile(r"^[A-Z]?\d{1,3}\s*[-–—.]\s*\d{1,4}$")  # "7-45", "A-3": chapter and page
STAMP = re.compile(r"\barxiv:\s*\d|\bdownloaded\s+(from|by|on)\b", re.IGNORECASE)
REVISION = re.compile(r"^(rev(ised|ision)?\.?|version|v(?=\d)|last\s+(updated|revised|modified)|updated|issued|"
                      r"effective|printed|as\s+of)(?![a-z])[^\d\n]{0,12}\d", re.IGNORECASE)  # and a number soon
BARE_NUMBER = re.compile(r"^\d{1,5}$")
DIGITS = re.compile(r"\d+")
SPACES = re.compile(r"\s+")

Zone = Literal["top", "bottom", "side"]


@dataclass(slots=True)
class Candidate:
    block: Block
    zone: Zone
    y: float  # vertical centre in points
    height: float  # the page's (pages of one document may differ in size)
    text: str  # normalised: lower case, digit runs as one 0, single spaces
    in_band: bool  # in the band or margin proper; else only a like block in another page's band confirms it

    @property
    def center(self) -> float:
        """The vertical centre as a share of the page height."""
        return self.y / self.height


class FurnitureStage:
    """Types the running heads, footers, page numbers and margin stamps of each document in the batch."""

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        documents: dict[str, list[PageState]] = defaultdict(list)
        for page in pages:
            documents[page.input.pdf_path].append(page)
        for document in documents.values():
            mark_furniture(document)
        return pages


def mark_furniture(pages: list[PageState]) -> None:
    """Marks the furniture on the pages of one document (any subset of its pages, in any order)."""
    candidates = [outer_candidates(page) for page in pages]
    for index, page_candidates in enumerate(candidates):
        others = [c for other, cs in enumerate(candidates) if other != index for c in cs]
        numbers = _page_numbers(page_candidates)
        marked = [region.bbox for region in pages[index].regions if region.type in FURNITURE_TYPES]
        for candidate in page_candidates:
            block = candidate.block
            if block.type in FURNITURE_TYPES:
                continue
            if not candidate.in_band:
                if _repeated(candidate, [other for other in others if other.in_band]):
                    block.type = "page_number" if _is_page_number(block) else _zone_type(candidate)
            elif any(candidate is number for number in numbers):
                block.type = "page_number"
            elif (_repeated(candidate, others) or STAMP.search(block.text) or _beside_a_number(candidate, numbers)
                  or (candidate.zone == "side" and (_margin_mark(block) or BARE_NUMBER.match(block.text.strip())))
                  or (candidate.zone != "side" and (REVISION.match(block.text.strip()) or (
                      any(same_region(block.bbox, box) for box in marked) and not CAPTION.match(block.text))))):
                block.type = _zone_type(candidate)


def outer_candidates(page: PageState) -> list[Candidate]:
    """The page's short blocks in an outer zone with no body content beyond them."""
    width, height = page.input.width, page.input.height
    if width <= 0 or height <= 0:
        return []
    body = body_size(page.blocks)
    eligible = [b for b in page.blocks if b.type in CANDIDATE_TYPES and b.text.strip() and b.lines
                and (body <= 0 or b.size <= MAX_SIZE * body)]

    eligible_ids = {id(b) for b in eligible}
    top_band = [b for b in page.blocks if b.bbox[3] <= BAND * height and _band_member(b, eligible_ids)]
    bottom_band = [b for b in page.blocks if b.bbox[1] >= (1 - BAND) * height and _band_member(b, eligible_ids)]
    banded = {id(b) for b in top_band + bottom_band}

    def in_left(b: Block) -> bool:
        return b.bbox[2] <= SIDE * width

    def in_right(b: Block) -> bool:
        return b.bbox[0] >= (1 - SIDE) * width

    middle = [b for b in page.blocks if not in_left(b) and not in_right(b)]
    left_edge = min((b.bbox[0] for b in middle), default=width)
    right_edge = max((b.bbox[2] for b in middle), default=0.0)
    side = [b for b in eligible if id(b) not in banded and (_short(b) or _margin_mark(b)) and (
        (in_left(b) and b.bbox[2] <= left_edge + TOLERANCE) or (in_right(b) and b.bbox[0] >= right_edge - TOLERANCE))]

    outside = banded | {id(b) for b in side}
    body_blocks = [b for b in page.blocks if id(b) not in outside]
    body_top = min((b.bbox[1] for b in body_blocks), default=height)
    body_bottom = max((b.bbox[3] for b in body_blocks), default=0.0)

    found: list[Candidate] = []
    for zone, blocks, outer in (
        ("top", top_band, lambda b: b.bbox[3] <= body_top + TOLERANCE),
        ("bottom", bottom_band, lambda b: b.bbox[1] >= body_bottom - TOLERANCE),
        ("side", side, lambda b: True),
    ):
        found += [_candidate(block, zone, height, True) for block in blocks
                  if block.type in CANDIDATE_TYPES and outer(block)]

    # a little further in, beyond all the body still: confirmed only by a block like it in a band of another page
    # (a page of another size in the same document carries its page number at the same place, out of the band)
    tops = heapq.nsmallest(2, body_blocks, key=lambda b: b.bbox[1])
    bottoms = heapq.nlargest(2, body_blocks, key=lambda b: b.bbox[3])
    for block in eligible:
        if id(block) in outside or not _short(block):
            continue
        top = next((b.bbox[1] for b in tops if b is not block), math.inf)  # the highest top of the rest of the body
        bottom = next((b.bbox[3] for b in bottoms if b is not block), -math.inf)
        if block.bbox[3] <= WIDE_BAND * height and top >= block.bbox[3] - TOLERANCE:
            found.append(_candidate(block, "top", height, False))
        elif block.bbox[1] >= (1 - WIDE_BAND) * height and bottom <= block.bbox[1] + TOLERANCE:
            found.append(_candidate(block, "bottom", height, False))
    return found


def _candidate(block: Block, zone: Zone, height: float, in_band: bool) -> Candidate:
    return Candidate(block, zone, (block.bbox[1] + block.bbox[3]) / 2, height, normalize(block.text), in_band)


def _band_member(block: Block, eligible_ids: set[int]) -> bool:
    """Short text, or a small picture (a logo in a running head), may sit in a band without being body."""
    return (id(block) in eligible_ids and _short(block)) or block.type == "figure"


def _short(block: Block) -> bool:
    return len(block.lines) <= MAX_LINES and len(block.text.strip()) <= MAX_CHARS


def normalize(text: str) -> str:
    """Lower case, digit runs as one 0 (page numbers and dates change), whitespace as single spaces."""
    return SPACES.sub(" ", DIGITS.sub("0", text.lower())).strip()


def _is_page_number(block: Block) -> bool:
    """One line that reads as a page number; a lone capital I, V or X is a mark or a word, not a page."""
    text = block.text.strip()
    return len(block.lines) == 1 and len(text) > 0 and not (len(text) == 1 and text.isupper()) \
        and bool(PAGE_NUMBER.match(text) or CHAPTER_PAGE.match(text))


def _page_numbers(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates that are page numbers. Numbers stacked on several rows of a zone are a column
    of a table or a list (or, in a side margin, line numbers), not page numbers, unless an earlier
    stage typed them so."""
    numbers = [c for c in candidates if c.in_band and (c.block.type == "page_number" or _is_page_number(c.block))]
    kept = []
    for zone in ("top", "bottom", "side"):
        found = [c for c in numbers if c.zone == zone]
        if all(_same_row(found[0].block, c.block) for c in found[1:]):
            kept += found
        else:
            kept += [c for c in found if c.block.type == "page_number"]
    return kept


def _same_row(a: Block, b: Block) -> bool:
    reach = max(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1]) / 2 + TOLERANCE
    return abs((a.bbox[1] + a.bbox[3]) / 2 - (b.bbox[1] + b.bbox[3]) / 2) <= reach


def _repeated(candidate: Candidate, others: list[Candidate]) -> bool:
    """Whether like text sits in the same zone at the same height, in the same size, on another page."""
    if not any(ch.isalnum() for ch in candidate.text):
        return False
    size = candidate.block.size
    for other in others:
        if other.zone != candidate.zone or not _same_height(candidate, other):
            continue
        if abs(other.block.size - size) > SAME_SIZE * max(size, other.block.size):
            continue
        if other.text == candidate.text or SequenceMatcher(None, other.text, candidate.text).ratio() >= SIMILAR:
            return True
    return False


def _same_height(a: Candidate, b: Candidate) -> bool:
    """At the same share of the page height, or at the same place in points on pages of other sizes."""
    return abs(a.center - b.center) <= SAME_HEIGHT or abs(a.y - b.y) <= SAME_HEIGHT * min(a.height, b.height)


def _beside_a_number(candidate: Candidate, numbers: list[Candidate]) -> bool:
    """A line on the row of a page number in the same band: "Title of the paper   9"."""
    if candidate.zone == "side":
        return False
    block = candidate.block
    middle = (block.bbox[1] + block.bbox[3]) / 2
    for number in numbers:
        if number.block is block or number.zone != candidate.zone:
            continue
        other = number.block.bbox
        reach = max(block.bbox[3] - block.bbox[1], other[3] - other[1]) / 2 + TOLERANCE
        if len(block.lines) == 1 and abs(middle - (other[1] + other[3]) / 2) <= reach:
            return True
    return False


def _margin_mark(block: Block) -> bool:
    """A rotated line (OCR reads it turned) or a column of line numbers."""
    width, height = block.bbox[2] - block.bbox[0], block.bbox[3] - block.bbox[1]
    rotated = len(block.lines) <= 2 and width > 0 and height >= ROTATED * width
    numbers = len(block.lines) >= 3 and all(BARE_NUMBER.match(line.text.strip()) for line in block.lines)
    return rotated or numbers


def _zone_type(candidate: Candidate) -> BlockType:
    if candidate.zone == "top":
        return "header"
    if candidate.zone == "bottom":
        return "footer"
    return "header" if candidate.center < 0.5 else "footer"
