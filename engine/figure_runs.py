"""Lines that run the figures of neighbouring table columns together, cut into one piece a figure.

PP-OCR's detector joins two right-aligned figures of neighbouring columns into one line when the blank between
them is under a line height ("949,718   975,492"), and the recogniser reads them as one text with a space: the table
then sees one piece across two columns, and the columns merge. A line whose words are all figures (or the marks
statistical tables print for a missing value) is cut where its ink leaves a blank of MIN_CELL_GAP line heights or
more, when the ink falls into as many runs as the line has figures: a word space, and the space inside "45.2 (1.3)"
or "1 234", are narrower. A text-layer line is cut the same way where its words stand that far apart beside a
figure (`figures_apart`): a text layer's line runs on across a gutter narrower than its spaces' rule (pages/pdf.py);
and between two figures whatever the gap (a table's gutters can be narrower than 0.4 em): two figures side by side
on one line are two cells, unless they are one figure set in groups of digits ("1 234") or a figure with its error
in brackets ("45.2 (1.3)").
"""

import re
from dataclasses import replace

import numpy as np

from engine.ocr.detector import column_runs
from engine.ocr.word_gaps import blank_columns
from engine.types import Line
from engine.words import cut_between

FIGURE = re.compile(r"[-+−–(]?[$€£]?\d[\d,.\s]*%?\)?(\s*±\s*\d[\d,.]*%?)?")  # a figure as tables print it:
# 1,234.5  (12)  -3%  $40, and a measurement with its spread: 74.2 ± 2.1
MISSING = frozenset({"..", "...", "…", "-", "–", "—", "x", "X", ":", "*", "n/a", "na", "NA", "(NA)", "(D)", "(X)",
                     "(Z)", "s"})  # what statistical offices print for a value not available, suppressed or nil
THOUSANDS_GROUP = re.compile(r"\d{3}([.,]\d+)?%?\)?")  # "234" of "1 234": a figure's next group of digits
GROUPED = re.compile(r"[-+−–(]?\d{1,3}( \d{3})*")  # "1" or "1 234": a figure that a group of digits can continue
DIGITS = re.compile(r"[-+−–(]?\d+")  # digits alone: a figure's first groups, or groups OCR read without their space
YEAR = re.compile(r"(1[89]|20)\d\d")  # a header's year, not a figure
MIN_CELL_GAP = 0.6  # line heights: a blank this wide or wider between two figures parts two cells
WORD_GAP_FACTOR = 1.5  # a cell gap beside a figure is this much wider than the line's spaces between words
INK_ROWS = (0.1, 1.0)  # of the line's height: its commas and points count, a line above's descenders not


def figure_or_mark(text: str) -> bool:
    """A figure, or a mark for a missing value."""
    return bool(FIGURE.fullmatch(text.strip())) or text.strip() in MISSING


def body_figure(text: str) -> bool:
    """A figure of a table's body: a figure that is not a header's year."""
    return bool(FIGURE.fullmatch(text.strip())) and not YEAR.fullmatch(text.strip())


def figure_words(text: str) -> list[str] | None:
    """The figures of a line that holds two or more and nothing else (a group of three digits after a short one
    stays with it: "1 234" and "1 234 567" are one figure); None for any other line."""
    words: list[str] = []
    for word in text.split():
        if words and THOUSANDS_GROUP.fullmatch(word) and GROUPED.fullmatch(words[-1]):
            words[-1] += " " + word
        else:
            words.append(word)
    if len(words) < 2 or not all(figure_or_mark(word) for word in words):
        return None
    return words if any(FIGURE.fullmatch(word) for word in words) else None


def cut_figure_runs(lines: list[Line], grey: np.ndarray, scale: float) -> dict[int, list[Line]]:
    """For each OCR line (by id) that is a run of figures parted by blanks as wide as cells', its pieces, one a
    figure, boxed where its ink lies. `grey`: the page rendered `scale` pixels a point, in the lines' frame."""
    cut: dict[int, list[Line]] = {}
    for line in lines:
        words = figure_words(line.text) if line.confidence is not None else None
        if words is None:
            continue
        x0, y0, x1, y1 = (int(round(v * scale)) for v in line.bbox)
        crop = grey[max(0, y0):max(0, y1), max(0, x0):max(0, x1)]
        if crop.shape[0] < 4 or crop.shape[1] < 4:
            continue
        columns = blank_columns(crop, INK_ROWS)
        if columns is None:
            continue
        runs = column_runs(~columns, MIN_CELL_GAP * crop.shape[0])
        if len(runs) != len(words):
            continue
        left = max(0, x0) / scale
        cut[id(line)] = [replace(line, text=word, bbox=(left + a / scale, line.bbox[1], left + b / scale, line.bbox[3]))
                         for word, (a, b) in zip(words, runs)]
    return cut


def two_figures(before: str, after: str) -> bool:
    """Two neighbouring words that are each a figure, not one figure set in groups of digits ("1 234", and "1980 915"
    where OCR missed the thin space in "1 980 915") nor a figure and its error in brackets ("45.2 (1.3)"), the first
    not ending in a separator (OCR's space inside "8,669, 908"): two cells of a table, however narrow the gutter
    between them."""
    return (bool(FIGURE.fullmatch(before)) and bool(FIGURE.fullmatch(after)) and not after.startswith("(")
            and not before.endswith((",", ".")) and not (THOUSANDS_GROUP.fullmatch(after) and DIGITS.fullmatch(before)))


def figures_apart(line: Line) -> list[Line]:
    """A line in pieces, cut between two figures (`two_figures`: "8,669,908 7,057,071" a 0.4 em gutter apart; on an
    OCR line, figures of two characters or more: OCR parts "72.2" as "72 2"); a text-layer line also where a figure
    (or a missing value's mark) stands MIN_CELL_GAP ems (of its font size: a text-layer line's box is a third
    taller) or more from the word before or after it ("February    4,476"), and WORD_GAP_FACTOR times further than
    any two words of the line that are not figures stand apart (a justified line, a cell's wrapped text in a narrow
    column, stretches all its spaces alike: "at   32   by   32   pixels"). Each piece is boxed by its words (an OCR
    line's from its ink: engine/ocr/word_boxes.py); other lines whole."""
    if len(line.words) < 2:
        return [line]
    if line.confidence is not None:  # OCR: wide gaps are cut by their ink (`cut_figure_runs`)
        return cut_between(line, lambda before, word: two_figures(before.text, word.text)
                           and min(len(before.text), len(word.text)) >= 2)
    words_apart = [after.bbox[0] - before.bbox[2] for before, after in zip(line.words, line.words[1:])
                   if not figure_or_mark(before.text) and not figure_or_mark(after.text)]
    bar = max([MIN_CELL_GAP * line.size] + [WORD_GAP_FACTOR * gap for gap in words_apart])
    return cut_between(line, lambda before, word: two_figures(before.text, word.text) or (
        word.bbox[0] - before.bbox[2] >= bar and (figure_or_mark(word.text) or figure_or_mark(before.text))))
