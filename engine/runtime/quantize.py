"""int8 variants of ONNX models for CPUs: static quantization (QDQ, int8 weights per output channel, uint8
activations) calibrated on inputs the caller makes, kept in the engine cache next to the other derived graphs.

CPUs with VNNI (AVX-512 or AVX) run the quantized convolutions and matrix products in int8; on the PP-OCR
recognizer that takes about a third off the CPU time per line (benchmarks/engine_speed.py).

An x86 CPU without VNNI (AVX2 only) adds pairs of uint8 x int8 products in 16 bits, which saturate with full-range
int8 weights: there the weights are quantized to 7 bits (ONNX Runtime's `reduce_range`). On a 2-core AMD EPYC with
AVX2, 500 of dev's and real/'s scanned lines read by the recognizer differed from its float reading in 0.96 % of
characters with full-range weights (55.9 ms a line) and in 0.46 % with 7-bit ones (47.1 ms; float: 72.6 ms).
"""

import hashlib
import logging
import os
import platform
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from engine.runtime.hashes import engine_cache, file_sha256

QUANTIZE_VERSION = 1  # bump when the recipe below changes: cached variants are then made again
MIN_OPSET = 13  # per-channel DequantizeLinear (an `axis`) needs opset 13
TARGET_OPSET = 17

Inputs = Callable[[], Iterable[np.ndarray]]


def int8_variant(path: Path, cache_dir: Path | None, calibration: Inputs, keep_float: tuple[str, ...] = ()) -> Path:
    """The int8 variant of the single-input model at `path`, made on first use from the inputs `calibration`
    yields; the nodes named in `keep_float` stay in float."""
    folder = engine_cache(cache_dir) / "int8"
    kept = f"-f{hashlib.sha256(' '.join(keep_float).encode()).hexdigest()[:8]}" if keep_float else ""
    reduced = int8_saturates()
    target = folder / (f"{path.stem}-{file_sha256(path, cache_dir)[:16]}-int8-v{QUANTIZE_VERSION}{kept}"
                       f"{'-w7' if reduced else ''}.onnx")
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    logging.disable(logging.WARNING)  # the quantizer warns on the root logger about every rank-1 weight
    try:
        _quantize(path, target, calibration, keep_float, reduced)
    finally:
        logging.disable(logging.NOTSET)
    return target


def int8_saturates() -> bool:
    """Whether this is an x86 CPU without VNNI, whose int8 kernels saturate with full-range weights (unknown flags
    count as without)."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return True
    return re.search(r"\b(avx512_vnni|avx_vnni)\b", flags) is None


def _quantize(path: Path, target: Path, calibration: Inputs, keep_float: tuple[str, ...], reduced: bool) -> None:
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".making-") as work:
        model = onnx.load(str(path))
        opset = next((entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx")), 0)
        if opset < MIN_OPSET:
            model = version_converter.convert_version(model, TARGET_OPSET)
        upgraded, prepared, made = (Path(work) / name for name in ("upgraded.onnx", "prepared.onnx", "int8.onnx"))
        onnx.save(model, str(upgraded))
        quant_pre_process(str(upgraded), str(prepared), skip_symbolic_shape=True)
        weights = {initializer.name for initializer in model.graph.initializer}
        name = next(given.name for given in model.graph.input if given.name not in weights)
        quantize_static(str(prepared), str(made), _Feeder(name, iter(calibration())), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=list(keep_float),
                        reduce_range=reduced)
        os.replace(made, target)  # atomic: a process making the same variant at once finds a whole file


class _Feeder:
    """ONNX Runtime's calibration reader: each input given to the model's input `name`."""

    def __init__(self, name: str, inputs: Iterator[np.ndarray]):
        self.name = name
        self.inputs = inputs

    def get_next(self) -> dict[str, np.ndarray] | None:
        given = next(self.inputs, None)
        return None if given is None else {self.name: given}
