"""The recognizer's CPU reading graph: only each step's best class handed back."""

import numpy as np
import onnx
import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein

from engine.ocr.models import find_ocr_models
from engine.ocr.reading_graph import reading_graph
from engine.ocr.recognizer import TextRecognizer, best_classes
from engine.render import render_page
from engine.runtime import OnnxModel

LINES = ["Harbour ledgers 1890-1935", "Invoice No. 4417/B, 12 March 1931", "Reading room closed in spring"]


@pytest.fixture(scope="module")
def line_crops():
    """Each line set alone at 10 points, rendered at 150 dpi and cut out with the margin the detector leaves around
    its ink (about 0.3 of the font size)."""
    crops = []
    for text in LINES:
        document = pymupdf.open()
        page = document.new_page(width=300, height=30)
        page.insert_text((10, 20), text, fontname="Times-Roman", fontsize=10)
        image = render_page(page, 150 / 72)
        rows, columns = np.nonzero(image.min(axis=2) < 128)
        margin = round(0.3 * 10 * 150 / 72)
        crops.append(image[rows.min() - margin:rows.max() + margin, columns.min() - margin:columns.max() + margin])
    return crops


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    return reading_graph(find_ocr_models().rec, tmp_path_factory.mktemp("cache"))


def test_the_graph_is_made_once_with_a_best_class_head(graph):
    assert graph == reading_graph(find_ocr_models().rec, graph.parent.parent)
    model = OnnxModel(graph, "cpu")
    assert [output.name for output in model.session.get_outputs()] == ["best_prob", "best"]


def test_it_reads_lines_as_the_model_reads_them(graph, line_crops):
    original, reading = TextRecognizer(OnnxModel(find_ocr_models().rec, "cpu")), TextRecognizer(OnnxModel(graph, "cpu"))
    for (text, confidence), (trained, _), expected in zip(reading(line_crops), original(line_crops), LINES):
        assert Levenshtein.normalized_distance(text, expected) < 0.05, text
        assert text == trained
        assert 0.5 < confidence <= 1.0


def test_best_classes_agree_from_every_probability_or_from_the_head():
    probs = np.random.default_rng(0).dirichlet(np.ones(7), size=(2, 5)).astype(np.float32)
    best = probs.argmax(axis=2)
    full = best_classes([probs])
    head = best_classes([probs.max(axis=2, keepdims=True), best[..., None]])
    for classes, chance in (full, head):
        assert np.array_equal(classes, best) and np.allclose(chance, probs.max(axis=2))


def test_a_graph_without_a_softmax_output_keeps_its_output(tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3, 48, None])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3, 48, None])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "relu.onnx")
    made = onnx.load(str(reading_graph(tmp_path / "relu.onnx", tmp_path / "cache")))
    assert [output.name for output in made.graph.output] == ["y"]
