"""The `gpu` global concurrency limit on a real Prefect server, with stand-in models that report CUDA."""

from dataclasses import dataclass, field

from prefect.client.orchestration import get_client

from engine.pipeline import Pipeline
from tasks import gpu


@dataclass
class Model:
    providers: list[str] = field(default_factory=lambda: ["CPUExecutionProvider"])


def test_cpu_pipelines_take_no_slot():
    assert not gpu.pipeline_uses_gpu(Pipeline([], {"rec": Model(), "formula": None}))
    with gpu.gpu_slot(Pipeline([], {"rec": Model()}), 1):
        pass


def test_gpu_pipelines_hold_a_slot_of_the_gpu_limit():
    pipeline = Pipeline([], {"rec": Model(["CUDAExecutionProvider", "CPUExecutionProvider"]), "formula": None})
    assert gpu.pipeline_uses_gpu(pipeline)
    with gpu.gpu_slot(pipeline, 2):
        with get_client(sync_client=True) as client:
            limit = client.read_global_concurrency_limit_by_name(gpu.GPU_LIMIT)
            assert limit.limit == 2 and limit.active_slots == 1
    with get_client(sync_client=True) as client:
        assert client.read_global_concurrency_limit_by_name(gpu.GPU_LIMIT).active_slots == 0
