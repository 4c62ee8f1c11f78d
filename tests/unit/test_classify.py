import numpy as np
import pytest

from engine.stages.classify import ClassifyStage
from engine.types import Block, Line, PageInput, PageState, Region

PAGE_HEIGHT = 842.0


def make_block(text: str, y0: float, size: float = 10.0, bold: bool = False, math: float = 0.0,
               x0: float = 60.0, x1: float = 540.0, lines: int = 1) -> Block:
    rows = [Line(text=text, bbox=(x0, y0 + i * size * 1.2, x1, y0 + (i + 1) * size * 1.2), size=size, bold=bold,
                 math=math) for i in range(lines)]
    return Block(type="text", bbox=(x0, y0, x1, y0 + lines * size * 1.2), lines=rows, text=text)


def classify_all(blocks: list[Block]) -> list[str]:
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=blocks)
    ClassifyStage()([page])
    return [b.type for b in page.blocks]


BODY = "The archive holds the records of the harbour office from 1890 to 1935 and more. " * 3


@pytest.mark.parametrize(("block", "expected"), [
    (make_block("12", 810, x0=520, x1=540), "page_number"),
    (make_block("Page 3 of 10", 20, x0=480, x1=540), "page_number"),
    (make_block("Municipal Archive - Annual Report", 20, size=8), "header"),
    (make_block("Internal distribution only", 815, size=8), "footer"),
    (make_block("Table 2: Boxes by series, 2024.", 400), "caption"),
    (make_block("Table B-1. Employees on nonfarm payrolls by industry", 400), "caption"),
    (make_block("Tableau 3 – Emploi salarié par secteur", 400), "caption"),
    (make_block("Abbildung 2: Bevölkerung nach Alter", 400), "caption"),
    (make_block("Table 4. Resident population by state", 30, size=9), "caption"),  # on top of its page
    (make_block("Table 3 shows that the ledgers were kept apart.", 400), "text"),
    (make_block("Annual Report of the Archive", 100, size=18), "title"),
    (make_block("3. Results", 300, bold=True), "title"),
    (make_block("(b) minutes of the board, which were kept apart.", 500, lines=2), "list_item"),
    (make_block("1 The ledgers were re-bound in 1952.", 700, size=8), "footnote"),
    (make_block("E = mc2", 600, math=0.6, x0=250, x1=340), "formula"),
])
def test_block_types(block: Block, expected: str):
    body = [make_block(BODY, 150 + 60 * i, lines=4) for i in range(6)]
    types = classify_all(body + [block])
    assert types[-1] == expected
    assert set(types[:-1]) == {"text"}


def test_an_equation_number_joins_its_formula():
    body = [make_block(BODY, 150, lines=4)]
    formula = make_block("a + b = c", 400, math=0.8, x0=250, x1=340)
    number = make_block("(3)", 400, x0=520, x1=540)
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=body + [formula, number])
    ClassifyStage()([page])
    assert [b.type for b in page.blocks] == ["text", "formula"]
    assert page.blocks[1].text == "a + b = c (3)"
    assert page.blocks[1].bbox[2] == 340  # the box stays the formula's own


def test_scraps_of_a_display_formula_become_one_formula_block():
    body = [make_block(BODY, 150 + 60 * i, lines=4) for i in range(3)]
    parts = [
        make_block("n", 335, x0=262, x1=268), make_block("∑", 341, x0=258, x1=272),
        make_block("i=1", 355, x0=258, x1=274), make_block("i = n(n + 1)", 345, x0=276, x1=336, math=0.8),
        make_block("2", 357, x0=300, x1=306),
    ]
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=body + parts)
    ClassifyStage()([page])
    formulas = [b for b in page.blocks if b.type == "formula"]
    assert len(formulas) == 1 and len(page.blocks) == 4
    assert formulas[0].bbox == (258, 335, 336, 357 + 12)


def test_a_sentence_with_an_equals_sign_is_not_a_formula():
    body = [make_block(BODY, 150 + 60 * i, lines=4) for i in range(3)]
    sentence = make_block("The total = the sum of all boxes received this year", 400, math=0.4)
    assert classify_all(body + [sentence])[-1] == "text"


def scanned_page(blocks: list[Block], ink_boxes: list[tuple[int, int, int, int]]) -> PageState:
    """A page whose render (1 pixel per point) has black rectangles where the ink is."""
    image = np.full((int(PAGE_HEIGHT), 595, 3), 255, np.uint8)
    for x0, y0, x1, y1 in ink_boxes:
        image[y0:y1, x0:x1] = 0
    return PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=blocks, image=image, image_scale=1.0)


