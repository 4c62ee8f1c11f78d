from engine.stages.reading_order import reading_order, xy_order
from engine.types import Block


def block(name: str, x0: float, y0: float, x1: float, y1: float, kind: str = "text") -> Block:
    return Block(type=kind, bbox=(x0, y0, x1, y1), text=name)


def names(blocks: list[Block]) -> list[str]:
    return [b.text for b in blocks]


def test_two_columns_are_read_column_by_column_below_a_full_width_title():
    blocks = [
        block("R1", 310, 120, 540, 200), block("L1", 60, 120, 290, 180), block("title", 60, 70, 540, 100),
        block("L2", 60, 185, 290, 300), block("R2", 310, 205, 540, 320), block("L3", 60, 305, 290, 400),
    ]
    assert names(xy_order(blocks)) == ["title", "L1", "L2", "L3", "R1", "R2"]


def test_a_full_width_block_between_two_column_sections_ends_the_first_section():
    blocks = [
        block("L1", 60, 100, 290, 200), block("R1", 310, 100, 540, 200),
        block("table", 60, 220, 540, 300),
        block("L2", 60, 320, 290, 400), block("R2", 310, 320, 540, 400),
    ]
    assert names(xy_order(blocks)) == ["L1", "R1", "table", "L2", "R2"]


def test_three_columns():
    blocks = [block(f"{c}{r}", 50 + c_i * 170, 100 + r * 60, 200 + c_i * 170, 150 + r * 60)
              for c_i, c in enumerate("ABC") for r in range(3)]
    assert names(xy_order(blocks)) == ["A0", "A1", "A2", "B0", "B1", "B2", "C0", "C1", "C2"]


def test_margins_go_around_the_body_and_footnotes_after_it():
    blocks = [
        block("body", 60, 100, 540, 600), block("note", 60, 700, 540, 720, "footnote"),
        block("folio", 500, 800, 540, 810, "page_number"), block("running head", 60, 30, 200, 40, "header"),
        block("footer", 60, 800, 200, 810, "footer"),
    ]
    assert names(reading_order(blocks, 842)) == ["running head", "body", "note", "footer", "folio"]


def test_a_margin_stamp_is_kept_whichever_half_of_the_page_it_sits_in():
    blocks = [
        block("body", 60, 100, 540, 600), block("stamp", 14, 300, 26, 640, "header"),
        block("side note", 560, 100, 580, 380, "footer"),
    ]
    assert names(reading_order(blocks, 842)) == ["stamp", "body", "side note"]


def test_headings_side_by_side_do_not_hide_the_gutter():
    blocks = [
        block("table", 190, 320, 420, 420),
        block("2 Implementation", 71, 432, 170, 444), block("3 Technical Notes", 317, 432, 414, 444),
        block("L1", 71, 460, 295, 518), block("R1", 317, 449, 541, 531), block("L2", 71, 531, 295, 637),
        block("4 Responsibilities", 317, 544, 414, 556), block("R2", 317, 562, 541, 644),
    ]
    assert names(xy_order(blocks)) == ["table", "2 Implementation", "L1", "L2", "3 Technical Notes", "R1",
                                       "4 Responsibilities", "R2"]


def test_a_short_first_band_in_one_column_still_opens_the_two_column_section():
    blocks = [block("L0", 60, 100, 200, 110), block("L1", 60, 120, 290, 200), block("R1", 310, 115, 540, 210),
              block("L2", 60, 205, 290, 300), block("R2", 310, 215, 540, 300)]
    assert names(xy_order(blocks)) == ["L0", "L1", "L2", "R1", "R2"]
