"""Formula crops (scale, margin, equation numbers, deskew) and the LaTeX made canonical, on pages the tests make."""

from pathlib import Path

import cv2
import numpy as np
import pymupdf
import pytest

from engine.formula.crops import EM_PIXELS, MARGIN_EM, formula_crop, ink_box
from engine.formula.junia import JuniaFormulaModel
from engine.formula.styles import canonical_latex, font_families, prune_styles, tidy
from engine.page_source import PageSource
from engine.render import render_page
from engine.skew import page_skew
from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.formulas import FormulaStage, strip_math_wrapper
from engine.stages.text_layer import TextLayerStage
from engine.types import Line, PageState, Span
from pages.pdf import page_input

FORMULA = "a + b = c"
BODY = ("The committee asked for the derivation to be spelled out in full, since earlier drafts left the key "
        "step to the reader. ")


def numbered_page(path: Path, size: float = 12.0) -> Path:
    """A page of prose with a centred display formula (Times-Italic) and its number "(3)" at the right margin."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(60, 80, 535, 300), BODY * 4, fontname="Times-Roman", fontsize=size)
    page.insert_text((250, 340), FORMULA, fontname="Times-Italic", fontsize=size)
    page.insert_text((515, 340), "(3)", fontname="Times-Roman", fontsize=size)
    page.insert_textbox(pymupdf.Rect(60, 365, 535, 600), BODY * 3, fontname="Times-Roman", fontsize=size)
    document.save(path)
    document.close()
    return path


def formula_width(size: float) -> float:
    return pymupdf.Font("tiit").text_length(FORMULA, fontsize=size)


@pytest.fixture(scope="module")
def model() -> JuniaFormulaModel:
    return JuniaFormulaModel(device="cpu")


def test_a_numbered_display_formula_keeps_its_number_out_of_the_crop_and_the_latex(tmp_path: Path,
                                                                                   model: JuniaFormulaModel,
                                                                                   page_source: PageSource):
    pdf = numbered_page(tmp_path / "numbered.pdf")
    pages = [PageState(input=page_input(page_source.document(str(pdf))[0], "0", pdf), source=page_source)]
    for stage in (TextLayerStage(), BlockStage(), ClassifyStage()):
        pages = stage(pages)
    [formula] = [b for b in pages[0].blocks if b.type == "formula"]
    assert formula.text.endswith("(3)") and formula.bbox[2] < 400  # the number is the text's, not the box's
    stage = FormulaStage(model)
    [crop] = stage._crops([(pages[0], formula)])
    # scaled so the 12 pt body's em is EM_PIXELS, cut to the ink, with a margin: as wide as the formula alone
    expected = formula_width(12) * EM_PIXELS / 12 + 2 * round(MARGIN_EM * EM_PIXELS)
    assert abs(crop.shape[1] - expected) < 0.1 * expected
    stage(pages)
    latex = formula.formula.latex
    assert "3" not in latex and "(" not in latex, latex
    assert "a" in latex and "=" in latex


def test_a_number_that_reached_into_the_formula_box_is_cut_from_the_crop(tmp_path: Path):
    pdf = numbered_page(tmp_path / "numbered.pdf")
    with pymupdf.open(pdf) as document:
        whole_row = (240, 325, 540, 345)  # as if OCR had read formula and number as one line
        kept = formula_crop(document[0], whole_row, 12.0, scanned=False, numbered=True)
        not_numbered = formula_crop(document[0], whole_row, 12.0, scanned=False, numbered=False)
    expected = formula_width(12) * EM_PIXELS / 12 + 2 * round(MARGIN_EM * EM_PIXELS)
    assert abs(kept.shape[1] - expected) < 0.1 * expected
    assert not_numbered.shape[1] > 2 * kept.shape[1]  # without the cue the number stays: nothing else is cut


@pytest.mark.parametrize("size", [9.0, 14.0])
def test_the_crop_scale_follows_the_body_size_not_the_render(tmp_path: Path, size: float):
    """The same formula at 9 and 14 pt gives crops of the same size: the model sees one picture."""
    pdf = numbered_page(tmp_path / "numbered.pdf", size=size)
    with pymupdf.open(pdf) as document:
        box = (245, 340 - size, 250 + formula_width(size) + 5, 340 + 0.3 * size)
        crop = formula_crop(document[0], box, size, scanned=False)
    expected = formula_width(12) * EM_PIXELS / 12 + 2 * round(MARGIN_EM * EM_PIXELS)
    assert abs(crop.shape[1] - expected) < 0.1 * expected


def skewed_scan(path: Path, angle: float, dpi: int = 200) -> Path:
    """A page of prose and a wide formula, rendered, turned by `angle` degrees, blurred, on grey paper."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(60, 80, 535, 330), BODY * 5, fontname="Times-Roman", fontsize=11)
    page.insert_text((150, 360), "a + b + c + d + e + f + g = h", fontname="Times-Italic", fontsize=14)
    page.insert_textbox(pymupdf.Rect(60, 380, 535, 700), BODY * 6, fontname="Times-Roman", fontsize=11)
    grey = render_page(page, dpi / 72)[:, :, 0].astype(np.float32)
    document.close()
    h, w = grey.shape
    grey = cv2.warpAffine(grey, cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), (w, h), borderValue=255)
    grey = 30 + cv2.GaussianBlur(grey, (0, 0), 0.8) * (200 / 255)
    scan = pymupdf.open()
    ok, png = cv2.imencode(".png", np.clip(grey, 0, 255).astype(np.uint8))
    scan.new_page(width=595, height=842).insert_image(pymupdf.Rect(0, 0, 595, 842), stream=png.tobytes())
    scan.save(path)
    scan.close()
    return path


