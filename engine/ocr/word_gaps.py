"""Spaces a recognizer left out, put back where the line's ink shows a word gap.

PP-OCR recognizers read spaces from context and drop some between words ("ValleyAirport", "1.1Security"; tiny more
often than small). Each character a CTC recognizer emits comes from one step of the line, so it has a place on the
line; where two neighbouring characters with no space read between them stand either side of a blank as wide as a
word gap, a space goes there (as Tesseract spaces words: by the gaps between its blobs). A word gap is at least
MIN_WORD_GAP line heights; on a line whose letters stand far apart (a monospaced listing: `console.log(`) or whose
spaces are wide, the bar rises with them. A space only goes between a word's end (a letter, a figure, a closing
mark) and a word's start (a letter, a figure, an opening bracket): never before a comma, inside brackets, between
two figures or after a figure's decimal point or thousands separator (a narrow "1" stands far from its neighbours),
unless two digits stand as far apart as a table's cells (CELL_GAP line heights).
"""

import cv2
import numpy as np

from engine.ink import blank
from engine.ocr.detector import column_runs

MIN_WORD_GAP = 0.22  # line heights: on scans 95% of the word gaps were wider, all but 0.1% of the others narrower
CELL_GAP = 0.5  # line heights: two digits this far apart stand in two table cells ("16.1   718,631")
SPACE_SHARE = 0.7  # of the median gap at the spaces the recognizer did read (two or more on the line)
LETTER_FACTOR = 1.5  # times the 75th percentile of the gaps between the line's letters
BAND = (0.15, 0.85)  # rows ink is looked for in, as shares of the line's height (not a neighbour's descenders)
ENDS_WORD = frozenset(".,;:!?)]}\"'")
STARTS_WORD = frozenset("([{")


def spaced(chars: list[str], centres: np.ndarray, crop: np.ndarray) -> str:
    """The line's characters joined, with a space wherever two neighbours stand either side of a word gap.
    `centres`: where on the crop each character was read, in its pixels from the left."""
    glyphs = [(char, float(x)) for char, x in zip(chars, centres) if char != " "]
    read_space = [False] * len(glyphs)  # a space read between glyph i - 1 and glyph i
    count = 0
    for char in chars:
        if char != " ":
            count += 1
        elif 0 < count < len(glyphs):
            read_space[count] = True
    columns = blank_columns(crop)
    if columns is None or len(glyphs) < 2:
        return "".join(chars)
    gaps = _widest_blanks(columns, np.array([x for _, x in glyphs[:-1]]), np.array([x for _, x in glyphs[1:]]))
    spaces = [gap for gap, space in zip(gaps, read_space[1:]) if space]
    letters = [gap for gap, space in zip(gaps, read_space[1:]) if not space]
    bar = max(MIN_WORD_GAP * crop.shape[0], SPACE_SHARE * float(np.median(spaces)) if len(spaces) >= 2 else 0.0,
              LETTER_FACTOR * float(np.percentile(letters, 75)) if letters else 0.0)
    text = glyphs[0][0]
    for (char, _), gap, space in zip(glyphs[1:], gaps, read_space[1:]):
        cells = gap >= CELL_GAP * crop.shape[0] and text[-1].isdigit() and char.isdigit()
        if space or cells or (gap >= bar and _word_edge(text, char)):
            text += " "
        text += char
    return text


def _word_edge(before: str, after: str) -> bool:
    """Whether a word may end where `before` does and the next begin with `after`."""
    end = before[-1]
    if after.isdigit() and (end.isdigit() or (end in ".," and before[-2:-1].isdigit())):
        return False
    return (end.isalnum() or end in ENDS_WORD) and (after.isalnum() or after in STARTS_WORD)


def blank_columns(crop: np.ndarray, rows: tuple[float, float] = BAND) -> np.ndarray | None:
    """For each column of the crop, whether the band `rows` of the line (shares of its height) has no ink there;
    None: no ink at all."""
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
    height = grey.shape[0]
    top = int(rows[0] * height)
    band = np.ascontiguousarray(grey[top:max(int(rows[1] * height), top + 1)])
    if blank(band):
        return None
    _, ink = cv2.threshold(band, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return ~ink.any(axis=0)


def _widest_blanks(columns: np.ndarray, lefts: np.ndarray, rights: np.ndarray) -> np.ndarray:
    """The widest run of blank columns (`columns` True) between each left and right place, in columns."""
    runs = np.array(column_runs(columns, 1)).reshape(-1, 2)
    if not len(runs):
        return np.zeros(len(lefts))
    inside = np.minimum(runs[None, :, 1], rights[:, None]) - np.maximum(runs[None, :, 0], lefts[:, None])
    return np.clip(inside, 0, None).max(axis=1)
