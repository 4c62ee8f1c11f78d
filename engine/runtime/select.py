"""Which runtime runs an ONNX model: TensorRT on a GPU where it is installed, else ONNX Runtime."""

import logging
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

from engine.runtime.onnx import OnnxModel, choose_providers
from engine.runtime.tensorrt import Profile

log = logging.getLogger(__name__)


def cuda_visible() -> bool:
    """Whether PyTorch (which TensorRT's buffers go through) sees a CUDA device."""
    if find_spec("torch") is None:
        return False
    import torch

    return torch.cuda.is_available()


def tensorrt_installed() -> bool:
    return find_spec("tensorrt") is not None


def load_onnx_model(path: Path, device: str, profile: Profile, cache_dir: Path | None, threads: int = 0,
                    arena: bool = True, cpu_variant: Callable[[Path], Path] | None = None):
    """TensorRTModel when device allows a GPU, TensorRT is installed and a GPU is visible; else OnnxModel (with
    `threads` intra-op threads on CPU, 0: all cores, and ONNX Runtime's memory arena or not).

    A TensorRT build that fails falls back to ONNX Runtime and says why in `why`. Where ONNX Runtime runs the
    model on CPU, `cpu_variant` may give another file to load in its place (an int8 variant).
    """
    if device == "cpu":
        return _onnx_model(path, "cpu", threads, arena, cpu_variant)
    reasons = []
    if not tensorrt_installed():
        reasons.append("tensorrt is not installed")
    elif not cuda_visible():
        reasons.append("no CUDA device visible to PyTorch")
    elif cache_dir is None:
        reasons.append("no engine cache folder")
    else:
        from engine.runtime.tensorrt import TensorRTModel

        try:
            return TensorRTModel(path, profile, cache_dir)
        except Exception as error:  # a failed build must not stop parsing: ONNX Runtime still works
            log.warning("TensorRT unavailable for %s, using ONNX Runtime: %s", path.name, error)
            reasons.append(f"TensorRT failed: {error}")
    model = _onnx_model(path, device, threads, arena, cpu_variant)
    model.why = f"{model.why} ({'; '.join(reasons)})"
    return model


def _onnx_model(path: Path, device: str, threads: int, arena: bool,
                cpu_variant: Callable[[Path], Path] | None) -> OnnxModel:
    if cpu_variant is None or choose_providers(device)[0][0] != "CPUExecutionProvider":
        return OnnxModel(path, device, threads, arena)
    model = OnnxModel(cpu_variant(path), device, threads, arena)
    model.why = f"{model.why}; {model.path.name}, made from {path.name} for CPU"
    return model
