"""Which runtime runs an ONNX model: TensorRT on a GPU where it is installed, else ONNX Runtime (or OpenVINO on
CPU for a model that asks for it)."""

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


def runs_on_cpu(model) -> bool:
    """Whether a model that load_onnx_model gave runs on the CPU."""
    return model.providers[0] in ("CPUExecutionProvider", "CPU")


def load_onnx_model(path: Path, device: str, profile: Profile, cache_dir: Path | None, threads: int = 0,
                    arena: bool = True, cpu_variant: Callable[[Path], Path] | None = None,
                    openvino: str | None = None):
    """TensorRTModel when device allows a GPU, TensorRT is installed and a GPU is visible; else what
    onnx_or_openvino gives. A TensorRT build that fails falls back and says why in `why`."""
    if device == "cpu":
        return onnx_or_openvino(path, "cpu", threads, arena, cpu_variant, openvino)
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
    model = onnx_or_openvino(path, device, threads, arena, cpu_variant, openvino)
    model.why = f"{model.why} ({'; '.join(reasons)})"
    return model


def onnx_or_openvino(path: Path, device: str, threads: int = 0, arena: bool = True,
                     cpu_variant: Callable[[Path], Path] | None = None, openvino: str | None = None):
    """OnnxModel on `device`, with `threads` intra-op threads on CPU (0: all cores) and ONNX Runtime's memory arena
    or not; on CPU `cpu_variant` may give another file to load in its place (an int8 variant).

    Where the model runs on CPU and `openvino` names a precision ("bf16" or "f32"), OpenVinoModel in that precision
    instead (of the variant too), if OpenVINO is installed (bf16 only where the CPU computes it;
    engine/runtime/openvino.py); without the arena it is compiled for each input shape, which keeps smaller buffers.
    """
    on_cpu = choose_providers(device)[0][0] == "CPUExecutionProvider"
    if on_cpu and openvino and find_spec("openvino") is not None:
        from engine.runtime.openvino import OpenVinoModel

        model = OpenVinoModel(cpu_variant(path) if cpu_variant else path, threads, bf16=openvino == "bf16",
                              static_shapes=not arena)
        if cpu_variant is not None:
            model.why = f"{model.why}; {model.path.name}, made from {path.name} for CPU"
        return model
    if on_cpu and cpu_variant is not None:
        model = OnnxModel(cpu_variant(path), device, threads, arena)
        model.why = f"{model.why}; {model.path.name}, made from {path.name} for CPU"
    else:
        model = OnnxModel(path, device, threads, arena)
    if on_cpu and openvino:
        model.why = f"{model.why}; openvino is not installed"
    return model
