"""A line's words and their boxes (engine/words.py) and an OCR line's word boxes from its ink
(engine/ocr/word_boxes.py)."""

import cv2
import numpy as np
import pytest

from engine.ocr.detector import Detection
from engine.ocr.word_boxes import ocr_words, word_columns
from engine.types import Line, Word
from engine.words import estimated_words, with_words, words_at


def test_estimated_words_share_the_box_by_their_characters():
    words = estimated_words("ab  cdef", (0.0, 0.0, 70.0, 10.0))  # "ab cdef": 7 characters, 10 points each
    assert words == [Word("ab", (0.0, 0.0, 20.0, 10.0)), Word("cdef", (30.0, 0.0, 70.0, 10.0))]
    tall = (0.0, 0.0, 10.0, 80.0)  # a line up the page: no direction to share the box along
    assert estimated_words("up the margin", tall) == [Word("up", tall), Word("the", tall), Word("margin", tall)]
    assert estimated_words("   ", (0.0, 0.0, 5.0, 5.0)) == []


def test_words_at_boxes_only_one_box_a_word():
    boxes = [(0.0, 0.0, 10.0, 5.0), (20.0, 0.0, 30.0, 5.0)]
    assert words_at("to sea", (0.0, 0.0, 30.0, 5.0), boxes) == [Word("to", boxes[0]), Word("sea", boxes[1])]
    assert words_at("to the sea", (0.0, 0.0, 30.0, 5.0), boxes) == estimated_words("to the sea", (0.0, 0.0, 30.0, 5.0))


def test_a_line_whose_text_changed_keeps_its_word_boxes_where_the_count_holds():
    boxes = [(0.0, 0.0, 4.0, 8.0), (6.0, 0.0, 40.0, 8.0)]
    line = Line(text="\u2022 Dredging", bbox=(0.0, 0.0, 40.0, 8.0), size=8.0,
                words=[Word("\ufffd", boxes[0]), Word("Dredging", boxes[1])])
    assert with_words(line).words == [Word("\u2022", boxes[0]), Word("Dredging", boxes[1])]
    bare = Line(text="Lighthouse repairs", bbox=(0.0, 0.0, 90.0, 8.0), size=8.0)
    assert with_words(bare).words == estimated_words("Lighthouse repairs", (0.0, 0.0, 90.0, 8.0))


def _line_crop(text: str, width: int = 420) -> np.ndarray:
    crop = np.full((36, width, 3), 255, np.uint8)
    cv2.putText(crop, text, (6, 26), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    return crop


def test_word_columns_are_the_ink_between_the_widest_blanks():
    crop = _line_crop("Tonnage  of  ships")
    spans = word_columns(crop, ["Tonnage", "of", "ships"])
    assert spans is not None and len(spans) == 3
    ink = np.flatnonzero((crop[9:30] < 128).any(axis=(0, 2)))  # dark columns (Otsu also counts anti-aliased edges)
    assert abs(spans[0][0] - ink[0]) <= 1 and abs(spans[-1][1] - (ink[-1] + 1)) <= 1
    assert all(end < start for (_, end), (start, _) in zip(spans, spans[1:]))


def test_word_columns_give_up_where_the_ink_does_not_show_the_words():
    crop = _line_crop("Tonnage of ships")
    assert word_columns(crop, ["Tonnage", "of", "ships", "and", "boats"]) is None  # fewer blanks than gaps
    assert word_columns(_line_crop("Tonnage"), ["Ton", "nage"]) is None  # no blank wider than the letters' own
    assert word_columns(np.full((36, 200, 3), 255, np.uint8), ["nothing"]) is None


def test_a_sliver_of_a_neighbours_glyph_at_the_crops_end_is_no_word():
    """The detector's box of a line of figures reached a point into the next cell's first digit: that ink, touching
    the crop's end, is no word's, so the words still fall where the widest blanks are."""
    crop = _line_crop("Tonnage  of  ships", width=300)
    crop[9:30, -2:] = 0
    spans = word_columns(crop, ["Tonnage", "of", "ships"])
    assert spans is not None and spans == word_columns(_line_crop("Tonnage  of  ships", width=300),
                                                       ["Tonnage", "of", "ships"])


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_ocr_words_map_crop_columns_through_the_line_quad(scale: float):
    crop = _line_crop("Tonnage  of  ships", width=420)
    quad = np.array([[100, 40], [520, 40], [520, 76], [100, 76]], np.float32) * scale  # the crop's page pixels
    detection = Detection(quad, (100, 45, 520, 71), 36 * scale, 0.9)
    bbox = (100 / 1.0, 45 / 1.0, 520 / 1.0, 71 / 1.0)
    words = ocr_words("Tonnage of ships", crop, detection, scale, bbox)
    spans = word_columns(crop, ["Tonnage", "of", "ships"])
    assert [word.text for word in words] == ["Tonnage", "of", "ships"]
    for word, (start, end) in zip(words, spans):
        assert word.bbox == pytest.approx((100 + start, 45, 100 + end, 71), abs=0.01)
