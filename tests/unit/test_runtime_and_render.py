import pytest

from engine.render import render_scale
from engine.runtime import choose_providers
from engine.runtime import onnx as onnx_runtime
from engine.runtime.onnx import threads_per_worker


def test_providers_come_only_from_what_is_available():
    assert choose_providers("auto", ["CPUExecutionProvider"])[0] == ["CPUExecutionProvider"]
    providers, why = choose_providers("auto", ["CUDAExecutionProvider", "CPUExecutionProvider"])
    assert providers == ["CUDAExecutionProvider", "CPUExecutionProvider"] and "CUDA" in why
    assert choose_providers("cpu", ["CUDAExecutionProvider", "CPUExecutionProvider"])[0] == ["CPUExecutionProvider"]
    with pytest.raises(RuntimeError, match="FOLIO_DEVICE=cuda"):
        choose_providers("cuda", ["CPUExecutionProvider"])


def test_render_scale_keeps_huge_pages_within_the_pixel_budget():
    assert render_scale(612, 792, 150, 25_000_000) == pytest.approx(150 / 72)
    scale = render_scale(14400, 14400, 150, 25_000_000)
    assert (14400 * scale) ** 2 == pytest.approx(25_000_000, rel=1e-6)


def test_concurrent_workers_share_the_cores_out(monkeypatch):
    monkeypatch.setattr(onnx_runtime, "cpu_cores", lambda: 8)
    assert [threads_per_worker(workers) for workers in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
