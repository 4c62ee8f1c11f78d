"""Lines that run two table cells' figures together (engine/figure_runs.py): OCR lines cut where the page's ink parts
them, on lines set by PyMuPDF and rendered as OCR renders pages; text-layer lines cut at their words' gaps."""

import pymupdf
import pytest

from engine.config import PIPELINE_DEFAULTS
from engine.figure_runs import body_figure, cut_figure_runs, figure_or_mark, figure_words, figures_apart, two_figures
from engine.render import render_page
from engine.types import Line, Word

SCALE = PIPELINE_DEFAULTS.ocr_dpi / 72


def test_a_line_of_figures_and_missing_marks_is_a_run_and_a_figure_with_a_thin_space_is_one():
    assert figure_words("949,718 975,492") == ["949,718", "975,492"]
    assert figure_words("x 641,475 (13.0)") == ["x", "641,475", "(13.0)"]
    assert figure_words("1 234 56.7") == ["1 234", "56.7"]
    assert figure_words("1 234 567 12 345") == ["1 234 567", "12 345"]
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


def layer_line(words: list[tuple[str, float, float]], size: float = 8.0) -> Line:
    """A text-layer line of words at their (x0, x1), a third taller than its font size as PyMuPDF boxes lines."""
    boxes = [Word(text, (x0, 100, x1, 100 + 1.35 * size)) for text, x0, x1 in words]
    return Line(text=" ".join(text for text, _, _ in words), bbox=(words[0][1], 100, words[-1][2], 100 + 1.35 * size),
                size=size, words=boxes)


def test_a_text_layer_line_across_a_narrow_gutter_is_cut_beside_its_figures():
    """Chromium sets a label and two figures of a dense table as one text-layer line (their gaps, 7.5 pt at 8 pt,
    are under the 1.2 em that parts a page's lines): cut beside each figure; a figure with its error one space
    apart, words of a label, a thin-spaced figure and a justified line of a cell's text stay whole."""
    line = layer_line([("February", 54.0, 89.0), ("4,476", 96.5, 116.0), ("2,369", 123.5, 143.0)])
    assert [piece.text for piece in figures_apart(line)] == ["February", "4,476", "2,369"]
    assert [piece.bbox[::2] for piece in figures_apart(line)] == [(54.0, 89.0), (96.5, 116.0), (123.5, 143.0)]
    assert [piece.words for piece in figures_apart(line)] == [[word] for word in line.words]
    whole = layer_line([("Kidney", 54.0, 78.0), ("disease", 80.0, 106.0), ("45.2", 108.0, 124.0), ("(1.3)", 126.0,
                                                                                                142.0)])
    assert figures_apart(whole) == [whole]
    assert [piece.text for piece in figures_apart(layer_line([("Total", 54.0, 74.0), ("1", 96.0, 100.0),
                                                               ("234", 101.5, 113.5)]))] == ["Total", "1 234"]
    justified = layer_line([("classes", 54.0, 80.0), ("at", 87.5, 94.0), ("32", 101.5, 109.0), ("by", 116.5, 124.0),
                            ("32", 131.5, 139.0), ("pixels", 146.5, 170.0)])  # a narrow column's stretched spaces
    assert figures_apart(justified) == [justified]
    label = layer_line([("Northern", 54.0, 86.0), ("Islands", 87.8, 112.0), ("8,592,743", 115.0, 145.0)])
    assert figures_apart(label) == [label]  # a label and its figure 0.4 em apart: the table's columns part them


def test_two_figures_side_by_side_are_two_cells_however_narrow_the_gutter():
    """A table of ten year columns set with 3 px of padding: its figures stand 0.4 em apart, less than the space
    some fonts set between words. Two figures on one line are two cells unless they are one figure set in groups of
    digits, a figure and its error in brackets, or a figure that OCR read with a space after a separator."""
    assert two_figures("8,669,908", "7,057,071") and two_figures("2014", "2015") and two_figures("-1.2", "66,076")
    assert not two_figures("1", "234") and not two_figures("590", "669")  # "1 234", "7 590 669"
    assert not two_figures("1980", "915")  # "1 980 915" read without its first thin space
    assert not two_figures("45.2", "(1.3)") and not two_figures("8,669,", "908")
    assert not two_figures("Total", "1,234") and not two_figures("74.2", "±")
    line = layer_line([("Coastal", 54.0, 84.0), ("8,696,548", 110.0, 140.0), ("8,904,210", 143.2, 173.2),
                       ("953,424", 180.7, 203.2)], size=8.0)  # gutters of 3.2 pt at 8 pt
    assert [piece.text for piece in figures_apart(line)] == ["Coastal", "8,696,548", "8,904,210", "953,424"]
    grouped = layer_line([("7", 54.0, 58.0), ("590", 59.5, 71.5), ("669", 73.0, 85.0), ("1", 88.5, 92.5),
                          ("234", 94.0, 106.0)])
    assert [piece.text for piece in figures_apart(grouped)] == ["7 590 669", "1 234"]
    ocr = layer_line([("4,476", 96.5, 116.0), ("2,369", 118.5, 138.0)])
    ocr.confidence = 0.97  # an OCR line's words are boxed by its ink (engine/ocr/word_boxes.py)
    assert [(piece.text, piece.bbox[::2]) for piece in figures_apart(ocr)] == [("4,476", (96.5, 116.0)),
                                                                            ("2,369", (118.5, 138.0))]
    parted = layer_line([("72", 96.5, 104.0), ("2", 106.0, 110.0)])
    parted.confidence = 0.9  # OCR read "72.2" without its point: a lone digit stays with the figure before it
    assert figures_apart(parted) == [parted]
