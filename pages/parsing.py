"""Reading pages with PyMuPDF and parsing them with the engine, each page within its budget: the work of a batch
that runs in the flow's process or in an engine worker process (pages/engine_processes.py). The batch's PDFs are
opened once, in its PageSource, which the engine renders from."""

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

import pymupdf

from engine.page_source import PageSource
from engine.types import PageInput, PageParser, PageResult
from pages.budget import PageBudget, TimeLimit
from pages.pdf import open_pdf, page_graphics, page_input
from sources.failures import OutOfTime, is_transient, reason

T = TypeVar("T")
R = TypeVar("R")
READING = "page input"  # the time a page took to read (text layer, PyMuPDF's layout analysis and tables)


@dataclass(frozen=True)
class PageJob:
    key: str  # unique within the batch
    path: str  # where any process of this user can open the PDF
    page_index: int  # 0-based


@dataclass
class ParsedPages:
    inputs: dict[str, PageInput] = field(default_factory=dict)  # the pages read, by key
    unread: dict[str, str] = field(default_factory=dict)  # why each page that could not be read was not
    results: dict[str, PageResult | str] = field(default_factory=dict)  # each read page's result or why it failed
    reading_seconds: dict[str, float] = field(default_factory=dict)  # wall seconds each page took to read
    cpu_seconds: float = 0.0  # CPU time of the process that did the work (all its threads) meanwhile

    def add(self, other: "ParsedPages") -> None:
        """Take in the pages of another part of the batch."""
        self.inputs.update(other.inputs)
        self.unread.update(other.unread)
        self.results.update(other.results)
        self.reading_seconds.update(other.reading_seconds)
        self.cpu_seconds += other.cpu_seconds


def pdf_source() -> PageSource:
    """A batch's PDFs, each opened once by open_pdf: a file that cannot be opened fails each of its pages with the
    reason."""
    return PageSource(lambda path: open_pdf(Path(path)))


def read_and_parse(pipeline: PageParser, source: PageSource, jobs: list[PageJob], budget: PageBudget,
                   log: logging.Logger | logging.LoggerAdapter | None = None) -> ParsedPages:
    """The engine's inputs of the pages and the engine's results for them, both from the PDFs `source` holds."""
    cpu = time.process_time()
    parsed = read_pages(source, jobs, budget)
    parsed.results = run_engine(partial(pipeline, source=source), list(parsed.inputs.values()), budget,
                                log or logging.getLogger(__name__))
    parsed.cpu_seconds = time.process_time() - cpu
    return parsed


def read_pages(source: PageSource, jobs: list[PageJob], budget: PageBudget) -> ParsedPages:
    """Engine inputs of the pages; a page that cannot be read, or is over its budget, is unread with the reason."""
    parsed = ParsedPages()

    def read(job: PageJob, page: pymupdf.Page) -> PageInput:
        started = time.perf_counter()
        try:
            return page_input(page, job.key, Path(job.path), page_graphics(page), budget)
        finally:
            parsed.reading_seconds[job.key] = time.perf_counter() - started

    for job, item, why in each_page(source, jobs, lambda job: (job.path, job.page_index), read, budget):
        if why is None:
            parsed.inputs[job.key] = item
        else:
            parsed.unread[job.key] = why
    return parsed


def each_page(source: PageSource, items: list[T], where: Callable[[T], tuple[str, int]],
              read: Callable[[T, pymupdf.Page], R], budget: PageBudget) -> Iterator[tuple[T, R | None, str | None]]:
    """(item, what `read` made of its page, None), or (item, None, why not) for a page that cannot be opened or
    read, or is over its budget; `where` says an item's PDF (opened by `source`) and 0-based page."""
    for item in items:
        path, index = where(item)
        try:
            document = source.document(path)
            with TimeLimit(budget.seconds):
                made = read(item, document[index])
        except OutOfTime:
            yield item, None, budget.out_of_time("reading the page")
            continue
        except Exception as error:  # noqa: BLE001 - whatever stops this page stops only this page
            if is_transient(error):
                raise
            yield item, None, reason(error)
            continue
        yield item, made, None


def run_engine(pipeline: Callable[[list[PageInput]], list[PageResult]], inputs: list[PageInput], budget: PageBudget,
               log: logging.Logger | logging.LoggerAdapter) -> dict[str, PageResult | str]:
    """Results by page key, each page within its time budget (a batch within the sum of its pages'); if the
    batch fails or runs out of time, its pages are parsed one by one to isolate the bad one. A server that is
    busy, unreachable or silent (the VLM engine's) fails the batch: the task retries it."""
    if not inputs:
        return {}
    try:
        with TimeLimit(budget.seconds * len(inputs)):
            return {result.key: result for result in pipeline(inputs)}
    except (ConnectionError, TimeoutError):
        raise
    except OutOfTime:
        if len(inputs) == 1:
            return {inputs[0].key: budget.out_of_time("parsing the page")}
        log.warning("batch ran out of time in the engine; parsing its pages one by one")
    except Exception as error:  # noqa: BLE001 - a model failing on one page must not fail the others
        if len(inputs) == 1:
            why = reason(error)
            return {inputs[0].key: f"engine {why}" if why.startswith("error:") else why}
        log.warning("batch failed in the engine (%s); parsing its pages one by one", error)
    results: dict[str, PageResult | str] = {}
    for item in inputs:
        results.update(run_engine(pipeline, [item], budget, log))
    return results
