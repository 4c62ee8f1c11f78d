"""Engine worker processes: a batch read and parsed in a worker equals the same batch parsed in this process, a
page that kills its worker fails alone, and workers end with the process that started them."""

import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import psutil
import pytest

from engine.config import EngineConfig
from engine.page_source import PageSource
from engine.types import PageInput, PageResult
from pages.budget import page_budget
from pages.engine_processes import DIED, EngineProcesses, engine_on_cpu, load_engine
from pages.parsing import PageJob, pdf_source, read_and_parse
from tests import pdfs

CONFIG = EngineConfig(device="cpu", threads=1)


def summary(result: PageResult | str) -> object:
    """What a page's result says: its blocks' types, texts, boxes and LaTeX (or the failure)."""
    if isinstance(result, str):
        return result
    return [(block.type, block.text, block.bbox, block.formula and block.formula.latex, block.order)
            for block in result.blocks]


def test_a_batch_parsed_in_a_worker_process_equals_the_batch_parsed_in_this_process(tmp_path: Path):
    report, formula = pdfs.two_column_pdf(tmp_path), pdfs.formula_page_pdf(tmp_path)
    jobs = [PageJob("a", str(report), 0), PageJob("b", str(report), 1), PageJob("c", str(formula), 0),
            PageJob("d", str(report), 7)]
    with pdf_source() as source:
        here = read_and_parse(load_engine(CONFIG), source, jobs, page_budget())
    workers = EngineProcesses(partial(load_engine, CONFIG), 2, "")
    try:
        there = workers(jobs, page_budget())
    finally:
        workers.close()
    assert list(there.inputs) == list(here.inputs) == ["a", "b", "c"]
    assert there.inputs == here.inputs
    assert "not in document" in there.unread["d"] and there.unread == here.unread
    assert {key: summary(result) for key, result in there.results.items()} == \
        {key: summary(result) for key, result in here.results.items()}
    assert any(block.formula for block in there.results["c"].blocks) or CONFIG.formula_model == "none"
    assert there.cpu_seconds > 0 and set(there.reading_seconds) == {"a", "b", "c"}


class Dying:
    """A parser whose process ends on a page keyed "die"."""

    version = "v"
    models: dict[str, object] = {}
    missing: dict[str, str] = {}

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        if any(item.key == "die" for item in inputs):
            os._exit(9)
        return [PageResult(key=item.key, width=item.width, height=item.height, text_layer=True, blocks=[],
                           engine_version=self.version) for item in inputs]


def test_a_page_that_kills_its_worker_fails_alone_and_the_workers_go_on(tmp_path: Path):
    report = str(pdfs.two_column_pdf(tmp_path))
    workers = EngineProcesses(Dying, 2, "v")
    try:
        parsed = workers([PageJob("a", report, 0), PageJob("die", report, 1), PageJob("b", report, 1)],
                         page_budget())
        assert sorted(parsed.results) == ["a", "b"] and parsed.unread == {"die": DIED}
        assert list(workers([PageJob("c", report, 0)], page_budget()).results) == ["c"]
    finally:
        workers.close()


def broken_engine() -> Dying:
    raise FileNotFoundError("no model file")


def test_an_engine_that_fails_to_load_in_a_worker_fails_the_call_with_its_error(tmp_path: Path):
    workers = EngineProcesses(broken_engine, 1, "v")
    try:
        with pytest.raises(FileNotFoundError, match="no model file"):
            workers([PageJob("a", str(pdfs.two_column_pdf(tmp_path)), 0)], page_budget())
    finally:
        workers.close()


class Gated(Dying):
    """A parser whose loading waits until the file `gate` exists (the test holds the gate closed), then says so."""

    def __init__(self, gate: str):
        while not os.path.exists(gate):
            time.sleep(0.05)
        Path(gate + ".loaded").touch()


def test_workers_started_without_waiting_load_the_engine_while_this_process_goes_on(tmp_path: Path):
    """`start(wait=False)` returns while the workers still load (their loading is held until the test opens its
    gate); they load without any call, and the first call finds them loaded."""
    gate = tmp_path / "gate"
    workers = EngineProcesses(partial(Gated, str(gate)), 2, "v")
    try:
        workers.start(wait=False)
        assert not Path(str(gate) + ".loaded").exists()
        gate.touch()
        deadline = time.monotonic() + 60
        while not Path(str(gate) + ".loaded").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert Path(str(gate) + ".loaded").exists()  # loaded with no call made
        assert list(workers([PageJob("a", str(pdfs.two_column_pdf(tmp_path)), 0)], page_budget()).results) == ["a"]
    finally:
        workers.close()


def test_the_engine_runs_in_worker_processes_only_on_cpu():
    assert engine_on_cpu("cpu") and not engine_on_cpu("cuda")


STARTER = """
import os, sys
from pages.engine_processes import EngineProcesses
from tests.unit.test_engine_processes import Dying
workers = EngineProcesses(Dying, 2, "v")
workers.start()
print(os.getpid(), flush=True)
sys.stdin.read()
"""


def test_workers_end_when_the_process_that_started_them_is_killed():
    """SIGKILL gives the starting process no chance to end its workers: each sees its parent gone and ends."""
    starter = subprocess.Popen([sys.executable, "-c", STARTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, cwd=Path(__file__).parents[2])
    try:
        assert int(starter.stdout.readline()) == starter.pid
        workers = [child for child in psutil.Process(starter.pid).children()
                   if "resource_tracker" not in " ".join(child.cmdline())]
        assert len(workers) == 2
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait()
        gone, alive = psutil.wait_procs(workers, timeout=60)
        assert alive == [] and len(gone) == 2
    finally:
        starter.kill()