def test_a_scanned_formula_box_grows_to_its_ink_and_takes_the_scraps_inside():
    body = make_block(BODY, 150, lines=4)
    formula = make_block("I = ( 0 )", 402, math=0.9, x0=376, x1=416)  # OCR saw only the middle row
    scrap = make_block("0", 382, x0=456, x1=464)  # a matrix entry read as a line of its own
    number = make_block("(3)", 402, x0=520, x1=540)
    ink = [(380, 405, 396, 410),  # I =
           (401, 380, 405, 432),  # tall bracket
           (410, 383, 416, 390), (410, 405, 416, 412), (410, 424, 416, 431),  # first column
           (424, 383, 430, 390), (440, 383, 446, 390), (456, 383, 464, 390),  # first row, 8 apart
           (470, 380, 474, 432),  # closing bracket
           (522, 405, 538, 414),  # the equation number, 48 to the right
           (60, 150, 540, 196)]  # the paragraph above
    page = scanned_page([body, formula, scrap, number], ink)
    ClassifyStage()([page])
    assert [b.type for b in page.blocks] == ["text", "formula"]
    assert page.blocks[1].bbox == (380, 380, 474, 432)
    assert page.blocks[1].text == "0 I = ( 0 ) (3)"  # the scrap joins; the number is attached after


def test_ink_outside_a_formula_row_stays_out():
    formula = make_block("a + b = c", 400, math=0.9, x0=250, x1=340)
    ink = [(252, 402, 338, 410),  # the formula
           (250, 425, 340, 433)]  # a line of ink below it, not on its row
    page = scanned_page([make_block(BODY, 150, lines=4), formula], ink)
    ClassifyStage()([page])
    assert page.blocks[1].bbox == (252, 402, 338, 410)


def test_an_ocr_block_the_layout_model_calls_a_title_is_a_title():
    heading = make_block("I. CONCLUSION", 300, x0=60, x1=160)  # a list marker by pattern
    heading.confidence = 0.95  # read by OCR: no font size or weight to go by
    typed = make_block("Archive holdings", 400, x0=60, x1=200)  # from a text layer: the rules decide
    body = [make_block(BODY, 150, lines=4)]
    regions = [Region("title", (58, 298, 170, 313), 0.9), Region("title", (58, 398, 210, 413), 0.9)]
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=body + [heading, typed], regions=regions)
    ClassifyStage()([page])
    assert [b.type for b in page.blocks] == ["text", "title", "text"]


def test_a_block_the_layout_model_marks_as_a_caption_is_a_caption():
    line = Line(text="Example 3-10 Activating RCAC on the EMPLOYEES table", bbox=(137, 292, 375, 300), size=8)
    body = Line(text="Now that you have created the row permission and the two column masks, RCAC must be activated.",
                bbox=(137, 229, 547, 239), size=10)
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=612, height=792, text_lines=[]))
    state.blocks = [Block(type="text", bbox=line.bbox, lines=[line], text=line.text),
                    Block(type="text", bbox=body.bbox, lines=[body], text=body.text)]
    state.regions = [Region(type="caption", bbox=(137, 291, 375, 300), score=1.0)]
    [result] = ClassifyStage()([state])
    assert [b.type for b in result.blocks] == ["caption", "text"]


def ocr_block(text: str, box: tuple[float, float, float, float], size: float = 10.0) -> Block:
    """A block read by OCR: a confidence, and the math share OCR gives its text."""
    from engine.mathiness import text_math_share

    line = Line(text=text, bbox=box, size=size, confidence=0.9, math=text_math_share(text))
    return Block(type="text", bbox=box, lines=[line], text=text, confidence=0.9)


def classify_page(blocks: list[Block], regions: list[Region]) -> PageState:
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=PAGE_HEIGHT,
                                     text_lines=[]), blocks=blocks, regions=regions)
    ClassifyStage()([page])
    return page


def test_the_scraps_of_a_layout_formula_region_become_one_formula_with_its_number_apart():
    """An OCR'd formula in pieces: the tall right part reads as a heading by its line height, the left
    part has too few symbols for the rules; the layout model's formula region makes them one formula,
    and the equation number inside the region stays out of the formula's box."""
    body = [ocr_block(BODY, (60, 150 + 60 * i, 540, 190 + 60 * i)) for i in range(3)]
    left = ocr_block("E = 2", (265, 400, 283, 412))
    right = ocr_block("mv2 + mgh", (291, 398, 342, 414), size=13.0)
    number = ocr_block("(1)", (520, 400, 540, 412))
    page = classify_page(body + [left, right, number], [Region("formula", (262, 396, 545, 416), 0.9)])
    formulas = [b for b in page.blocks if b.type == "formula"]
    assert len(formulas) == 1 and len(page.blocks) == 4
    assert formulas[0].bbox == (265, 398, 342, 414)  # not the number's
    assert formulas[0].text.endswith("(1)")


def test_a_paragraph_with_inline_math_in_a_formula_region_stays_text():
    paragraph = make_block("where x = a + b is the sum of the two measured lengths of the rod.", 400,
                           math=0.2, lines=2)
    page = classify_page([make_block(BODY, 150, lines=4), paragraph],
                         [Region("formula", (50, 395, 550, 430), 0.8)])
    assert [b.type for b in page.blocks] == ["text", "text"]


def test_a_region_of_words_without_math_is_no_formula():
    page = classify_page([make_block(BODY, 150, lines=4), make_block("Hence", 400, x0=280, x1=310)],
                         [Region("formula", (270, 395, 320, 415), 0.8)])
    assert [b.type for b in page.blocks] == ["text", "text"]


