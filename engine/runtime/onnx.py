"""ONNX Runtime sessions with providers picked from those actually available."""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort

from engine.cores import cpu_cores

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


def threads_per_worker(workers: int) -> int:
    """Threads for each model session when `workers` batches run at once in this process or on this machine:
    the cores shared out, so that concurrent batches do not oversubscribe them."""
    return max(1, cpu_cores() // max(1, workers))


def share_cores(options: ort.SessionOptions, threads: int) -> ort.SessionOptions:
    """`options` with `threads` intra-op threads (0: every core this process may use) that sleep while they wait
    rather than spin: spinning threads take cores from the other workers and processes on the machine (the formula
    model at 2 threads on a loaded machine: 504 ms CPU per formula spinning, 357 ms not)."""
    options.intra_op_num_threads = threads or cpu_cores()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


@dataclass
class OnnxModel:
    """One ONNX file behind an inference session; call it with the model's single input."""

    path: Path
    device: str = "auto"
    threads: int = 0  # intra-op threads on CPU; 0: every core this process may use
    arena: bool = True  # ONNX Runtime's CPU memory arena: fast for inputs of few shapes, but it keeps the
    # largest allocation of every shape it has seen (whole pages of many sizes: gigabytes); see `release`

    def __post_init__(self) -> None:
        options = share_cores(ort.SessionOptions(), self.threads)
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.enable_cpu_mem_arena = self.arena
        options.log_severity_level = 3
        self.providers, self.why = choose_providers(self.device)
        self.runtime = f"ONNX Runtime {ort.__version__}"
        self.session = ort.InferenceSession(str(self.path), options, providers=self.providers)
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [output.name for output in self.session.get_outputs()]
        self._releasing = ort.RunOptions()
        self._releasing.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

    def __call__(self, batch: np.ndarray, release: bool = False) -> np.ndarray:
        return self.all_outputs(batch, release)[0]

    def all_outputs(self, batch: np.ndarray, release: bool = False) -> list[np.ndarray]:
        """Every output for the model's single input, in the graph's order."""
        return self.run({self.input_name: batch}, release)

    def run(self, feeds: dict[str, np.ndarray], release: bool = False) -> list[np.ndarray]:
        """All outputs for named inputs. `release`: hand the arena's unused memory back after this run (a caller
        does at the end of a batch of calls: shrinking after every call costs half again the CPU time)."""
        releasing = release and self.arena and self.providers[0] == "CPUExecutionProvider"
        return self.session.run(None, feeds, self._releasing if releasing else None)

    def metadata(self, key: str) -> str | None:
        return self.session.get_modelmeta().custom_metadata_map.get(key)
