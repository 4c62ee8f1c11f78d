"""LaTeX built from a born-digital formula's glyphs and rules (engine/formula/glyph_layout.py), on formulas pdfLaTeX
sets in three font setups, and the formula stage that uses it before the image model."""

import re
from pathlib import Path

import pymupdf
import pytest

from engine.formula.glyph_atoms import Glyph
from engine.formula.glyph_layout import formula_latex
from engine.formula.layer_glyphs import page_glyphs
from engine.mathiness import math_letters_repaired
from engine.page_source import PageSource
from engine.stages import formulas
from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.formulas import LAYER_CONFIDENCE, FormulaStage
from engine.stages.text_layer import TextLayerStage
from engine.types import PageState
from pages.pdf import drawing_boxes, page_input
from tests.tex import PREAMBLES, PROSE, compile_tex, display, formula_pages

FORMULAS = [  # one of each structure the layout reads back
    r"x_{i}^{2} + e^{-t^{2}} = y'",
    r"\frac{a + b}{c_{1}} - \frac{1}{1 + \frac{1}{x}}",
    r"\sqrt{x^{2} + y^{2}} + \sqrt[3]{z}",
    r"\sum_{i=1}^{n} \prod_{j=1}^{m} a_{ij}",
    r"\int_{0}^{\infty} e^{-x}\, dx = 1",
    r"\lim_{n \to \infty} \max_{k} x_{k}",
    r"\mathbf{F} = \mathcal{L} + \mathbb{R}^{n}",
    r"\left( \frac{a}{b} \right)^{2} + \left\| v \right\|",
    r"\hat{x} + \bar{y} + \vec{v} + \tilde{z}",
    r"A = \begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"|x| = \begin{cases} x & x \geq 0 \\ -x & x < 0 \end{cases}",
    r"\begin{aligned} f(x) &= (x + 1)^{2} \\ &= x^{2} + 2x + 1 \end{aligned}",
    r"a \neq b \iff c \notin D",
    r"\sin^{2} \theta + \cos^{2} \theta = \binom{n}{k}",
]

UNNAMED = {("txfonts", 12)}  # txfonts sets \\neq and \\notin in its own font txsyc, whose codes are not read here


def canonical(latex: str) -> str:
    """LaTeX without spacing, sizing and whitespace, and with single-token script braces dropped."""
    latex = re.sub(r"\\(left|right)(?![A-Za-z])|\\[,;!]|\s+", "", latex)
    return re.sub(r"([_^])\{(\\[A-Za-z]+|[A-Za-z0-9])\}", r"\1\2", latex)


@pytest.fixture(scope="module")
def formula_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tex")
    return {setup: formula_pages(folder, setup, FORMULAS, preamble) for setup, preamble in PREAMBLES.items()}


def read_back(pdf: Path, index: int) -> str | None:
    """The LaTeX built from every glyph and rule on the page."""
    with pymupdf.open(pdf) as document:
        page = document[index]
        return formula_latex(page_glyphs(page), drawing_boxes(page.get_drawings()))


@pytest.mark.parametrize("setup", sorted(PREAMBLES))
@pytest.mark.parametrize("index", range(len(FORMULAS)), ids=[f"f{i}" for i in range(len(FORMULAS))])
def test_a_formula_set_by_tex_reads_back_as_its_source(formula_pdfs: dict[str, Path], setup: str, index: int):
    latex = read_back(formula_pdfs[setup], index)
    if (setup, index) in UNNAMED:
        assert latex is None  # a glyph of a font whose encoding is not known here: the image model reads it
    else:
        assert latex is not None
        assert canonical(latex) == canonical(FORMULAS[index])


def glyph(char: str, x: float, baseline: float = 100.0, size: float = 10.0, font: str = "CMMI10",
          height: float = 7.0) -> Glyph:
    return Glyph(char, font, size, (x, baseline - height, x + 5.0, baseline), baseline)


def test_scripts_are_read_from_baseline_shift_and_size():
    glyphs = [glyph("x", 0), glyph("2", 5.5, 96.0, 7.0, "CMR7", 4.5), glyph("i", 5.5, 101.5, 7.0, "CMMI7", 4.5),
              glyph("+", 13, font="CMR10"), glyph("y", 21)]
    assert formula_latex(glyphs, []) == "x_{i}^{2} + y"


