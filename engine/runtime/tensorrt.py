"""TensorRT engines built from the ONNX files, cached as serialized plans.

tensorrt is imported only when an engine is built or loaded: it cannot be installed
on machines without NVIDIA's index, and folio falls back to ONNX Runtime there.
A plan is tied to the TensorRT version and the GPU, so the cache key holds the ONNX
file's sha256, the TensorRT version, the GPU's name and compute capability, the
optimization profile and the precision; any change gives another file.
"""

import hashlib
import json
import logging
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.runtime.hashes import file_sha256

log = logging.getLogger(__name__)

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Profile:
    """Shapes one dynamic input may take: TensorRT tunes for `opt` and accepts min..max."""

    input: str
    min: Shape
    opt: Shape
    max: Shape

    def accepts(self, shape: Shape) -> bool:
        return len(shape) == len(self.min) and all(lo <= d <= hi for lo, d, hi in zip(self.min, shape, self.max))


@dataclass(frozen=True)
class PlanKey:
    """Everything a serialized TensorRT plan depends on."""

    onnx_sha256: str
    tensorrt_version: str
    gpu_name: str
    compute_capability: str
    profile: Profile
    precision: str  # "fp32" or "fp16": with strongly typed networks it is the ONNX graph's own

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()

    def filename(self, model: str) -> str:
        return f"{model}-{self.precision}-{self.digest()[:16]}.plan"


def fp16_variant(onnx_path: Path, cache_dir: Path) -> Path:
    """An fp16 copy of the graph (inputs and outputs stay fp32), made once per ONNX file."""
    target = cache_dir / f"{onnx_path.stem}-fp16-{file_sha256(onnx_path, cache_dir)[:16]}.onnx"
    if not target.exists():
        import onnx
        from onnxconverter_common import float16

        cache_dir.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():  # tiny weights clamped to fp16's range are expected, one warning each
            warnings.filterwarnings("ignore", message=".*will be truncated to")
            model = float16.convert_float_to_float16(onnx.load(str(onnx_path)), keep_io_types=True)
        partial = target.with_suffix(".partial")
        onnx.save(model, str(partial))
        partial.rename(target)
    return target


def onnx_metadata(path: Path) -> dict[str, str]:
    """An ONNX file's custom metadata, its weights not read."""
    import onnx

    return {prop.key: prop.value for prop in onnx.load(str(path), load_external_data=False).metadata_props}


def gpu_identity() -> tuple[str, str]:
    """(name, compute capability) of the current CUDA device, as PyTorch reports them."""
    import torch

    index = torch.cuda.current_device()
    major, minor = torch.cuda.get_device_capability(index)
    return torch.cuda.get_device_name(index), f"{major}.{minor}"


class TensorRTModel:
    """One ONNX model compiled for this GPU; call it like OnnxModel with a float32 batch."""

    def __init__(self, onnx_path: Path, profile: Profile, cache_dir: Path, precision: str = "fp16"):
        import tensorrt as trt
        import torch

        self.trt, self.torch = trt, torch
        self.path = onnx_path
        source = fp16_variant(onnx_path, cache_dir) if precision == "fp16" else onnx_path
        name, capability = gpu_identity()
        self.key = PlanKey(file_sha256(source, cache_dir), trt.__version__, name, capability, profile, precision)
        self.plan_path = cache_dir / self.key.filename(onnx_path.stem)
        self.profile = profile
        logger = trt.Logger(trt.Logger.WARNING)
        if not self.plan_path.exists():
            build_plan(trt, logger, source, profile, self.plan_path)
        self.engine = trt.Runtime(logger).deserialize_cuda_engine(self.plan_path.read_bytes())
        if self.engine is None:
            raise RuntimeError(f"TensorRT could not load {self.plan_path}")
        self.context = self.engine.create_execution_context()
        names = [self.engine.get_tensor_name(i) for i in range(self.engine.num_io_tensors)]
        self.outputs = [n for n in names if self.engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        self.runtime, self.providers = f"TensorRT {trt.__version__}", [f"CUDA ({name}, sm {capability})"]
        self.why = f"GPU and TensorRT available; plan {self.plan_path}"

    def __call__(self, batch: np.ndarray, release: bool = False) -> np.ndarray:
        return self.all_outputs(batch)[0]

    def metadata(self, key: str) -> str | None:
        """The ONNX file's metadata under `key` (the recognizer's character set), as OnnxModel gives it."""
        return onnx_metadata(self.path).get(key)

    def all_outputs(self, batch: np.ndarray, release: bool = False) -> list[np.ndarray]:
        """Every output of the engine, in the graph's order (`release` is for ONNX Runtime's CPU arena: no-op)."""
        torch = self.torch
        if not self.profile.accepts(batch.shape):
            raise ValueError(f"input shape {batch.shape} is outside the engine's profile {self.profile}")
        inputs = torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32)).cuda()
        self.context.set_input_shape(self.profile.input, tuple(batch.shape))
        self.context.set_tensor_address(self.profile.input, inputs.data_ptr())
        results = {}
        for name in self.outputs:
            output = torch.empty(tuple(self.context.get_tensor_shape(name)), dtype=torch.float32, device="cuda")
            self.context.set_tensor_address(name, output.data_ptr())
            results[name] = output
        stream = torch.cuda.current_stream()
        if not self.context.execute_async_v3(stream.cuda_stream):
            raise RuntimeError(f"TensorRT failed to run {self.path.name}")
        stream.synchronize()
        return [results[name].cpu().numpy() for name in self.outputs]


def build_plan(trt, logger, onnx_path: Path, profile: Profile, plan_path: Path) -> None:
    """Parse the ONNX file into a strongly typed network, build it for `profile`, save the plan."""
    builder = trt.Builder(logger)
    flags = 0
    if hasattr(trt.NetworkDefinitionCreationFlag, "STRONGLY_TYPED"):
        flags |= 1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise RuntimeError(f"TensorRT could not parse {onnx_path.name}: {errors}")
    config = builder.create_builder_config()
    optimization = builder.create_optimization_profile()
    optimization.set_shape(profile.input, profile.min, profile.opt, profile.max)
    config.add_optimization_profile(optimization)
    log.info("building TensorRT engine for %s (%s): this takes a while once", onnx_path.name, profile)
    plan = builder.build_serialized_network(network, config)
    if plan is None:
        raise RuntimeError(f"TensorRT could not build an engine for {onnx_path.name}")
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    partial = plan_path.with_suffix(".partial")
    partial.write_bytes(bytes(plan))
    partial.rename(plan_path)
