"""The two-pass reader: the first recognizer reads every line, the second only the lines the first is unsure of."""

import numpy as np
import pymupdf
from rapidfuzz.distance import Levenshtein

from engine.ocr.detector import TextDetector, crop_line
from engine.ocr.models import find_ocr_models
from engine.ocr.recognizer import TextRecognizer
from engine.ocr.two_pass import TwoPassReader, Unsure
from engine.render import render_page
from engine.runtime import OnnxModel


def crops_named(count: int) -> list[np.ndarray]:
    """Crops that carry their index in their first pixel, so a fake reader can tell them apart."""
    return [np.full((8, 16, 3), index, dtype=np.uint8) for index in range(count)]


def test_only_the_unsure_lines_are_read_again_and_their_second_reading_is_kept():
    first = [("Harbour ledgers 1890", 0.99), ("Harbcur ledgcrs", 0.80), ("12", 0.99), ("x = a + b", 0.98),
             ("Reading room closed", 0.96), ("", 0.0), ("α β", 0.99)]
    asked: list[int] = []

    def second(crops: list[np.ndarray]) -> list[tuple[str, float]]:
        asked.extend(int(crop[0, 0, 0]) for crop in crops)
        return [(f"again {int(crop[0, 0, 0])}", 0.97) for crop in crops]

    readings = TwoPassReader(lambda crops: list(first), second)(crops_named(len(first)))
    # a low confidence (1), few characters (2, 5), much mathematics (3, 6); not prose read with confidence (0, 4)
    assert asked == [1, 2, 3, 5, 6]
    assert readings == [first[0], ("again 1", 0.97), ("again 2", 0.97), ("again 3", 0.97), first[4],
                        ("again 5", 0.97), ("again 6", 0.97)]


def test_nothing_is_read_again_when_the_first_reader_is_sure_of_every_line():
    def second(crops: list[np.ndarray]) -> list[tuple[str, float]]:
        raise AssertionError("the second reader was called")

    sure = [("Building permits and board minutes", 0.99)] * 3
    assert TwoPassReader(lambda crops: list(sure), second)(crops_named(3)) == sure


def test_the_thresholds_are_the_readers_to_set():
    unsure = Unsure(min_confidence=0.5, max_short=0, math_share=1.1)
    assert not unsure("12", 0.6) and not unsure("x = a + b", 0.9) and unsure("Harbcur", 0.4)


def test_tiny_then_small_read_a_rendered_page():
    files = find_ocr_models(tier="two-pass")
    reader = TwoPassReader(TextRecognizer(OnnxModel(files.rec, "cpu"), files.keys),
                           TextRecognizer(OnnxModel(files.reread, "cpu")))
    document = pymupdf.open()
    page = document.new_page(width=400, height=160)
    lines = ["Harbour ledgers 1890-1935", "Building permits and board minutes", "17"]
    for index, text in enumerate(lines):
        page.insert_text((30, 50 + 40 * index), text, fontname="Times-Roman", fontsize=14)
    image = render_page(page, 150 / 72)
    detections = sorted(TextDetector(OnnxModel(files.det, "cpu"))([image])[0], key=lambda found: found.box[1])
    readings = reader([crop_line(image, found.quad) for found in detections])
    assert len(readings) == len(lines)
    for (text, confidence), expected in zip(readings, lines):
        assert Levenshtein.normalized_distance(text, expected) < 0.1 and confidence > 0.5, text