def test_what_cannot_be_explained_is_left_to_the_model():
    line = [glyph("a", 0), glyph("=", 8, font="CMR10"), glyph("b", 16)]
    assert formula_latex(line, []) == "a = b"
    assert formula_latex(line + [glyph("\ue123", 24, font="Unknown")], []) is None  # a glyph nobody can name
    assert formula_latex(line, [(40.0, 60.0, 80.0, 60.4)]) is None  # a rule over and under nothing
    assert formula_latex(line, [(0.0, 80.0, 20.0, 95.0)]) is None  # a drawn box, not a rule
    assert formula_latex(line + [glyph("ˆ", 60, 80.0, font="CMR10", height=2.0)], []) is None  # an accent over nothing
    parenthesis = Glyph("\x00", "CMEX10", 10.0, (0.0, 80.0, 5.0, 110.0), 80.0)  # code 0 is a \big (, 12 pt tall
    assert formula_latex(line + [parenthesis], []) is None


def stages_to_formulas(pdf: Path, source: PageSource) -> PageState:
    page = PageState(input=page_input(source.document(str(pdf))[0], "0", pdf), source=source)
    pages = [page]
    for stage in (TextLayerStage(), BlockStage(), ClassifyStage()):
        pages = stage(pages)
    return pages[0]


def test_the_formula_stage_builds_a_text_layer_formula_without_a_model(tmp_path: Path, page_source: PageSource):
    formula = r"\sigma^{2} = \frac{1}{N} \sum_{i=1}^{N} (x_{i} - \mu)^{2}"
    pdf = compile_tex(tmp_path, "paper", f"{PROSE}\n{display(formula)}\n{PROSE}")
    page = stages_to_formulas(pdf, page_source)
    [block] = [b for b in page.blocks if b.type == "formula"]
    FormulaStage(None, from_layer=False)([page])
    assert block.formula is None  # no model, and the text layer not asked
    FormulaStage(None)([page])
    assert canonical(block.formula.latex) == canonical(formula)
    assert block.formula.confidence == LAYER_CONFIDENCE


def test_a_formula_whose_text_layer_is_not_trusted_is_left_to_the_model(tmp_path: Path, page_source: PageSource):
    pdf = compile_tex(tmp_path, "paper", f"{PROSE}\n{display('a^{2} + b^{2} = c^{2}')}\n{PROSE}")
    page = stages_to_formulas(pdf, page_source)
    [block] = [b for b in page.blocks if b.type == "formula"]
    page.use_text_layer = False  # the layer check found the glyphs unreadable: OCR read the page
    assert FormulaStage(None)._from_layer([(page, block)]) == [(page, block)]
    assert block.formula is None


def test_unicode_math_letters_read_as_letters_and_their_lost_plane_put_back():
    line = [Glyph(char, "CambriaMath", 11.0, (x, 90.0, x + 6, 100.0), 100.0)
            for char, x in (("\U0001d44e", 0), ("+", 8), ("\U0001d41b", 16), ("=", 24), ("\u2207", 32))]
    assert formula_latex(line, []) == r"a + \mathbf{b} = \nabla"
    assert math_letters_repaired("\ud44f\u2202\U0002d436", "CambriaMath") == "\U0001d44f\u2202\U0001d436"
    assert math_letters_repaired("\ud44f", "Batang") == "\ud44f"  # a Hangul syllable of a text font stays one


def test_a_fault_in_reading_a_formulas_glyphs_leaves_it_to_the_model_and_says_so(
        tmp_path: Path, page_source: PageSource, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    pdf = compile_tex(tmp_path, "paper", f"{PROSE}\n{display('a^{2} + b^{2} = c^{2}')}\n{PROSE}")
    page = stages_to_formulas(pdf, page_source)
    [block] = [b for b in page.blocks if b.type == "formula"]

    def broken(glyphs, rules):
        raise IndexError("list index out of range")

    monkeypatch.setattr(formulas, "formula_latex", broken)
    assert FormulaStage(None)._from_layer([(page, block)]) == [(page, block)]
    assert "reading its glyphs failed" in caplog.text and "IndexError" in caplog.text


def test_a_glyph_drawn_twice_on_itself_is_read_once():
    line = [glyph("a", 0), glyph("=", 8, font="CMR10"), glyph("b", 16)]
    assert formula_latex(line + [glyph("b", 16.1)], []) == "a = b"  # a fake bold sets "b" again, a little off
