"""Engine worker processes: FOLIO_WORKERS processes on one machine, each holding the engine loaded once (every
model with cores/workers threads), that read and parse the batches the flow's threads hand them.

Reading a page (PyMuPDF's layout analysis and table finder) and much of the engine is Python: in threads of one
process it runs one thread at a time (the GIL), so two workers kept ~1.6 of 2 cores busy; processes keep them
all busy. Pages are opened by path in the worker (a held file's /proc/<pid>/fd path opens from any process of
its user), each PDF once for the batch's reading and parsing; what comes back is the pages read and their results.
"""

import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from engine.config import EngineConfig, VlmConfig
from engine.pipeline import build_pipeline
from engine.runtime.onnx import choose_providers
from engine.types import PageParser
from engine.vlm import build_vlm_engine
from pages.budget import PageBudget
from pages.parsing import PageJob, ParsedPages, pdf_source, read_and_parse
from pages.pdf_layout import set_layout_threads

log = logging.getLogger(__name__)

_pipeline: PageParser | Exception | None = None  # the engine of this worker process, or why it did not load
PARENT_CHECK_SECONDS = 1.0  # how often a worker looks whether the process that started it still runs


def engine_on_cpu(device: str) -> bool:
    """Whether every model runs on CPU: FOLIO_DEVICE=cpu, or auto where ONNX Runtime has no GPU provider and the
    machine has no NVIDIA device (a GPU's engine stays in the flow's process, which holds the GPU slots)."""
    if device == "cpu":
        return True
    return device == "auto" and choose_providers("auto")[0] == ["CPUExecutionProvider"] and \
        not any(Path("/dev").glob("nvidia[0-9]*"))


def load_engine(config: EngineConfig | VlmConfig) -> PageParser:
    """The engine of `config` loaded; PyMuPDF's layout analysis, which reads the pages for it, gets the same share of
    the cores as its models."""
    set_layout_threads(config.threads)
    return build_vlm_engine(config) if isinstance(config, VlmConfig) else build_pipeline(config)


class EngineProcesses:
    """`workers` worker processes that each load their engine once, by calling `load` (picklable: a module's
    function, or a partial of one); call it with a batch's pages, from as many threads as there are workers.
    `version`: the engine's, found without loading it.

    Each worker is a pool of one process of its own, so that a worker that dies (killed, or crashed in native
    code by a page) fails only the call it was on: that call's pages are then parsed one by one on a new worker,
    and the page that kills a worker alone fails with the reason; its neighbours are parsed.
    """

    def __init__(self, load: Callable[[], PageParser], workers: int, version: str):
        self.load, self.workers, self.version = load, workers, version
        self._free: queue.SimpleQueue[ProcessPoolExecutor] = queue.SimpleQueue()
        self._all = [self._worker() for _ in range(workers)]
        for worker in self._all:
            self._free.put(worker)

    def _worker(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_load,
                                   initargs=(self.load,))

    def __call__(self, jobs: list[PageJob], budget: PageBudget) -> ParsedPages:
        """The pages read and parsed in the next free worker."""
        worker = self._free.get()
        try:
            return worker.submit(_read_and_parse, jobs, budget).result()
        except BrokenProcessPool:
            worker = self._replaced(worker)
        finally:
            self._free.put(worker)
        if len(jobs) == 1:
            return ParsedPages(unread={jobs[0].key: DIED})
        log.warning("an engine worker process died on a batch; parsing its pages one by one")
        parsed = ParsedPages()
        for job in jobs:
            parsed.add(self([job], budget))
        return parsed

    def _replaced(self, worker: ProcessPoolExecutor) -> ProcessPoolExecutor:
        worker.shutdown(wait=False)
        new = self._worker()
        self._all[self._all.index(worker)] = new
        return new

    def start(self, wait: bool = True) -> None:
        """Start every worker now, loading the engine (a call otherwise waits for it), and return once each has
        loaded it, or at once without `wait`."""
        started = [worker.submit(_ready) for worker in self._all]
        for ready in started if wait else ():
            ready.result()

    def close(self) -> None:
        for worker in self._all:
            worker.shutdown(wait=True, cancel_futures=True)


DIED = "error: the engine worker process died reading or parsing the page (killed, or a crash in native code)"


def _load(load: Callable[[], PageParser]) -> None:
    """Load the worker's engine; an engine that fails to load fails each call with its error, as in the flow's
    process (a failing initializer would only break the pool, which reads as a page that killed its worker)."""
    global _pipeline
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="exit-with-parent", daemon=True).start()
    try:
        _pipeline = load()
    except Exception as error:  # noqa: BLE001 - raised again by every call
        _pipeline = error


def _exit_with_parent(parent: int) -> None:
    """End this worker once the process that started it is gone: killed with SIGKILL (the OOM killer, kill -9), that
    process cannot end its workers, and an orphan would hold its models' memory for good."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def _ready() -> None:
    """Nothing, once the worker has loaded the engine (its error if it did not)."""
    if isinstance(_pipeline, Exception):
        raise _pipeline


def _read_and_parse(jobs: list[PageJob], budget: PageBudget) -> ParsedPages:
    if isinstance(_pipeline, Exception):
        raise _pipeline
    assert _pipeline is not None, "the worker's initializer loads the engine"
    with pdf_source() as source:
        return read_and_parse(_pipeline, source, jobs, budget, log)
