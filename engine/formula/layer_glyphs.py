"""A born-digital formula's glyphs and rules, read from its page: what engine/formula/glyph_layout.py reads
LaTeX from."""

import unicodedata

import pymupdf

from engine.formula.glyph_atoms import Glyph
from engine.formula.tex_symbols import font_role
from engine.geometry import center_inside, union
from engine.mathiness import UNICODE_MATH_FONT, math_letters_repaired
from engine.types import BBox

# ink boxes (not the font's ascent and descent), the code of a glyph MuPDF cannot name, no spaces made up
_FLAGS = (pymupdf.TEXT_ACCURATE_BBOXES | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE | pymupdf.TEXT_INHIBIT_SPACES
          | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_PRESERVE_LIGATURES)
REACH = 1.0  # points beyond a block's box where its glyphs' centres may lie
TOUCH = 0.5  # points between a glyph beside a block's box and the nearest glyph taken, at most


def page_glyphs(page: pymupdf.Page) -> list[Glyph]:
    """Every glyph of the page's text layer set left to right; none on a page with /Rotate, whose text MuPDF
    reports unrotated.

    Combining marks (\\vec's arrow, \\not's slash) come from the trace of what the page draws: MuPDF's text
    extraction moves them to the end of the glyph before, or drops one that opens a line."""
    if page.rotation:
        return []
    glyphs = []
    for block in page.get_text("rawdict", flags=_FLAGS)["blocks"]:
        for line in block.get("lines", ()):
            dx, dy = line["dir"]
            if abs(dy) > 1e-3 or dx <= 0:
                continue
            for span in line["spans"]:
                font, size = span["font"], float(span["size"])
                glyphs.extend(Glyph(math_letters_repaired(char["c"], font), font, size, _inked(char["bbox"], size),
                                    float(char["origin"][1]))
                              for char in span["chars"] if not unicodedata.combining(char["c"]))
    return glyphs + _combining_marks(page)


def _combining_marks(page: pymupdf.Page) -> list[Glyph]:
    """The combining marks the page draws, where it draws them: their ink taken to lie above their origin, where an
    accent's lies (0.55-0.8 em up), over the glyph after it in TeX's fonts, over the glyph before it in a Unicode
    math font (a combining mark follows its letter there, with no advance of its own)."""
    marks = []
    for span in page.get_texttrace():
        if span["dir"][1] or span["dir"][0] <= 0:
            continue
        size = float(span["size"])
        unicode_math = UNICODE_MATH_FONT.search(span["font"]) is not None and font_role(span["font"]) == "text"
        for code, _, (x, y), box in span["chars"]:
            if code <= 0 or not unicodedata.combining(chr(code)):
                continue
            if unicode_math and float(box[2]) - x < 0.01:  # a mark with no advance, drawn back over the glyph before
                x0, x1 = x - 0.5 * size, x
            else:  # TeX's marks are set before the glyph they go over and reach over it
                x0, x1 = x, max(float(box[2]), x + 0.5 * size)
            marks.append(Glyph(chr(code), span["font"], size, (x0, y - 0.8 * size, x1, y - 0.55 * size), float(y)))
    return marks


def _accent_over(glyph: Glyph, taken: list[Glyph]) -> bool:
    """Whether the glyph is an accent mark right over one of the glyphs taken."""
    if unicodedata.category(glyph.char) not in ("Mn", "Sk"):
        return False
    return any(min(glyph.bbox[2], g.bbox[2]) > max(glyph.bbox[0], g.bbox[0])
               and 0 <= g.bbox[1] - glyph.bbox[3] < 0.3 * g.size for g in taken)


def _inked(box: tuple[float, float, float, float], size: float) -> BBox:
    """A glyph's ink box; a glyph MuPDF gives no width (\\mapsto's bar, set before the arrow it goes with)
    reaches half an em to the right, over that glyph."""
    x0, y0, x1, y1 = map(float, box)
    return (x0, y0, x0 + 0.5 * size, y1) if x1 - x0 < 0.01 and y1 > y0 else (x0, y0, x1, y1)


def formula_parts(glyphs: list[Glyph], drawings: list[BBox], box: BBox) -> tuple[list[Glyph], list[BBox]]:
    """The glyphs and drawn boxes of a formula's block: those whose centre lies in its box, and glyphs beside it
    that touch what is taken (a radical sign the block's lines left out). Drawn boxes other than thin rules come
    along too, so that the layout sees what it cannot explain."""
    region = (box[0] - REACH, box[1] - REACH, box[2] + REACH, box[3] + REACH)
    inside = [glyph for glyph in glyphs if center_inside(glyph.bbox, region)]
    grown = True
    while grown and inside:
        left, right = min(g.bbox[0] for g in inside), max(g.bbox[2] for g in inside)
        touching = [g for g in glyphs if g not in inside and (
            region[1] <= (g.bbox[1] + g.bbox[3]) / 2 <= region[3]
            and (abs(g.bbox[2] - left) < TOUCH or abs(g.bbox[0] - right) < TOUCH) or _accent_over(g, inside))]
        inside += touching
        grown = bool(touching)
    if inside:
        ink = union([g.bbox for g in inside])
        region = (min(region[0], ink[0] - REACH), min(region[1], ink[1] - REACH), max(region[2], ink[2] + REACH),
                  max(region[3], ink[3] + REACH))
    return inside, [d for d in drawings if center_inside(d, region)]
