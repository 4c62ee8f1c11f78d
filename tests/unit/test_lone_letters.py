"""A letter OCR read alone in a cell of a scan, in the case its ink shows against the figures of its row
(engine/lone_letters.py)."""

import numpy as np

from engine.lone_letters import lone_letters_cased
from engine.types import Line
from tests.pdfs import rendered_rows


def rendered(rows: list[tuple[str, ...]], read: dict[str, str]) -> tuple[np.ndarray, float, list[Line]]:
    """Rows rendered grey, with the lines OCR read: each cell's text, or `read`'s reading of it."""
    grey, scale, cells = rendered_rows(rows, pitch=16)
    return grey, scale, [Line(text=read.get(text, text), bbox=box, size=9) for text, box in cells]


def test_a_small_x_read_as_a_capital_is_read_small_and_a_capital_stays():
    grey, scale, lines = rendered([("Harbour", "12.5", "x", "7.0"), ("Markets", "X", "3.1", "4.4")], {"x": "X"})
    cased = lone_letters_cased(grey, scale, lines)
    assert [(line.text, cased[id(line)].text) for line in lines if id(line) in cased] == [("X", "x")]


def test_a_capital_read_small_is_read_as_a_capital_and_a_row_without_figures_is_left_alone():
    grey, scale, lines = rendered([("Harbour", "12.5", "X", "7.0"), ("Markets", "Yes", "x", "No")], {"X": "x",
                                                                                                  "x": "X"})
    cased = lone_letters_cased(grey, scale, lines)
    assert [(line.text, cased[id(line)].text) for line in lines if id(line) in cased] == [("x", "X")]
