"""Placing a VLM's blocks on the page: on the text layer's words, and on a scan's detected lines."""

from engine.types import Line
from engine.vlm.align import latex_tokens, layer_words, place_by_lines, place_by_words
from engine.vlm.answer import Draft

WIDTH, HEIGHT = 600.0, 800.0


def line(text: str, y: float, x0: float = 60.0, size: float = 10.0, x1: float | None = None) -> Line:
    return Line(text=text, bbox=(x0, y, x1 or x0 + 5.0 * len(text), y + size), size=size)


LAYER = [
    line("Annual Report", 30, size=8),  # a running head the model leaves out
    line("Harbour Office Accounts", 70, size=18),
    line("The harbour office kept its accounts in", 120, x1=540),  # justified: the column's width
    line("ledgers that ran over two lines.", 132),
    line("a2 + b2 = c2", 160, x0=250),
    line("The accounts of the harbour office were", 190, x1=540),
    line("audited every year.", 202),
    line("3", 770),
]


def test_blocks_are_placed_on_their_words_in_order():
    drafts = [Draft(type="title", text="Harbour Office Accounts"),
              Draft(type="text", text="The harbour office kept its accounts in ledgers that ran over two lines."),
              Draft(type="formula", text="a^{2} + b^{2} = c^{2}", latex="a^{2} + b^{2} = c^{2}"),
              Draft(type="text", text="The accounts of the harbour office were audited every year.")]
    blocks = place_by_words(drafts, layer_words(LAYER), [], WIDTH, HEIGHT)
    assert all(block.placed for block in blocks)
    title, first, formula, second = blocks
    assert title.bbox == (60.0, 70.0, 60.0 + 5 * 23, 88.0)
    assert (first.bbox[1], first.bbox[3]) == (120.0, 142.0)
    assert (second.bbox[1], second.bbox[3]) == (190.0, 212.0)  # not the first paragraph's like words
    assert formula.bbox[1] == 160.0 and formula.formula.latex == "a^{2} + b^{2} = c^{2}"
    assert formula.text == "a2 + b2 = c2"  # a formula's text is its printed glyphs


def test_a_formula_unlike_its_glyphs_takes_the_free_words_between_its_neighbours():
    drafts = [Draft(type="text", text="The harbour office kept its accounts in ledgers that ran over two lines."),
              Draft(type="formula", text="\\sqrt{x}", latex="\\sqrt{x}"),
              Draft(type="text", text="The accounts of the harbour office were audited every year.")]
    formula = place_by_words(drafts, layer_words(LAYER), [], WIDTH, HEIGHT)[1]
    assert formula.placed and formula.bbox[1] == 160.0 and formula.bbox[3] == 170.0
    assert formula.text == "a2 + b2 = c2"


def test_a_block_whose_words_are_not_on_the_page_gets_the_page_and_a_flag():
    drafts = [Draft(type="title", text="Harbour Office Accounts"),
              Draft(type="text", text="Words painted on a photograph of the quay, in no text layer."),
              Draft(type="figure", text="A photograph of the quay")]
    title, painted, figure = place_by_words(drafts, layer_words(LAYER), [], WIDTH, HEIGHT)
    assert title.placed
    assert not painted.placed and painted.bbox == (0.0, 0.0, WIDTH, HEIGHT)
    assert painted.text == "Words painted on a photograph of the quay, in no text layer."
    assert not figure.placed


def test_a_figure_without_a_box_takes_a_picture_drawn_on_the_page():
    drafts = [Draft(type="title", text="Harbour Office Accounts"), Draft(type="figure", text="The quay")]
    pictures = [(0.0, 0.0, WIDTH, HEIGHT), (100.0, 300.0, 400.0, 500.0)]  # a page-size image is no figure
    figure = place_by_words(drafts, layer_words(LAYER), pictures, WIDTH, HEIGHT)[1]
    assert figure.placed and figure.bbox == (100.0, 300.0, 400.0, 500.0)


def test_latex_tokens_read_as_printed():
    assert latex_tokens(r"a^{2} + b^{2} = \frac{c}{d}") == ["a2", "+", "b2", "=", "c", "d"]


SCAN_LINES = [
    (56.0, 28.0, 171.0, 38.0),  # running head, 8 pt
    (187.0, 70.0, 408.0, 95.0),  # title, 18 pt
    (56.0, 120.0, 539.0, 134.0), (56.0, 135.0, 539.0, 149.0), (56.0, 149.0, 104.0, 164.0),
    (56.0, 173.0, 539.0, 187.0), (56.0, 188.0, 492.0, 202.0),
    (529.0, 803.0, 534.0, 815.0),  # page number
]


FIRST = ("The municipal archive received forty metres of records from the harbour office this year. Most of the "
         "files are ledgers and letters written between 1890 and 1935, and about a third had suffered water damage "
         "before they were transferred.")
SECOND = ("Every box was listed on arrival, and the ledgers were cleaned, flattened and scanned at three hundred dots "
          "per inch. The letters will follow once the conservation studio has repaired the worst.")


def test_blocks_on_a_scan_take_the_runs_of_lines_that_fit_their_text():
    drafts = [Draft(type="title", text="Letter to the Harbour Board"), Draft(type="text", text=FIRST),
              Draft(type="text", text=SECOND), Draft(type="figure", text="A stamp")]
    title, one, two, figure = place_by_lines(drafts, list(reversed(SCAN_LINES)), 595.0, 842.0)
    assert title.bbox == SCAN_LINES[1]  # the running head, of about the title's length, is left out
    assert one.bbox == (56.0, 120.0, 539.0, 164.0)
    assert two.bbox == (56.0, 173.0, 539.0, 202.0)
    assert all(block.placed for block in (title, one, two)) and not figure.placed


def test_a_block_with_the_models_box_keeps_it_and_its_lines():
    drafts = [Draft(type="header", text="Municipal Archive - Annual Report", box=(50.0, 25.0, 180.0, 40.0)),
              Draft(type="title", text="Letter to the Harbour Board"), Draft(type="text", text=FIRST),
              Draft(type="text", text=SECOND)]
    header, title, one, _ = place_by_lines(drafts, SCAN_LINES, 595.0, 842.0)
    assert header.bbox == (50.0, 25.0, 180.0, 40.0)
    assert title.bbox == SCAN_LINES[1] and one.bbox == (56.0, 120.0, 539.0, 164.0)
