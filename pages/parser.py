"""The parser this process hands its batches to: the engine FOLIO_ENGINE names, loaded once in this process, or
engine worker processes that each load it."""

import threading
from functools import lru_cache, partial

from base.engines import configured_engine, engine_config
from base.settings import get_settings
from engine.config import EngineConfig
from engine.pipeline_models import pipeline_identity
from engine.types import PageParser
from pages.engine_processes import EngineProcesses, engine_on_cpu, load_engine


def get_pipeline() -> PageParser:
    """The engine FOLIO_ENGINE names, loaded once per worker process (and again only when its settings change)."""
    return _loaded(configured_engine())


_loaded = lru_cache(maxsize=1)(load_engine)


def engine_workers() -> EngineProcesses | None:
    """The engine worker processes that read and parse the batches when FOLIO_WORKERS > 1 batches run at once in
    threads of this process and the pipeline runs on CPU; started on the first call (and again when the settings
    change). None where the engine runs in this process: one worker, a GPU, the VLM engine, or a Dask runner
    (whose workers are processes already)."""
    global _workers
    settings = get_settings()
    if settings.workers < 2 or settings.engine != "pipeline" or settings.task_runner != "threads" \
            or not engine_on_cpu(settings.device):
        return None
    config = engine_config()
    with _workers_lock:
        if _workers is None or _workers[0] != (config, settings.workers):
            if _workers is not None:
                _workers[1].close()
            _workers = ((config, settings.workers), EngineProcesses(partial(load_engine, config), settings.workers,
                                                                    pipeline_identity(config).version))
        return _workers[1]


def start_engine_workers() -> None:
    """The engine worker processes started now, loading the engine while this process goes on (Prefect's server
    starts meanwhile), where `engine_workers` gives them."""
    workers = engine_workers()
    if workers is not None:
        workers.start(wait=False)


_workers: tuple[tuple[EngineConfig, int], EngineProcesses] | None = None  # the running ones, with their settings
_workers_lock = threading.Lock()


def stop_engine_workers() -> None:
    """End the engine worker processes, if any run (at exit they end by themselves)."""
    global _workers
    with _workers_lock:
        if _workers is not None:
            _workers[1].close()
            _workers = None
