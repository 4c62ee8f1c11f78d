"""The `gpu` global concurrency limit: how many batch tasks may hold the GPU at once."""

from collections.abc import Iterator
from contextlib import contextmanager

from prefect.client.orchestration import get_client
from prefect.concurrency.sync import concurrency

from engine.types import PageParser

GPU_LIMIT = "gpu"
_ensured: set[tuple[str, int]] = set()


def pipeline_uses_gpu(pipeline: PageParser) -> bool:
    """Whether any of the engine's models runs on a CUDA device."""
    return any(
        model is not None and any("cuda" in str(provider).lower() for provider in model.providers)
        for model in pipeline.models.values()
    )


def ensure_gpu_limit(slots: int) -> None:
    """Create or resize the `gpu` limit on the Prefect server (once per process and size)."""
    with get_client(sync_client=True) as client:
        key = (str(client.api_url), slots)
        if key not in _ensured:
            client.upsert_global_concurrency_limit_by_name(GPU_LIMIT, slots)
            _ensured.add(key)


@contextmanager
def gpu_slot(pipeline: PageParser, slots: int) -> Iterator[None]:
    """Hold a slot of the `gpu` limit while the body runs, when the pipeline uses a GPU."""
    if not pipeline_uses_gpu(pipeline):
        yield
        return
    ensure_gpu_limit(slots)
    with concurrency(GPU_LIMIT, occupy=1, strict=True):
        yield
