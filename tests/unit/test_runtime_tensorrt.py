"""TensorRT plan cache keys, profiles, fp16 variants and the fallback to ONNX Runtime, without TensorRT."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.ocr.models import DET_PROFILE, REC_MAX_BATCH, REC_MAX_WIDTH, REC_PROFILE, find_ocr_models
from engine.runtime import OnnxModel, PlanKey, Profile, select
from engine.runtime.tensorrt import fp16_variant, onnx_metadata

KEY = PlanKey("ab" * 32, "11.0.0", "NVIDIA H200", "9.0", REC_PROFILE, "fp16")


def test_plan_key_changes_with_everything_a_plan_depends_on():
    variants = [
        replace(KEY, onnx_sha256="cd" * 32), replace(KEY, tensorrt_version="11.1.0"),
        replace(KEY, gpu_name="NVIDIA H100"), replace(KEY, compute_capability="8.9"),
        replace(KEY, profile=DET_PROFILE), replace(KEY, precision="fp32"),
    ]
    digests = {KEY.digest(), *(variant.digest() for variant in variants)}
    assert len(digests) == 1 + len(variants)
    assert KEY.digest() == PlanKey(**{**KEY.__dict__}).digest()
    assert KEY.filename("rec").startswith("rec-fp16-") and KEY.filename("rec").endswith(".plan")


def test_profiles_cover_what_the_ocr_stages_send():
    assert REC_PROFILE.accepts((REC_MAX_BATCH, 3, 48, REC_MAX_WIDTH)) and REC_PROFILE.accepts((1, 3, 48, 16))
    assert not REC_PROFILE.accepts((REC_MAX_BATCH + 1, 3, 48, 100)) and not REC_PROFILE.accepts((1, 3, 32, 100))
    assert DET_PROFILE.accepts((4, 3, 2048, 1536)) and not DET_PROFILE.accepts((1, 3, 4096, 32))
    assert Profile("x", (1, 3), (2, 3), (4, 3)).accepts((3, 3))


def test_cpu_device_never_tries_tensorrt(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(select, "tensorrt_installed", lambda: pytest.fail("asked for TensorRT"))
    model = select.load_onnx_model(find_ocr_models().rec, "cpu", REC_PROFILE, None)
    assert isinstance(model, OnnxModel) and model.providers == ["CPUExecutionProvider"]


def test_falls_back_to_onnx_runtime_and_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    model = select.load_onnx_model(find_ocr_models().rec, "auto", REC_PROFILE, tmp_path)
    assert isinstance(model, OnnxModel)
    assert "tensorrt is not installed" in model.why or "no CUDA device" in model.why

    class BrokenBuild:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("TensorRT could not parse the graph")

    import engine.runtime.tensorrt as tensorrt_module

    monkeypatch.setattr(select, "tensorrt_installed", lambda: True)
    monkeypatch.setattr(select, "cuda_visible", lambda: True)
    monkeypatch.setattr(tensorrt_module, "TensorRTModel", BrokenBuild)
    model = select.load_onnx_model(find_ocr_models().rec, "auto", REC_PROFILE, tmp_path)
    assert isinstance(model, OnnxModel)
    assert "TensorRT failed: TensorRT could not parse the graph" in model.why


def test_fp16_variant_is_made_once_and_computes_the_same(tmp_path: Path):
    source = find_ocr_models().det
    variant = fp16_variant(source, tmp_path)
    assert variant.exists() and fp16_variant(source, tmp_path) == variant
    image = np.random.default_rng(1).uniform(-1, 1, (1, 3, 64, 96)).astype(np.float32)
    full, half = OnnxModel(source, "cpu")(image), OnnxModel(variant, "cpu")(image)
    assert half.dtype == np.float32 and half.shape == full.shape
    assert float(np.abs(full - half).max()) < 0.05


@pytest.mark.gpu
def test_tensorrt_engine_matches_onnx_runtime(tmp_path: Path):
    from engine.runtime.tensorrt import TensorRTModel

    files = find_ocr_models()
    crops = np.random.default_rng(2).uniform(-1, 1, (4, 3, 48, 320)).astype(np.float32)
    compiled = TensorRTModel(files.rec, REC_PROFILE, tmp_path)
    assert compiled.plan_path.exists()
    reference = OnnxModel(files.rec, "cpu")(crops)
    assert (compiled(crops).argmax(-1) == reference.argmax(-1)).mean() > 0.98


def test_the_onnx_metadata_a_plan_reads_is_the_one_onnx_runtime_reads():
    rec = find_ocr_models().rec
    assert onnx_metadata(rec)["character"] == OnnxModel(rec, "cpu").metadata("character")