def ink_slope(crop: np.ndarray) -> float:
    """Slope of the ink's centre line across the crop (rows per column): 0 for a level line of text."""
    ink = crop[:, :, 0] < 128
    columns = np.nonzero(ink.any(axis=0))[0]
    centres = [np.nonzero(ink[:, x])[0].mean() for x in columns]
    return float(np.polyfit(columns, centres, 1)[0])


def test_a_skewed_scan_is_found_skewed_and_its_formula_crop_levelled(tmp_path: Path):
    pdf = skewed_scan(tmp_path / "skewed.pdf", angle=1.2)
    with pymupdf.open(pdf) as document:
        page = document[0]
        skew = page_skew(render_page(page, 150 / 72))
        assert skew == pytest.approx(-1.2, abs=0.1)  # the turn that levels it back
        x0, y0, x1 = 145, 340, 150 + pymupdf.Font("tiit").text_length("a + b + c + d + e + f + g = h", 14) + 5
        box = (x0, y0 - 5, x1, y0 + 30)  # the formula's box on the skewed page: taller than the formula
        levelled = formula_crop(page, box, 11.0, scanned=True, skew=skew)
        left_skewed = formula_crop(page, box, 11.0, scanned=True, skew=0.0)
    assert abs(ink_slope(left_skewed)) > 0.015  # about tan(1.2 degrees)
    assert abs(ink_slope(levelled)) < 0.005
    assert ink_box(levelled[:, :, 0]) is not None and levelled[:, :, 0].min() < 60  # flattened: black ink
    assert levelled.shape[0] < left_skewed.shape[0]  # cut to the levelled ink: less height


def test_a_level_page_is_not_turned():
    page = np.full((400, 300, 3), 255, np.uint8)
    for y in range(40, 360, 16):
        page[y:y + 6, 30:270] = 0
    assert page_skew(page) == 0.0
    assert page_skew(np.full((400, 300), 255, np.uint8)) == 0.0  # blank


TIDIED = {  # LaTeX as decoded: as tidied
    r"\mathit{a}^{2}+\mathit{b}^{2}=\mathit{c}^{2}": r"a^{2}+b^{2}=c^{2}",
    r"y=\mbox{\boldmath$\phi$}_{0}+\mbox{$x$}": r"y=\boldsymbol{\phi}_{0}+x",
    r"\lim_{x\to0}\hspace{-.3cm}\frac{\sin x}{x}\thinspace=1": r"\lim_{x\to0}\frac{\sin x}{x}=1",
    r"\mathcal{\mathcal{C}}(\mathcal{s})": r"\mathcal{C}(s)",
    r"\sum_{\scriptscriptstyle i=1}^{n}x_{}": r"\sum_{i=1}^{n}x",
    r"e^{\text{--}st}": r"e^{-st}",
    r"{\bf x}+\alpha\mathit{x}": r"\mathbf{x}+\alpha x",
    r"\mathcal{L}\{f\}=\mathit{xy}": r"\mathcal{L}\{f\}=\mathit{xy}",  # what changes the picture stays
}


@pytest.mark.parametrize(("latex", "tidied"), TIDIED.items())
def test_layout_only_commands_go(latex: str, tidied: str):
    assert tidy(latex) == tidied


