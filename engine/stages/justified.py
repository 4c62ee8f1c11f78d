"""A line of a table cell's text set justified, its spaces stretched past what a text layer's line holds: one piece.

TeX sets a `p{}` column's text justified: each line's spaces stretch to fill the column, and PyMuPDF gives each word
of such a line a line of its own. The table would see the words as cells of a row and part the column in several.
MIN_WORDS or more neighbouring pieces of one row, none a figure, in one font size, as far apart as one another
(within SAME_GAP of their mean gap: a justified line stretches its spaces alike) and less than MAX_GAP ems, are
joined into one line, as pages/pdf.py joins the spans of a line that close, when the paragraph goes on under them
(a justified line is never a paragraph's last: a line of words follows from the same left edge, no wider; a row of
headings over evenly spaced columns has figures under it).
"""

from dataclasses import replace
from statistics import mean

from engine.figure_runs import figure_or_mark
from engine.geometry import text_rows, union
from engine.types import Line

MAX_GAP = 1.2  # ems: pages/pdf.py joins the spans of one text-layer line this close
SAME_GAP = 0.25  # of the mean gap: a justified line's stretched spaces differ by less
MIN_WORDS = 3  # pieces: two words apart are as likely two cells
SAME_SIZE = 0.5  # points: one font size
EDGE = 1.0  # points: a paragraph's lines start at one left edge and end within its width


def justified_lines(lines: list[Line]) -> list[tuple[Line, list[Line]]]:
    """Each run of text-layer pieces that is one justified line, joined, with the pieces it was joined from."""
    joined = []
    for row in text_rows(lines):
        run: list[Line] = []
        for piece in [*sorted(row.lines, key=lambda line: line.bbox[0]), None]:
            if piece is not None and run and _continues(run[-1], piece):
                run.append(piece)
                continue
            if len(run) >= MIN_WORDS and _evenly_spaced(run) and _continued_below(run, lines):
                joined.append((replace(run[0], text=" ".join(part.text for part in run),
                                       bbox=union([part.bbox for part in run]),
                                       spans=[span for part in run for span in part.spans],
                                       words=[word for part in run for word in part.words]), run))
            run = [piece] if piece is not None and _words(piece) else []
    return joined


def _words(line: Line) -> bool:
    return line.confidence is None and not figure_or_mark(line.text)


def _continues(last: Line, piece: Line) -> bool:
    gap = piece.bbox[0] - last.bbox[2]
    return _words(piece) and abs(piece.size - last.size) <= SAME_SIZE and 0 < gap < MAX_GAP * last.size


def _evenly_spaced(run: list[Line]) -> bool:
    gaps = [after.bbox[0] - before.bbox[2] for before, after in zip(run, run[1:])]
    return max(gaps) - min(gaps) <= SAME_GAP * mean(gaps)


def _continued_below(run: list[Line], lines: list[Line]) -> bool:
    """A line of words right under the run (within a line's height), from its left edge and no wider."""
    left, right, bottom = run[0].bbox[0], run[-1].bbox[2], max(part.bbox[3] for part in run)
    height = max(part.height for part in run)
    return any(_words(line) and abs(line.bbox[0] - left) <= EDGE and line.bbox[2] <= right + EDGE
               and -0.5 * height <= line.bbox[1] - bottom <= height for line in lines)
