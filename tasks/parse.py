"""Parsing a batch of pages with the engine and storing them in one transaction."""

import logging
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import pymupdf
from prefect import task
from prefect.logging import get_run_logger
from sqlalchemy import Engine

from db.session import session_scope
from db.store import Claim, failed_documents
from engine.identity import Identity
from engine.pipeline import EngineConfig, build_pipeline, pipeline_identity
from engine.runtime.onnx import threads_per_worker
from engine.types import PageInput, PageParser, PageResult
from engine.vlm import VlmConfig, build_vlm_engine, vlm_identity
from folio.database import database
from folio.settings import get_settings
from tasks.budget import OutOfTime, PageBudget, TimeLimit, page_budget
from tasks.failures import BadDocument, reason
from tasks.files import FileIdentity, HeldFile
from tasks.gpu import gpu_slot
from tasks.pdf import open_pdf, page_fingerprint, page_graphics, page_input
from tasks.pdf_layout import set_layout_threads
from tasks.persist import PageOutcome, reusable_pages, save_batch, stored_result
from tasks.policy import is_transient, task_options
from tasks.register import Registered
from tasks.validate import validate_results


@dataclass(frozen=True)
class PageRef:
    document_id: int
    path: str
    page_no: int  # 1-based
    sha256: str = ""  # the document's: the file must still hold these bytes to be parsed
    identity: FileIdentity | None = None  # the file's when it was hashed


@dataclass(frozen=True)
class Batch:
    index: int
    pages: tuple[PageRef, ...]
    claim: Claim | None = None  # the run's claim on the documents, renewed when the batch is stored
    reuse: bool = True  # copy stored results of pages with the same fingerprint instead of parsing them


@dataclass(frozen=True)
class BatchReport:
    index: int
    pages: int  # stored by this batch: parsed, reused or failed
    failed: int
    reused: int  # results copied from a page with the same fingerprint
    engine_pages: int  # pages the engine was called on
    seconds: float
    quarantined: tuple[tuple[int, int, str], ...] = ()  # (document id, page no, failed checks) per page
    flagged: tuple[tuple[int, int, int, str], ...] = ()  # (document id, page no, blocks flagged, failed checks)


def make_batches(registered: list[Registered], batch_size: int, claim: Claim | None = None,
                 reuse: bool = True) -> list[Batch]:
    """The pages still to parse, in document order, cut into batches of `batch_size`."""
    refs = [
        PageRef(item.document_id, str(item.file.path), page_no, item.sha256, item.identity)
        for item in registered if item.outcome == "new"
        for page_no in item.pages_todo
    ]
    return [Batch(index, tuple(refs[start:start + batch_size]), claim, reuse)
            for index, start in enumerate(range(0, len(refs), batch_size))]


def engine_config() -> EngineConfig:
    """The engine's settings, from FOLIO_* variables."""
    settings = get_settings()
    return EngineConfig(device=settings.device, ocr_dpi=settings.ocr_dpi, formula_model=settings.formula_model,
                        max_page_pixels=settings.max_page_pixels, engine_cache=settings.engine_cache,
                        threads=threads_per_worker(settings.workers), ocr_int8=settings.ocr_int8)


def vlm_config() -> VlmConfig:
    """The VLM engine's settings, from FOLIO_VLM_* variables."""
    settings = get_settings()
    if not (settings.vlm_url and settings.vlm_model):
        raise ValueError("FOLIO_ENGINE=vlm needs FOLIO_VLM_URL (the server's OpenAI-compatible base URL, e.g. "
                         "http://gpu-1:8000/v1) and FOLIO_VLM_MODEL (the model it serves)")
    key = settings.vlm_api_key.get_secret_value() if settings.vlm_api_key else None
    return VlmConfig(url=settings.vlm_url, model=settings.vlm_model, format=settings.vlm_format, api_key=key,
                     concurrency=settings.vlm_concurrency, timeout=settings.vlm_timeout_seconds,
                     image_side=settings.vlm_image_side, anchor_text=settings.vlm_anchor_text,
                     device=settings.device, engine_cache=settings.engine_cache,
                     threads=threads_per_worker(settings.workers))


def engine_identity() -> Identity:
    """The identity of the engine FOLIO_ENGINE names, whose version it stores with its pages; found without loading
    a model."""
    if get_settings().engine == "vlm":
        return vlm_identity(vlm_config())
    return pipeline_identity(engine_config())


