"""OCR lines that run two table cells' figures together, cut where the page's ink parts them
(engine/figure_runs.py), on lines set by PyMuPDF and rendered as OCR renders pages."""

import pymupdf
import pytest

from engine.config import PIPELINE_DEFAULTS
from engine.figure_runs import body_figure, cut_figure_runs, figure_or_mark, figure_words
from engine.render import render_page
from engine.types import Line

SCALE = PIPELINE_DEFAULTS.ocr_dpi / 72


def test_a_line_of_figures_and_missing_marks_is_a_run_and_a_figure_with_a_thin_space_is_one():
    assert figure_words("949,718 975,492") == ["949,718", "975,492"]
    assert figure_words("x 641,475 (13.0)") == ["x", "641,475", "(13.0)"]
    assert figure_words("1 234 56.7") == ["1 234", "56.7"]
    assert figure_words("45.2") is None  # one figure
    assert figure_words("Men 45.2") is None  # a label beside it
    assert figure_words(".. –") is None  # marks without a figure
    assert figure_words("2019 2020") == ["2019", "2020"]


def test_a_measurement_with_its_spread_is_one_figure():
    """Papers print a mean with its spread ("74.2 ± 2.1") in one cell: a figure of the body, not a run of two."""
    assert body_figure("74.2 ± 2.1") and body_figure("0.428±0.05") and figure_or_mark("-1.5 ± 0.3%")
    assert figure_words("74.2 ± 2.1") is None
    assert not body_figure("± 2.1") and not body_figure("74.2 ± n/a")


def run_line(texts: list[tuple[float, str]]) -> tuple[Line, object]:
    """Texts set at their x on one line, rendered, and the OCR line the detector would give over all of them."""
    document = pymupdf.open()
    page = document.new_page(width=400, height=40)
    for x, text in texts:
        page.insert_text((x, 25), text, fontname="helv", fontsize=9)
    words = page.get_text("words")
    box = (min(w[0] for w in words) - 2, min(w[1] for w in words) - 2, max(w[2] for w in words) + 2,
           max(w[3] for w in words) + 2)
    grey = render_page(page, SCALE)[:, :, 0]
    line = Line(text=" ".join(text for _, text in texts), bbox=box, size=9, confidence=0.97)
    return line, grey


def test_two_right_aligned_figures_a_cell_gap_apart_are_cut_into_two_pieces_where_their_ink_is():
    line, grey = run_line([(100, "949,718"), (142, "975,492")])
    [pieces] = cut_figure_runs([line], grey, SCALE).values()
    assert [piece.text for piece in pieces] == ["949,718", "975,492"]
    assert pieces[0].bbox[0] == pytest.approx(100, abs=2) and pieces[0].bbox[2] < 135
    assert pieces[1].bbox[0] == pytest.approx(142, abs=2) and pieces[1].bbox[2] == pytest.approx(line.bbox[2], abs=3)
    assert all(piece.confidence == line.confidence and piece.bbox[1::2] == line.bbox[1::2] for piece in pieces)


@pytest.mark.parametrize("texts", [[(100, "45.2"), (120, "(1.3)")],  # a value and its error, one space apart
                                   [(100, "Total"), (140, "975,492")],  # not all figures
                                   [(100, "949,718"), (142, "975,492"), (190, "12.5")]])  # 3 figures, 2 read
def test_a_figure_and_its_error_in_one_cell_or_a_line_that_is_not_a_run_stays_whole(texts):
    line, grey = run_line(texts)
    if len(texts) == 3:
        line.text = "949,718 975,49212.5"
    assert cut_figure_runs([line], grey, SCALE) == {}


def test_a_text_layer_line_is_never_cut():
    line, grey = run_line([(100, "949,718"), (142, "975,492")])
    line.confidence = None
    assert cut_figure_runs([line], grey, SCALE) == {}
