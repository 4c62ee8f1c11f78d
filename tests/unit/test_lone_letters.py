"""A letter OCR read alone in a cell of a scan, in the case its ink shows against the figures of its row
(engine/lone_letters.py)."""

import numpy as np
import pymupdf

from engine.lone_letters import lone_letters_cased
from engine.types import Line


def rendered(rows: list[tuple[str, ...]], read: dict[str, str], dpi: int = 150) -> tuple[np.ndarray, float, list[Line]]:
    """Rows in columns rendered grey at `dpi`, with the lines OCR read: each cell's text, or `read`'s reading of it."""
    document = pymupdf.open()
    page = document.new_page()
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")
    lines = []
    for r, row in enumerate(rows):
        y = 100 + 16 * r
        for x, text in zip((72, 200, 260, 320), row):
            writer.append((x, y), text, font=font, fontsize=9)
            width = font.text_length(text, fontsize=9)
            lines.append(Line(text=read.get(text, text), bbox=(x - 1, y - 9, x + width + 1, y + 3), size=9))
    writer.write_text(page)
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    return np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width), dpi / 72, lines


def test_a_small_x_read_as_a_capital_is_read_small_and_a_capital_stays():
    grey, scale, lines = rendered([("Harbour", "12.5", "x", "7.0"), ("Markets", "X", "3.1", "4.4")], {"x": "X"})
    cased = lone_letters_cased(grey, scale, lines)
    assert [(line.text, cased[id(line)].text) for line in lines if id(line) in cased] == [("X", "x")]


def test_a_capital_read_small_is_read_as_a_capital_and_a_row_without_figures_is_left_alone():
    grey, scale, lines = rendered([("Harbour", "12.5", "X", "7.0"), ("Markets", "Yes", "x", "No")], {"X": "x",
                                                                                                  "x": "X"})
    cased = lone_letters_cased(grey, scale, lines)
    assert [(line.text, cased[id(line)].text) for line in lines if id(line) in cased] == [("x", "X")]
