"""How models run: TensorRT plans on a GPU, ONNX Runtime with providers chosen from what is installed."""

from engine.runtime.onnx import OnnxModel, choose_providers
from engine.runtime.select import load_onnx_model
from engine.runtime.tensorrt import PlanKey, Profile

__all__ = ["OnnxModel", "PlanKey", "Profile", "choose_providers", "load_onnx_model"]
