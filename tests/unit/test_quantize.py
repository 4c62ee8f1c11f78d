"""int8 variants of ONNX models: made once, cached by the source's hash, close to the float model (with 7-bit
weights where the CPU's int8 kernels would saturate)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from engine.ocr.recognizer import calibration_inputs
from engine.runtime import OnnxModel, quantize
from engine.runtime.quantize import int8_variant


def conv_model(path):
    """A 3x3 convolution of 3 channels into 8 followed by a ReLU, at opset 11 (as PP-OCR's files are)."""
    weights = np.random.default_rng(0).normal(size=(8, 3, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
        "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3, 48, None])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 8, 48, None])],
        [numpy_helper.from_array(weights, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), path)
    return path


def reads_like_float(source, variant, x: np.ndarray) -> bool:
    """Whether the variant's output is within 5 % of the float model's largest output."""
    exact, quantized = OnnxModel(source, "cpu")(x), OnnxModel(variant, "cpu")(x)
    return bool(np.abs(quantized - exact).max() < 0.05 * np.abs(exact).max())


def test_the_int8_variant_is_made_once_and_reads_like_the_float_model(tmp_path):
    source = conv_model(tmp_path / "conv.onnx")
    inputs = list(calibration_inputs())[:12]
    variant = int8_variant(source, tmp_path / "cache", lambda: iter(inputs))
    assert variant.parent == tmp_path / "cache" / "int8" and variant.is_file()
    made = variant.stat().st_mtime_ns
    assert int8_variant(source, tmp_path / "cache", lambda: iter(())) == variant  # cached: no calibration needed
    assert variant.stat().st_mtime_ns == made
    assert any(node.op_type == "QuantizeLinear" for node in onnx.load(str(variant)).graph.node)
    assert reads_like_float(source, variant, inputs[0])


@pytest.mark.parametrize("saturates", [False, True])
def test_weights_take_7_bits_only_where_int8_kernels_saturate(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                                                saturates: bool):
    monkeypatch.setattr(quantize, "int8_saturates", lambda: saturates)
    source = conv_model(tmp_path / "conv.onnx")
    inputs = list(calibration_inputs())[:12]
    variant = int8_variant(source, tmp_path / "cache", lambda: iter(inputs))
    assert variant.name.endswith("-w7.onnx") == saturates
    if saturates:  # 7-bit weights read like the float model on any CPU
        assert reads_like_float(source, variant, inputs[0])


def test_nodes_named_to_keep_float_stay_float(tmp_path):
    source = conv_model(tmp_path / "conv.onnx")
    model = onnx.load(str(source))
    model.graph.node[1].name = "relu"
    onnx.save(model, str(source))
    inputs = list(calibration_inputs())[:4]
    variant = int8_variant(source, tmp_path / "cache", lambda: iter(inputs), keep_float=("relu",))
    assert variant != int8_variant(source, tmp_path / "cache", lambda: iter(inputs))
    nodes = onnx.load(str(variant)).graph.node
    made = {output: node for node in nodes for output in node.output}
    relu = next(node for node in nodes if node.name == "relu")
    assert made[relu.input[0]].op_type == "DequantizeLinear"  # its input comes from the int8 convolution
    assert relu.output[0] == "y" and not any(relu.output[0] in node.input for node in nodes)  # its output is float
