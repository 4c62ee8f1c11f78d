"""Tables typed in a monospaced font, cells lined up by spaces (engine/stages/spaced_columns.py), on text layers
PyMuPDF writes and reads."""

import pymupdf

from engine.stages.spaced_columns import spaced_apart
from pages.pdf import read_text_layer

ROWS = ["State                        2021        2022",
        "District of Columbia    1,048,774     702,710",
        "Alaska                  5,269,671   4,320,867"]


def layer_lines(font: str) -> list:
    document = pymupdf.open()
    page = document.new_page(width=400, height=120)
    for index, row in enumerate(ROWS):
        page.insert_text((20, 30 + 12 * index), row, fontname=font, fontsize=9)
    return read_text_layer(page).lines


def test_a_row_typed_in_courier_is_cut_where_its_cells_stand_two_spaces_apart():
    lines = layer_lines("cour")
    assert [line.text for line in lines] == ["State 2021 2022", "District of Columbia 1,048,774 702,710",
                                             "Alaska 5,269,671 4,320,867"]  # one run of text a row
    assert [[piece.text for piece in spaced_apart(line)] for line in lines] == [
        ["State", "2021", "2022"], ["District of Columbia", "1,048,774", "702,710"], ["Alaska", "5,269,671",
                                                                                    "4,320,867"]]
    piece = spaced_apart(lines[1])[1]
    assert piece.bbox[1::2] == lines[1].bbox[1::2] and [word.text for word in piece.words] == ["1,048,774"]


def test_a_line_in_a_proportional_font_or_read_by_ocr_stays_whole():
    [line, *_] = layer_lines("helv")
    assert spaced_apart(line) == [line]
    [typed, *_] = layer_lines("cour")
    typed.confidence = 0.9
    assert spaced_apart(typed) == [typed]
