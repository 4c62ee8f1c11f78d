"""LaTeX for display-formula blocks, read from crops made the way the model learnt (engine/formula/crops.py)."""

import logging
import re
from collections import Counter

import numpy as np

from engine.formula import FormulaModel
from engine.formula.crops import ends_with_number, flatten_paper, formula_crop
from engine.formula.glyph_layout import formula_latex
from engine.formula.layer_glyphs import formula_parts, page_glyphs
from engine.formula.styles import canonical_latex
from engine.orientation import displayed_box
from engine.skew import scan_skew
from engine.stages.classify import body_size
from engine.types import Block, Formula, PageState

__all__ = ["FormulaStage", "balance_groups", "flatten_paper", "strip_math_wrapper"]

log = logging.getLogger(__name__)

MAX_BATCH = 16
# what a fault in reading a formula's glyphs raises; not MuPDF's errors nor a page budget's, which are the page's
LAYOUT_FAULTS = (ArithmeticError, LookupError, ValueError, TypeError, AttributeError)
LAYER_CONFIDENCE = 1.0  # a formula built from the text layer's own glyphs: every symbol is the PDF's
_ENVIRONMENTS = r"equation|displaymath|align|gather|eqnarray|multline"
_WRAPPER = re.compile(
    rf"^\s*(\\\[|\$\$|\$|\\begin\{{({_ENVIRONMENTS})\*?\}})\s*(?P<body>.*?)\s*"
    rf"(\\\]|\$\$|\$|\\end\{{({_ENVIRONMENTS})\*?\}})\s*$",
    re.DOTALL,
)
# one row of an alignment environment (or a one-column array) around the whole formula: a wrapper
_ONE_ROW = re.compile(r"^\s*\\begin\{(?P<env>aligned|gathered|split|array\}\{[lcr])\}\s*(?P<body>.*?)\s*"
                      r"\\end\{(aligned|gathered|split|array)\}\s*$", re.DOTALL)
# an equation number the model read at the end, after a space ("\qquad (3)")
_TRAILING_NUMBER = re.compile(r"\s*(\\q?quad|\\hfill|\\hspace\*?\{[^{}]*\}|~)+\s*\(\s*\d+(\.\d+)?[a-z]?\s*\)\s*$")


def strip_math_wrapper(latex: str) -> str:
    """The formula without the display-math environment the model may put around it, nor a trailing
    equation number set apart by space."""
    match = _WRAPPER.match(latex)
    body = match.group("body").strip() if match else latex.strip()
    single = _ONE_ROW.match(body)
    if single and single.group(3) == single.group("env").split("}")[0] \
            and "\\\\" not in single.group("body") and "\\end{" not in single.group("body"):
        body = single.group("body").replace("&", "").strip()
    return _TRAILING_NUMBER.sub("", body).strip()


_GROUPING = re.compile(r"\\[{}]|\\(begin|end)\s*\{([^}]*)\}|[{}]")


def balance_groups(latex: str) -> str:
    r"""The LaTeX with its groups closed: a `}` or `\end{x}` that closes nothing dropped, and braces and
    environments still open at the end (decoding cut by the length cap) closed in order."""
    parts: list[str] = []
    open_groups: list[str] = []  # "}" for a brace, the name for an environment
    position = 0
    for match in _GROUPING.finditer(latex):
        parts.append(latex[position:match.start()])
        position = match.end()
        token, kind, name = match.group(0), match.group(1), match.group(2)
        if token == "{":
            open_groups.append("}")
        elif token == "}":
            if not open_groups or open_groups[-1] != "}":
                continue
            open_groups.pop()
        elif kind == "begin":
            open_groups.append(name)
        elif kind == "end":
            if name not in open_groups or "}" in open_groups[open_groups.index(name):]:
                continue
            while open_groups[-1] != name:
                parts.append(f"\\end{{{open_groups.pop()}}}")
            open_groups.pop()
        parts.append(token)
    parts.append(latex[position:])
    closing = ["}" if group == "}" else f"\\end{{{group}}}" for group in reversed(open_groups)]
    return "".join(parts + closing)


