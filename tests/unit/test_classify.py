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