def test_a_line_with_a_math_sign_and_an_equation_number_is_a_formula():
    """Set in the text font (no math share), with words the rules count as prose ("logb"): the number at
    the margin says it is a display formula."""
    formula = make_block("logb(xy) = logb x + logb y", 400, x0=237, x1=374)
    number = make_block("(2)", 400, x0=529, x1=547)
    prose = make_block("In total there were 3 + 4 boxes, as listed below", 450, x0=60, x1=300)
    prose_number = make_block("(5)", 450, x0=529, x1=547)
    page = classify_page([make_block(BODY, 150, lines=4), formula, number, prose, prose_number], [])
    assert [b.type for b in page.blocks] == ["text", "formula", "text", "text"]
    assert page.blocks[1].text == "logb(xy) = logb x + logb y (2)"


def test_an_equation_number_grouped_with_the_paragraph_below_goes_to_its_formula():
    formula = ocr_block("a2 + b2 = c2", (250, 400, 340, 412))
    formula.lines[0].math = 0.8
    number = Line(text="(2)", bbox=(520, 401, 540, 412), size=10.0, confidence=0.9)
    rest = Line(text="The same bound holds for every k with a constant.", bbox=(60, 416, 540, 428), size=10.0,
                confidence=0.9)
    paragraph = Block(type="text", bbox=(60, 401, 540, 428), lines=[number, rest],
                      text="(2) The same bound holds for every k with a constant.", confidence=0.9)
    page = classify_page([ocr_block(BODY, (60, 150, 540, 190)), formula, paragraph], [])
    assert [b.type for b in page.blocks] == ["text", "formula", "text"]
    assert page.blocks[1].text == "a2 + b2 = c2 (2)"
    assert page.blocks[2].text == "The same bound holds for every k with a constant."
    assert page.blocks[2].bbox == (60, 416, 540, 428)


def test_ocr_scraps_taller_than_the_body_join_their_formula_rather_than_becoming_titles():
    body = [ocr_block(BODY, (60, 150 + 60 * i, 540, 190 + 60 * i)) for i in range(3)]
    formula = ocr_block("||x||2 =", (142, 400, 170, 412))
    formula.lines[0].math = 1.0
    bracket = ocr_block("M", (178, 397, 192, 414), size=14.4)
    page = classify_page(body + [formula, bracket], [])
    assert [b.type for b in page.blocks][-1] == "formula" and len(page.blocks) == 4
    assert page.blocks[-1].bbox == (142, 397, 192, 414)


def test_a_scanned_formula_grows_to_the_big_operator_stacked_over_the_limit_ocr_kept():
    """OCR read only the lower limit "n=0" as math: the sum sign right above it and, on its rows, the
    rest of the formula join it; the equation number stays out."""
    limit = ocr_block("n=0", (154, 234, 168, 239))
    limit.lines[0].math = 1.0
    power = ocr_block("rn", (171, 217, 181, 226))
    number = ocr_block("(1)", (291, 222, 305, 231))
    ink = [(154, 234, 168, 239),  # n=0
           (153, 214, 170, 231),  # the sum sign, 3 above the limit
           (171, 217, 181, 226),  # r^n
           (185, 221, 192, 223),  # =
           (204, 213, 213, 221), (195, 224, 220, 225), (195, 227, 220, 236),  # 1 over 1 - r
           (291, 222, 305, 231),  # (1)
           (60, 150, 540, 196)]  # the paragraph above
    page = scanned_page([ocr_block(BODY, (60, 150, 540, 196)), limit, power, number], ink)
    ClassifyStage()([page])
    assert [b.type for b in page.blocks] == ["text", "formula"]
    assert page.blocks[1].bbox == (153, 213, 220, 239)
    assert page.blocks[1].text.endswith("(1)")


def test_a_figure_the_layout_model_also_calls_a_formula_is_a_formula():
    lines = [Line(text="k=1", bbox=(234, 234, 250, 243), size=8.5, confidence=0.8, math=1.0),
             Line(text="∏(1 + xk) ≤ exp", bbox=(235, 215, 325, 233), size=16.7, confidence=0.8, math=0.8)]
    figure = Block(type="figure", bbox=(233, 204, 376, 244), lines=lines, text="∏(1 + xk) ≤ exp k=1")
    page = classify_page([ocr_block(BODY, (60, 150, 540, 196)), figure],
                         [Region("figure", (233, 204, 376, 244), 0.6), Region("formula", (232, 205, 375, 245), 0.7)])
    assert [b.type for b in page.blocks] == ["text", "formula"]
    assert page.blocks[1].confidence == pytest.approx(0.8)  # read by OCR: its crop is made as a scan's


def test_a_figure_with_prose_stays_a_figure_inside_a_formula_region():
    lines = [Line(text="Number of boxes received per year", bbox=(240, 215, 370, 225), size=9, confidence=0.8)]
    figure = Block(type="figure", bbox=(233, 204, 376, 244), lines=lines, text=lines[0].text)
    page = classify_page([ocr_block(BODY, (60, 150, 540, 196)), figure],
                         [Region("formula", (232, 205, 375, 245), 0.7)])
    assert [b.type for b in page.blocks] == ["text", "figure"]