def span_line(*spans: tuple[str, str]) -> Line:
    return Line(text="".join(t for _, t in spans), bbox=(0, 0, 100, 10), size=10,
                spans=[Span(text=t, bbox=(0, 0, 10, 10), size=10, font=f, bold=False) for f, t in spans])


def test_styles_the_formula_fonts_cannot_show_are_pruned():
    plain = [span_line(("CMMI10", "f"), ("CMR10", "("), ("CMMI10", "x"), ("CMR10", ") = 0"))]
    assert font_families(plain) == set()
    assert canonical_latex(r"f(\mathfrak{x})=\boldsymbol{0}", plain) == "f(x)=0"
    assert canonical_latex(r"\mathscr{L}=\mathsf{y}", plain) == r"\mathcal{L}=y"
    bold = [span_line(("CMBX10", "F"), ("CMR10", " = "), ("CMMI10", "q"), ("EUFM10", "g"))]
    assert font_families(bold) == {"bold", "fraktur"}
    assert canonical_latex(r"\mathbf{F}=q\mathfrak{g}", bold) == r"\mathbf{F}=q\mathfrak{g}"
    unicode_math = [span_line(("CambriaMath", "\U0001d405 = \U0001d45e"))]  # bold F, italic q
    assert font_families(unicode_math) == {"bold"}
    assert canonical_latex(r"x_\mathbf{ij}", []) == r"x_\mathbf{ij}"  # no fonts (a scan): styles kept
    assert prune_styles(r"x_\mathbf{ij}+\alpha\mathbf{x}", set()) == r"x_{ij}+\alpha x"
    unknown = [span_line(("F1", "f(x) = 0"))]  # fonts named F1, F2: their names cannot tell
    assert font_families(unknown) is None
    text_font = [span_line(("URWPalladioL-Roma", "log"), ("URWPalladioL-Ital", "x"))]  # no math font: bold may be
    assert font_families(text_font) == {"bold"}
    assert canonical_latex(r"\log(\mathfrak{x})+\mathbf{y}", text_font) == r"\log(x)+\mathbf{y}"


@pytest.mark.parametrize(("latex", "body"), [
    (r"\begin{eqnarray*}x=1\end{eqnarray*}", "x=1"),
    (r"\begin{array}{l}x=\frac{1}{2}\end{array}", r"x=\frac{1}{2}"),
    (r"\begin{array}{l}x\\y\end{array}", r"\begin{array}{l}x\\y\end{array}"),  # two rows: structure
    (r"\begin{aligned}\nabla^{2}\phi&=0\end{aligned}", r"\nabla^{2}\phi=0"),
    (r"\begin{array}{cc}a&b\end{array}", r"\begin{array}{cc}a&b\end{array}"),  # two cells: structure
    (r"f(x)=x \qquad (3)", "f(x)=x"),
    (r"f(3)", "f(3)"),
])
def test_wrappers_and_a_trailing_number_are_stripped(latex: str, body: str):
    assert strip_math_wrapper(latex) == body


def test_a_formula_set_larger_than_the_body_is_scaled_by_its_own_size(tmp_path: Path, model: JuniaFormulaModel,
                                                                     page_source: PageSource):
    from tests.pdfs import formula_page_pdf

    pdf = formula_page_pdf(tmp_path)  # "a + b = c" at 16 pt on a page of 10.5 pt text
    pages = [PageState(input=page_input(page_source.document(str(pdf))[0], "0", pdf), source=page_source)]
    for stage in (TextLayerStage(), BlockStage(), ClassifyStage(), FormulaStage(model, from_layer=False)):
        pages = stage(pages)
    [formula] = [b for b in pages[0].blocks if b.type == "formula"]
    assert formula.formula.latex.replace(" ", "") == "a+b=c"


def test_a_crop_is_turned_upright_with_its_page(tmp_path: Path):
    """The box is given on the displayed page; the crop comes out turned as the page is read."""
    pdf = numbered_page(tmp_path / "numbered.pdf")
    with pymupdf.open(pdf) as document:
        box = (245, 325, 250 + formula_width(12) + 5, 345)
        upright = formula_crop(document[0], box, 12.0, scanned=False)
        turned = formula_crop(document[0], box, 12.0, scanned=False, turn=90)
    assert turned.shape == (upright.shape[1], upright.shape[0], 3)
    assert np.array_equal(turned, np.ascontiguousarray(np.rot90(upright, k=-1)))
