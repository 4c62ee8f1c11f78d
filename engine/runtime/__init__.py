"""How models run: ONNX Runtime sessions with providers chosen from what is installed."""

from engine.runtime.onnx import OnnxModel, choose_providers

__all__ = ["OnnxModel", "choose_providers"]
