"""OpenVINO on CPU: the text detector's maps as ONNX Runtime computes them, thread-safe calls, and the fallback to
ONNX Runtime where OpenVINO is not installed."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from engine.ocr.detector import load_text_detector, normalize
from engine.ocr.models import find_ocr_models
from engine.runtime import OnnxModel, select
from engine.runtime.openvino import OpenVinoModel


@pytest.fixture(scope="module")
def page() -> np.ndarray:
    """A small page image: dark bars like lines of text on white."""
    image = np.full((128, 160, 3), 255, np.uint8)
    for top in range(16, 112, 24):
        image[top:top + 10, 12:148] = 20
    return normalize(image)[None]


@pytest.fixture(scope="module")
def taller(page: np.ndarray) -> np.ndarray:
    """The page twice, one under the other: an input of another shape."""
    return np.concatenate([page, page], axis=2)


def test_float32_maps_equal_onnx_runtime_s(page: np.ndarray):
    path = find_ocr_models().det
    expected = OnnxModel(path, "cpu", 1)(page)
    model = OpenVinoModel(path, 1, bf16=False)
    assert model.precision == "f32" and model.runtime.endswith("(f32)") and select.runs_on_cpu(model)
    np.testing.assert_allclose(model(page), expected, atol=1e-4)


@pytest.mark.parametrize("static_shapes", [False, True])
def test_calls_from_several_threads_give_each_its_own_answer(page: np.ndarray, taller: np.ndarray,
                                                            static_shapes: bool):
    model = OpenVinoModel(find_ocr_models().det, 1, bf16=False, static_shapes=static_shapes)
    blank = np.zeros_like(taller)
    expected = {0: model(page), 1: model(blank)}
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda i: (i % 2, model(page if i % 2 == 0 else blank)), range(16)))
    for which, answer in answers:
        np.testing.assert_array_equal(answer, expected[which])


def test_bf16_only_where_the_cpu_computes_it(monkeypatch: pytest.MonkeyPatch):
    import engine.runtime.openvino as openvino_module

    monkeypatch.setattr(openvino_module, "bf16_capable", lambda core: False)
    assert OpenVinoModel(find_ocr_models().det, 1, bf16=True).precision == "f32"


def test_the_detector_runs_on_openvino_per_page_size_and_on_onnx_runtime_without_it(monkeypatch: pytest.MonkeyPatch):
    path = find_ocr_models().det
    detector = load_text_detector(path, "cpu", None, 1)
    assert isinstance(detector.model, OpenVinoModel) and detector.max_batch == 1 and detector.model.static_shapes
    real_find_spec = select.find_spec
    monkeypatch.setattr(select, "find_spec", lambda name: None if name == "openvino" else real_find_spec(name))
    detector = load_text_detector(path, "cpu", None, 1)
    assert isinstance(detector.model, OnnxModel) and detector.max_batch == 1
    assert "openvino is not installed" in detector.model.why


def test_compiled_per_shape_gives_the_maps_of_the_graph_for_any_shape(page: np.ndarray, taller: np.ndarray):
    path = find_ocr_models().det
    any_shape, per_shape = OpenVinoModel(path, 1, bf16=False), OpenVinoModel(path, 1, bf16=False, static_shapes=True)
    for image in (page, taller, page):
        np.testing.assert_allclose(per_shape(image), any_shape(image), atol=1e-4)
    assert "compiled for each input shape" in per_shape.why
