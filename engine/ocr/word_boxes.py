"""Where an OCR line's words stand, from its ink: the widest blanks between its inked columns are its word gaps.

A line read as n words has n - 1 gaps; they are the n - 1 widest blanks inside its ink, taken only when they are
clearly wider than every other blank (letters stand closer than words) and each word's width agrees with its length
in characters within a factor of MAX_LENGTH_RATIO. Otherwise the words' places are estimated (engine/words.py).
"""

import numpy as np

from engine.ocr.detector import Detection, column_runs
from engine.ocr.word_gaps import blank_columns
from engine.types import BBox, Word
from engine.words import words_at

MIN_GAP_RATIO = 1.2  # the narrowest word gap is at least this much wider than the widest other blank
MAX_LENGTH_RATIO = 3.0  # a word's share of the ink width against its share of the characters, either way
MAX_SLIVER = 0.25  # of the crop's height: ink this narrow at an end of the crop is a neighbour's glyph cut by the box


def word_columns(crop: np.ndarray, words: list[str]) -> list[tuple[int, int]] | None:
    """(first, end) crop column of each word's ink, or None where the ink does not show the words apart."""
    columns = blank_columns(crop)
    if columns is None or not words:
        return None
    runs = _without_end_slivers(column_runs(~columns, 1), len(columns), crop.shape[0])
    if len(runs) < len(words):
        return None
    if len(words) == 1:
        return [(runs[0][0], runs[-1][1])]
    blanks = np.array([start - end for (_, end), (start, _) in zip(runs, runs[1:])])
    order = np.argsort(-blanks, kind="stable")
    cuts, rest = np.sort(order[:len(words) - 1]), blanks[order[len(words) - 1:]]
    if len(rest) and blanks[cuts].min() < MIN_GAP_RATIO * rest.max():
        return None
    starts = [runs[0][0], *(runs[cut + 1][0] for cut in cuts)]
    ends = [*(runs[cut][1] for cut in cuts), runs[-1][1]]
    spans = list(zip(starts, ends))
    ink, chars = ends[-1] - starts[0], sum(len(word) for word in words)
    for (start, end), word in zip(spans, words):
        share = ((end - start) / ink) / (len(word) / chars)
        if not 1 / MAX_LENGTH_RATIO <= share <= MAX_LENGTH_RATIO:
            return None
    return spans


def ocr_words(text: str, crop: np.ndarray, detection: Detection, scale: float, bbox: BBox) -> list[Word]:
    """The words of a line OCR read from `crop` (cut from `detection`'s quad on a page `scale` pixels a point), with
    the boxes its ink gives, in points; `bbox` is the line's box in points."""
    words = text.split()
    height, width = crop.shape[:2]
    quad = detection.quad
    upright = width >= height and abs(quad[1][0] - quad[0][0]) >= abs(quad[3][1] - quad[0][1])
    spans = word_columns(crop, words) if upright and width > 0 else None
    if spans is None:
        return words_at(text, bbox, [])
    boxes = []
    for start, end in spans:
        at = np.array([start, end, start, end])[:, None] / width  # along the quad's top edge, then its bottom one
        points = np.concatenate([quad[:1] + at[:2] * (quad[1] - quad[0]), quad[3:] + at[2:] * (quad[2] - quad[3])])
        x0, x1 = float(points[:, 0].min()) / scale, float(points[:, 0].max()) / scale
        x0, x1 = max(bbox[0], x0), min(bbox[2], x1)
        boxes.append((x0, bbox[1], max(x0, x1), bbox[3]))
    return words_at(text, bbox, boxes)


def _without_end_slivers(runs: list[tuple[int, int]], width: int, height: int) -> list[tuple[int, int]]:
    """The ink runs but one at either end of the crop, touching it, narrower than MAX_SLIVER of its height: the
    detector's box reached into a neighbouring cell's first or last glyph ("...4,386,112 3")."""
    if len(runs) >= 2 and runs[0][0] == 0 and runs[0][1] - runs[0][0] < MAX_SLIVER * height:
        runs = runs[1:]
    if len(runs) >= 2 and runs[-1][1] >= width and runs[-1][1] - runs[-1][0] < MAX_SLIVER * height:
        runs = runs[:-1]
    return runs
