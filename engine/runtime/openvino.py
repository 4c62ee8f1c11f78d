"""OpenVINO on CPU, in float32 or in bfloat16 where the CPU computes it natively (AVX512-BF16 or AMX).

Measured on dev's scanned pages rendered at 150 dpi (2-core AMD EPYC with AVX512-BF16, one thread, CPU time;
benchmarks/detector_runtimes.py): PP-OCRv6's detector 970 ms a page on ONNX Runtime, 825 ms on OpenVINO float32 (the
same lines), 476 ms in bfloat16; the formula encoder 205 ms an image on ONNX Runtime, 171 in OpenVINO float32, 92 in
bfloat16 (dev's formulas: born-digital NED equal, scanned 0.213 -> 0.215). Small's text recognizer stays on ONNX
Runtime int8 (30 ms a line against 50 on OpenVINO int8 and 38 in bfloat16).

The detector in bfloat16 (2-core Intel Xeon with AMX, 2026-12-07): 764 -> 385 ms a page; 98.9 % of its lines within
IoU 0.9 of float32's, the rest a pixel or two apart; the bench alike (real/ scans TEDS 0.826 -> 0.821). It is used since
each line is read at its own width (engine/ocr/recognizer.py): a neighbour's box a pixel wider no longer moves a line's
reading. The layout model and the text-direction classifier run in float32 (layout 178 -> 92 ms a page on OpenVINO,
the same regions; in bfloat16 16 of 837 regions moved).

Compiled for any input shape, OpenVINO keeps far larger buffers for whole pages than compiled for each page size:
detecting dev's and real/'s 63 scanned pages peaked at 1.34 GiB against 0.90 GiB (ONNX Runtime without its arena:
1.08 GiB), for 951 against 910 ms a page, compiling (~0.3 s for each new size) included (2-core AMD EPYC, AVX2).
"""

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov

from engine.cores import cpu_cores


def bf16_capable(core: ov.Core) -> bool:
    """Whether OpenVINO's CPU plugin computes bfloat16 natively on this CPU."""
    return "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")


@dataclass
class OpenVinoModel:
    """One ONNX file compiled by OpenVINO for this CPU; called like OnnxModel with the model's single input."""

    path: Path
    threads: int = 0  # inference threads; 0: every core this process may use
    bf16: bool = True  # compute in bfloat16 where the CPU does so natively
    # compile for each input shape met (each calling thread keeps the last one): for inputs of a few large shapes,
    # such as whole pages, whose buffers a graph compiled for any shape keeps far larger
    static_shapes: bool = False

    def __post_init__(self) -> None:
        self._core = ov.Core()
        self.precision = "bf16" if self.bf16 and bf16_capable(self._core) else "f32"
        self._config = {"INFERENCE_NUM_THREADS": self.threads or cpu_cores(),
                        "INFERENCE_PRECISION_HINT": self.precision, "PERFORMANCE_HINT": "LATENCY",
                        "ENABLE_CPU_PINNING": False}  # pinned, every worker process's threads take the same first cores
        self._model = self._core.read_model(str(self.path))
        self.compiled = None if self.static_shapes else self._core.compile_model(self._model, "CPU", self._config)
        self.input_name = self._model.inputs[0].get_any_name()
        self.output_names = [output.get_any_name() for output in self._model.outputs]
        self.runtime, self.providers = f"OpenVINO {ov.__version__.split('-')[0]} ({self.precision})", ["CPU"]
        self.why = "on CPU" + ("; the CPU computes bfloat16" if self.precision == "bf16" else "") + (
            "; compiled for each input shape" if self.static_shapes else "")
        self._local = threading.local()  # an infer request is not thread-safe: one per calling thread

    def __call__(self, batch: np.ndarray, release: bool = False) -> np.ndarray:
        return self.all_outputs(batch)[0]

    def all_outputs(self, batch: np.ndarray, release: bool = False) -> list[np.ndarray]:
        """Every output for the model's single input, in the graph's order."""
        return self.run({self.input_name: batch})

    def run(self, feeds: dict[str, np.ndarray], release: bool = False) -> list[np.ndarray]:
        """All outputs for named inputs, in the graph's order (`release` is for ONNX Runtime's arena: no-op)."""
        request = self._request({name: value.shape for name, value in feeds.items()})
        results = request.infer(feeds)
        return [np.array(results[output]) for output in request.model_outputs]

    def _request(self, shapes: dict[str, tuple[int, ...]]) -> ov.InferRequest:
        """This thread's infer request, for these input shapes when the model is compiled per shape."""
        local = self._local
        if not self.static_shapes:
            if getattr(local, "request", None) is None:
                local.request = self.compiled.create_infer_request()
            return local.request
        if getattr(local, "shapes", None) != shapes:
            local.request = local.shapes = None  # the last shape's buffers go before the new ones are made
            model = self._model.clone()
            model.reshape({name: ov.PartialShape(list(shape)) for name, shape in shapes.items()})
            local.request = self._core.compile_model(model, "CPU", self._config).create_infer_request()
            local.shapes = shapes
        return local.request