def _set_by_text_layer(page: PageState, block: Block) -> bool:
    """Whether the formula's glyphs are the text layer's, on an upright page (not read by OCR, not turned)."""
    return (page.use_text_layer and page.turn == 0 and page.source is not None and block.confidence is None
            and bool(block.lines) and all(line.confidence is None for line in block.lines))


def formula_size(block: Block) -> float:
    """The font size most of the formula's text-layer characters are set in (its scripts are smaller); 0 for
    an OCR'd formula, whose line heights say more about its tall signs than about its size."""
    sizes: Counter[float] = Counter()
    for line in block.lines:
        for span in line.spans:
            sizes[round(span.size * 2) / 2] += len(span.text.strip())
    return sizes.most_common(1)[0][0] if sizes and block.confidence is None else 0.0


class FormulaStage:
    """Gives each formula block LaTeX: built from its glyphs and rules where the page's text layer set it
    (engine/formula/glyph_layout.py), else read by the model from a crop of the page; with neither, a formula
    keeps only its box.

    One crop per formula block, a multi-line (aligned) formula included: the model reads two lines
    as well as one (benchmarks/formula_crops.py). `from_layer=False` leaves every formula to the model.
    """

    def __init__(self, model: FormulaModel | None, from_layer: bool = True):
        self.model = model
        self.from_layer = from_layer

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        blocks = [(page, block) for page in pages for block in page.blocks if block.type == "formula"]
        if self.from_layer:
            blocks = self._from_layer(blocks)
        if self.model is None or not blocks:
            return pages
        crops = self._crops(blocks)
        for start in range(0, len(blocks), MAX_BATCH):
            chunk = blocks[start:start + MAX_BATCH]
            for (_, block), (latex, confidence) in zip(chunk, self.model(crops[start:start + MAX_BATCH])):
                latex = balance_groups(canonical_latex(strip_math_wrapper(latex), block.lines))
                if latex:
                    block.formula = Formula(latex=latex, display=True, confidence=round(confidence, 4))
        return pages

    def _from_layer(self, blocks: list[tuple[PageState, Block]]) -> list[tuple[PageState, Block]]:
        """LaTeX from the glyphs of the formulas a text layer set; the blocks left for the model."""
        left, glyphs = [], {}
        for page, block in blocks:
            if not _set_by_text_layer(page, block):
                left.append((page, block))
                continue
            try:
                if id(page) not in glyphs:
                    glyphs[id(page)] = page_glyphs(page.source.page(page.input))
                latex = formula_latex(*formula_parts(glyphs[id(page)], page.input.drawing_boxes, block.bbox))
            except LAYOUT_FAULTS:  # a fault of the glyph reading costs the formula its shortcut, not the page
                log.warning("page %s: the formula at %s is read from its crop: reading its glyphs failed",
                            page.input.key, block.bbox, exc_info=True)
                latex = None
            if latex is None:
                left.append((page, block))
            else:
                block.formula = Formula(latex=latex, display=True, confidence=LAYER_CONFIDENCE)
        return left

    def _crops(self, blocks) -> list[np.ndarray]:
        """Each block's crop, rendered from its page in the batch's source (its handle for clips)."""
        crops, pages = [], {}
        for page, block in blocks:
            scanned = not page.use_text_layer or block.confidence is not None or any(
                line.confidence is not None for line in block.lines)  # read by OCR: its pixels are a scan
            if id(page) not in pages:  # the PDF's page, the page's body size, and its skew when it is a scan
                skew = scan_skew(page) if scanned and page.image is not None else 0.0
                pages[id(page)] = (page.source.clip_page(page.input), body_size(page.blocks), skew)
            pdf_page, body, skew = pages[id(page)]
            em = formula_size(block) or body
            numbered = bool(block.lines) and ends_with_number(max(block.lines, key=lambda l: l.bbox[2]).text)
            crops.append(formula_crop(pdf_page, displayed_box(page, block.bbox), em, scanned,
                                      skew if scanned else 0.0, page.turn, numbered))
        return crops
