"""OpenVINO on CPU: the text detector's maps as ONNX Runtime computes them, thread-safe calls, the fallback to
ONNX Runtime where OpenVINO is not installed, and tiny's recognizer and the detector in bfloat16."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import openvino as ov
import pymupdf
import pytest

from engine.config import EngineConfig
from engine.geometry import iou
from engine.ocr.detector import TextDetector, load_text_detector, normalize
from engine.ocr.models import find_ocr_models
from engine.ocr.recognizer import TextRecognizer
from engine.pipeline import build_pipeline
from engine.render import render_page
from engine.runtime import OnnxModel, select
from engine.runtime.openvino import OpenVinoModel, bf16_capable


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


def test_tinys_recognizer_runs_on_openvino_and_smalls_on_onnx_runtime_in_int8():
    models = build_pipeline(EngineConfig(device="cpu", formula_model="none", ocr_models="two-pass")).models
    first, again = models["text recognition"], models["text recognition again"]
    assert isinstance(first, OpenVinoModel) and first.path.parent.name == "reading"  # tiny's reading graph, float
    assert isinstance(again, OnnxModel) and again.path.parent.name == "int8"
    document = pymupdf.open()
    page = document.new_page(width=300, height=40)
    page.insert_text((10, 25), "Harbour ledgers 1890-1935", fontname="Times-Roman", fontsize=14)
    line = render_page(page, 150 / 72)[10:75, 10:560]
    files = find_ocr_models(tier="two-pass")
    assert TextRecognizer(first, files.keys)([line])[0][0] == "Harbour ledgers 1890-1935"
    plain = build_pipeline(EngineConfig(device="cpu", formula_model="none", ocr_models="two-pass",
                                        cpu_bf16=False)).models["text recognition"]
    assert isinstance(plain, OnnxModel)


def test_the_detector_in_bfloat16_finds_the_lines_float32_finds():
    """FOLIO_CPU_BF16 puts the detector in bfloat16 where the CPU computes it: the same lines, boxes a few pixels
    apart; without it, float32."""
    document = pymupdf.open()
    page = document.new_page(width=420, height=300)
    for row, text in enumerate(["Harbour Board minutes, 14 March 1921", "Present: the Chairman, Mr. Ellis, Mr. Ward",
                                "Tonnage 1920: 48,213; 1921: 51,907", "The dredging contract was let to Hart & Sons."]):
        page.insert_text((30, 50 + 30 * row), text, fontname="Times-Roman", fontsize=9 + 2 * row)
    image = render_page(page, 150 / 72)
    path = find_ocr_models().det
    plain = load_text_detector(path, "cpu", None, 1)
    assert plain.model.precision == "f32"
    fast = build_pipeline(EngineConfig(device="cpu", formula_model="none", cpu_bf16=True)).models["text detection"]
    assert fast.precision == ("bf16" if bf16_capable(ov.Core()) else "f32")
    found, expected = TextDetector(fast)([image])[0], plain([image])[0]
    assert len(found) == len(expected) == 4
    for line, reference in zip(sorted(found, key=lambda d: d.box[1]), sorted(expected, key=lambda d: d.box[1])):
        assert iou(line.box, reference.box) > 0.85
