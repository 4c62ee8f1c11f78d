"""Engine worker processes: FOLIO_WORKERS processes on one machine, each holding the engine loaded once (every
model with cores/workers threads), that read and parse the batches the flow's threads hand them.

Reading a page (PyMuPDF's layout analysis and table finder) and much of the engine is Python: in threads of one
process it runs one thread at a time (the GIL), so two workers kept ~1.6 of 2 cores busy; processes keep them
all busy. Pages are opened by path in the worker (a held file's /proc/<pid>/fd path opens from any process of
its user); what comes back is the pages read and their results.
"""

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from engine.pipeline import EngineConfig, build_pipeline
from engine.runtime.onnx import choose_providers
from engine.types import PageParser
from tasks.budget import PageBudget
from tasks.page_parsing import PageJob, ParsedPages, read_and_parse
from tasks.pdf_layout import set_layout_threads

log = logging.getLogger(__name__)

_pipeline: PageParser | None = None  # the engine of this worker process


def engine_on_cpu(device: str) -> bool:
    """Whether every model runs on CPU: FOLIO_DEVICE=cpu, or auto where ONNX Runtime has no GPU provider and the
    machine has no NVIDIA device (a GPU's engine stays in the flow's process, which holds the GPU slots)."""
    if device == "cpu":
        return True
    return device == "auto" and choose_providers("auto")[0] == ["CPUExecutionProvider"] and \
        not any(Path("/dev").glob("nvidia[0-9]*"))


def load_pipeline(config: EngineConfig) -> PageParser:
    """The pipeline of `config`, PyMuPDF's layout analysis with as many threads as its models."""
    set_layout_threads(config.threads)
    return build_pipeline(config)


class EngineProcesses:
    """A pool of worker processes that each load their engine once, by calling `load` (picklable: a module's
    function, or a partial of one); call it with a batch's pages. `version`: the engine's, found without loading
    it."""

    def __init__(self, load: Callable[[], PageParser], workers: int, version: str):
        self.load, self.workers, self.version = load, workers, version
        self._lock = threading.Lock()
        self._pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_load, initargs=(self.load,))

    def __call__(self, jobs: list[PageJob], budget: PageBudget) -> ParsedPages:
        """The pages read and parsed in one of the workers. A worker that died (killed, or crashed in native code)
        fails the call with BrokenProcessPool; the pool is started again for the next."""
        with self._lock:
            pool = self._pool
        try:
            return pool.submit(_read_and_parse, jobs, budget).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    log.warning("an engine worker process died; starting the workers again")
                    self._pool = self._start()
            raise

    def start(self) -> None:
        """Start every worker now and return once each has loaded the engine (a call otherwise waits for it)."""
        with self._lock:
            pool = self._pool
        ready: set[int] = set()
        while len(ready) < self.workers:
            ready.update(call.result() for call in [pool.submit(_ready) for _ in range(self.workers)])

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _load(load: Callable[[], PageParser]) -> None:
    global _pipeline
    _pipeline = load()


def _ready() -> int:
    """This worker's process id, once it has loaded the engine; it stays busy a moment, so that the other calls of
    `start` go to other workers."""
    time.sleep(0.05)
    return os.getpid()


def _read_and_parse(jobs: list[PageJob], budget: PageBudget) -> ParsedPages:
    assert _pipeline is not None, "the worker's initializer loads the engine"
    return read_and_parse(_pipeline, jobs, budget, log)
