"""The case of a letter OCR read alone in a table's cell of a scan: a statistical table's "x" (a suppressed value)
is read "X" as often as not, since a lone letter gives the recognizer no line to measure it by. The page does:
a lower-case letter's ink reaches the x-height, a capital's the height of the figures beside it."""

import re
from dataclasses import replace

import numpy as np

from engine.ink import pixel_window
from engine.marks import DARK
from engine.types import Line

TWO_CASES = "CcOoSsVvWwXxZz"  # letters whose capital is their small letter set larger
FIGURE = re.compile(r"[+\-−–]?[\d.,]*\d[\d.,]*%?")
SMALL = 0.85  # of the figures' height: a letter shorter than this is the small one (x-height is 0.68-0.75 of it)


def lone_letters_cased(grey: np.ndarray, scale: float, lines: list[Line]) -> dict[int, Line]:
    """By id, the lines that are one two-case letter, read again in the case their ink's height shows against the
    figures of their row (a row without figures leaves its letters as OCR read them)."""
    cased: dict[int, Line] = {}
    for line in lines:
        text = line.text.strip()
        if len(text) != 1 or text not in TWO_CASES:
            continue
        middle = (line.bbox[1] + line.bbox[3]) / 2
        figures = [other for other in lines if other is not line and FIGURE.fullmatch(other.text.strip())
                   and other.bbox[1] <= middle <= other.bbox[3]]
        letter = _ink_rows(grey, scale, line)
        tops = [rows[0] for rows in (_ink_rows(grey, scale, other) for other in figures) if rows is not None]
        if letter is None or not tops:
            continue
        top, bottom = letter
        small = bottom - top < SMALL * (bottom - float(np.median(tops)))
        reading = text.lower() if small else text.upper()
        if reading != text:
            cased[id(line)] = replace(line, text=reading)
    return cased


def _ink_rows(grey: np.ndarray, scale: float, line: Line) -> tuple[float, float] | None:
    """The first and last rows (in points) of the line box's ink."""
    x0, y0, x1, y1 = pixel_window(grey, scale, line.bbox)
    if x1 <= x0 or y1 <= y0:
        return None
    inked = np.flatnonzero((grey[y0:y1, x0:x1] < DARK).any(axis=1))
    return None if not len(inked) else ((y0 + inked[0]) / scale, (y0 + inked[-1] + 1) / scale)
