"""Which runtime runs an ONNX model: TensorRT on a GPU where it is installed, else ONNX Runtime."""

import logging
from importlib.util import find_spec
from pathlib import Path

from engine.runtime.onnx import OnnxModel
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
                    arena: bool = True):
    """TensorRTModel when device allows a GPU, TensorRT is installed and a GPU is visible; else OnnxModel (with
    `threads` intra-op threads on CPU, 0: all cores, and ONNX Runtime's memory arena or not).

    A TensorRT build that fails falls back to ONNX Runtime and says why in `why`.
    """
    if device == "cpu":
        return OnnxModel(path, "cpu", threads, arena)
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
    model = OnnxModel(path, device, threads, arena)
    model.why = f"{model.why} ({'; '.join(reasons)})"
    return model