def get_pipeline() -> PageParser:
    """The engine FOLIO_ENGINE names, loaded once per worker process (and again only when its settings change);
    PyMuPDF's layout analyzer, which reads the pages for it, gets the same share of the cores as its models."""
    set_layout_threads(threads_per_worker(get_settings().workers))
    return _loaded(vlm_config() if get_settings().engine == "vlm" else engine_config())


@lru_cache(maxsize=1)
def _loaded(config: EngineConfig | VlmConfig) -> PageParser:
    return build_vlm_engine(config) if isinstance(config, VlmConfig) else build_pipeline(config)


def parse_batch_pages(batch: Batch, engine: Engine, pipeline: PageParser,
                      log: logging.Logger | logging.LoggerAdapter | None = None) -> BatchReport:
    """Read, parse and store every page of the batch; a page that fails is stored as failed, with the reason.

    A page whose fingerprint already has a result from a parser of the same version (the pipeline's identity:
    code, settings and model files; stored earlier, or parsed earlier in this batch) reuses it without calling the
    engine, unless the batch says not to.
    Each document's file is held open while its pages are read and parsed, and only while it holds the
    bytes its document was hashed from; a file that is gone or changed fails its document with the reason,
    and none of its pages is stored with a result.
    """
    log = log or logging.getLogger(__name__)
    started = time.perf_counter()
    with session_scope(engine) as session:  # a document an earlier batch failed: its file is not read again
        bad_files = failed_documents(session, {ref.document_id for ref in batch.pages})
    with ExitStack() as stack:
        held = _hold_files(batch, bad_files, stack)
        inputs, outcomes = _load_pages(batch, held, page_budget())
        with session_scope(engine) as session:
            fingerprints = {fingerprint for _, _, fingerprint in inputs} if batch.reuse else set()
            stored = reusable_pages(session, fingerprints, pipeline.version)
            copies = {fingerprint: stored_result(session, page_id, "") for fingerprint, page_id in stored.items()}
        first: dict[str, tuple[PageRef, PageInput]] = {}
        for ref, item, fingerprint in inputs:
            first.setdefault(fingerprint, (ref, item))
        to_parse = [item for ref, item, fingerprint in inputs
                    if fingerprint not in stored and first[fingerprint][0] == ref]
        results = fail_unread_pages(_run_engine(pipeline, to_parse, log))
        bad_files.update({document_id: "changed during the run: written to while its pages were parsed"
                          for document_id, file in held.items() if not file.unchanged()})
    validation_started = time.perf_counter()
    verdicts = validate_results([result for result in results.values() if isinstance(result, PageResult)],
                                {item.key: item for item in to_parse})
    results.update((key, verdict.result) for key, verdict in verdicts.items())  # flagged blocks repaired
    validation_seconds = time.perf_counter() - validation_started
    for ref, _, fingerprint in inputs:
        original, original_input = first[fingerprint]
        if fingerprint in stored:
            result, origin, same_as = copies[fingerprint], stored[fingerprint], None
        else:
            result, origin = results.get(original_input.key), None
            same_as = None if original == ref else (original.document_id, original.page_no)
        error = None if isinstance(result, PageResult) else result
        outcomes.append(PageOutcome(ref.document_id, ref.page_no, fingerprint, result if error is None else None,
                                    error, reused_from=origin, same_as=same_as,
                                    issues=verdicts[original_input.key].issues if original_input.key in verdicts
                                    else ()))
    outcomes = [_without_bad_files(outcome, bad_files) for outcome in outcomes]
    save_batch(engine, outcomes, batch.claim, bad_files)
    failed_pages = sum(1 for outcome in outcomes if outcome.result is None)
    reused = sum(1 for outcome in outcomes
                 if outcome.result is not None and (outcome.reused_from is not None or outcome.same_as is not None))
    quarantined = tuple((outcome.document_id, outcome.page_no, outcome.failed_checks)
                        for outcome in outcomes if outcome.quarantined)
    flagged = tuple((outcome.document_id, outcome.page_no, outcome.flagged_blocks, outcome.failed_checks)
                    for outcome in outcomes
                    if outcome.issues and outcome.result is not None and not outcome.quarantined)
    seconds = time.perf_counter() - started
    blocks_flagged = sum(blocks for _, _, blocks, _ in flagged)
    log.info("batch %d: %d pages in %.1f s (%.2f pages/s, validation %.2f s)%s%s%s%s", batch.index + 1,
             len(outcomes), seconds, len(outcomes) / seconds if seconds else 0.0, validation_seconds,
             f", {reused} reused" if reused else "", f", {failed_pages} failed" if failed_pages else "",
             f", {len(quarantined)} quarantined" if quarantined else "",
             f", {blocks_flagged} blocks flagged" if blocks_flagged else "")
    return BatchReport(batch.index, len(outcomes), failed_pages, reused, len(to_parse), seconds, quarantined,
                       flagged)


