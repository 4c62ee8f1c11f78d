"""ONNX Runtime sessions with providers picked from those actually available."""

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort

_GPU_PROVIDERS = ("CUDAExecutionProvider",)


def choose_providers(device: str, available: list[str] | None = None) -> tuple[list[str], str]:
    """Providers for `device` (auto|cpu|cuda) and a sentence saying why.

    ONNX Runtime silently falls back to CPU when asked for a provider it lacks, so
    only providers it reports as available are ever asked for.
    """
    available = list(available if available is not None else ort.get_available_providers())
    gpu = [p for p in _GPU_PROVIDERS if p in available]
    if device == "cpu":
        return ["CPUExecutionProvider"], "FOLIO_DEVICE=cpu"
    if gpu:
        return gpu + ["CPUExecutionProvider"], f"{gpu[0]} is available"
    if device == "cuda":
        raise RuntimeError(f"FOLIO_DEVICE=cuda but ONNX Runtime offers only {', '.join(available)}")
    return ["CPUExecutionProvider"], "no GPU provider in this onnxruntime build"


def _cpu_threads() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@dataclass
class OnnxModel:
    """One ONNX file behind an inference session; call it with the model's single input."""

    path: Path
    device: str = "auto"

    def __post_init__(self) -> None:
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = _cpu_threads()
        options.log_severity_level = 3
        self.providers, self.why = choose_providers(self.device)
        self.runtime = f"ONNX Runtime {ort.__version__}"
        self.session = ort.InferenceSession(str(self.path), options, providers=self.providers)
        self.input_name = self.session.get_inputs()[0].name

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        return self.all_outputs(batch)[0]

    def all_outputs(self, batch: np.ndarray) -> list[np.ndarray]:
        """Every output for the model's single input, in the graph's order."""
        return self.run({self.input_name: batch})

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """All outputs for named inputs, for models with more than one."""
        return self.session.run(None, feeds)

    def metadata(self, key: str) -> str | None:
        return self.session.get_modelmeta().custom_metadata_map.get(key)