def _without_bad_files(outcome: PageOutcome, bad_files: dict[int, str]) -> PageOutcome:
    """A page of a file that is gone or changed fails with its file's reason; a page whose result was parsed from
    such a file's page of the same fingerprint keeps it, without pointing at that page."""
    if outcome.document_id in bad_files:
        return PageOutcome(outcome.document_id, outcome.page_no, outcome.fingerprint,
                           error=bad_files[outcome.document_id])
    if outcome.same_as is not None and outcome.same_as[0] in bad_files:
        return replace(outcome, same_as=None)
    return outcome


def fail_unread_pages(results: dict[str, PageResult | str]) -> dict[str, PageResult | str]:
    """A page the engine could not parse (an unreadable answer) or no OCR reader could read becomes a failure with
    the engine's reason, not gibberish stored as text."""
    return {key: _failure(result) or result for key, result in results.items()}


def _failure(result: PageResult | str) -> str | None:
    if not isinstance(result, PageResult):
        return None
    return result.error or (f"ocr: {result.untrusted}" if result.untrusted else None)


def _hold_files(batch: Batch, bad_files: dict[int, str], stack: ExitStack) -> dict[int, HeldFile]:
    """Each document's file held open (until the stack closes) if it still holds its document's bytes; the
    reason of each one that does not goes to bad_files."""
    held: dict[int, HeldFile] = {}
    max_bytes = get_settings().max_file_bytes
    for ref in batch.pages:
        if ref.document_id in held or ref.document_id in bad_files:
            continue
        try:
            held[ref.document_id] = stack.enter_context(HeldFile(Path(ref.path), ref.sha256, ref.identity, max_bytes))
        except BadDocument as error:
            bad_files[ref.document_id] = str(error)
    return held


def _load_pages(batch: Batch, held: dict[int, HeldFile],
                budget: PageBudget) -> tuple[list[tuple[PageRef, PageInput, str]], list[PageOutcome]]:
    """Engine inputs and fingerprints for the batch's pages of held files; a page that cannot be read, or is
    over its budget, becomes a failure with the reason."""
    loaded, failures = [], []
    documents: dict[int, pymupdf.Document | BadDocument] = {}
    try:
        for ref in batch.pages:
            if ref.document_id not in held:
                continue
            if ref.document_id not in documents:
                try:
                    documents[ref.document_id] = open_pdf(Path(held[ref.document_id].path))
                except BadDocument as error:
                    documents[ref.document_id] = error
            document = documents[ref.document_id]
            try:
                if isinstance(document, BadDocument):
                    raise document
                with TimeLimit(budget.seconds):
                    loaded.append(_load_page(document, ref, held[ref.document_id].path, budget))
            except OutOfTime:
                failures.append(PageOutcome(ref.document_id, ref.page_no, None,
                                            error=budget.out_of_time("reading the page")))
            except Exception as error:  # noqa: BLE001 - whatever stops this page stops only this page
                if is_transient(error):
                    raise
                failures.append(PageOutcome(ref.document_id, ref.page_no, None, error=reason(error)))
    finally:
        for document in documents.values():
            if isinstance(document, pymupdf.Document):
                document.close()
    return loaded, failures


def _load_page(document: pymupdf.Document, ref: PageRef, path: str,
               budget: PageBudget) -> tuple[PageRef, PageInput, str]:
    page = document[ref.page_no - 1]
    graphics = page_graphics(page)
    item = page_input(page, f"{ref.document_id}:{ref.page_no}", Path(path), graphics, budget)
    return ref, item, page_fingerprint(page, graphics)


def _run_engine(pipeline: PageParser, inputs: list[PageInput],
                log: logging.Logger | logging.LoggerAdapter) -> dict[str, PageResult | str]:
    """Results by page key, each page within its time budget (a batch within the sum of its pages'); if the
    batch fails or runs out of time, its pages are parsed one by one to isolate the bad one. A server that is
    busy, unreachable or silent (the VLM engine's) fails the batch: the task retries it."""
    if not inputs:
        return {}
    budget = page_budget()
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
        results.update(_run_engine(pipeline, [item], log))
    return results


@task(name="parse-batch", task_run_name="parse-batch-{batch.index}", **task_options())
def parse_batch(batch: Batch) -> BatchReport:
    pipeline = get_pipeline()
    with gpu_slot(pipeline, get_settings().gpu_slots):
        return parse_batch_pages(batch, database(), pipeline, get_run_logger())
