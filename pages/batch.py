"""A batch's pages read, parsed and stored in one transaction: the work of the parse-batch task."""

import logging
import time
from collections import Counter
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Engine

from base.run_metrics import BatchMetrics
from base.run_summary import FlaggedPage, QuarantinedPage
from base.settings import get_settings
from db.identity import DatabaseIdentity
from db.pages import reusable_pages
from db.session import session_scope
from db.store import Claim, failed_documents
from engine.page_source import PageSource
from engine.types import PageParser, PageResult
from pages.budget import PageBudget, page_budget
from pages.engine_processes import EngineProcesses
from pages.parsing import PageJob, each_page, pdf_source, read_and_parse
from pages.pdf import page_fingerprint
from pages.rows import PageOutcome, save_batch, stored_result
from sources.failures import BadDocument, reason_class
from sources.files import FileIdentity, HeldFile
from validation.gate import prepare_validator, validate_results


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
    database: DatabaseIdentity | None = None  # the run's: where the task runs, its database must be this one


@dataclass(frozen=True)
class BatchReport:
    index: int
    pages: int  # stored by this batch (not by another run before it): parsed, reused or failed
    failed: int
    reused: int  # results copied from a page with the same fingerprint
    engine_pages: int  # pages the engine was called on
    seconds: float
    quarantined: tuple[QuarantinedPage, ...] = ()
    flagged: tuple[FlaggedPage, ...] = ()
    lost: frozenset[int] = frozenset()  # documents another run took over: none of their pages stored by this batch
    metrics: BatchMetrics = BatchMetrics()


def parse_batch_pages(batch: Batch, database: Engine, parser: PageParser | EngineProcesses,
                      log: logging.Logger | logging.LoggerAdapter | None = None) -> BatchReport:
    """Read, parse and store every page of the batch; a page that fails is stored as failed, with the reason.

    A page whose fingerprint already has a result from a parser of the same version (the pipeline's identity:
    code, settings and model files; stored earlier, or parsed earlier in this batch) reuses it without being
    read for the engine (PyMuPDF's layout analysis) or parsed, unless the batch says not to. The pages to parse
    are read and parsed by `parser`: the engine in this process, or engine worker processes.
    Each document's file is held open while its pages are read and parsed, and only while it holds the
    bytes its document was hashed from; a file that is gone or changed fails its document with the reason,
    and none of its pages is stored with a result.
    """
    log = log or logging.getLogger(__name__)
    started = time.perf_counter()
    with session_scope(database) as session:  # a document an earlier batch failed: its file is not read again
        bad_files = failed_documents(session, {ref.document_id for ref in batch.pages})
    budget = page_budget()
    with ExitStack() as stack:
        held = _hold_files(batch, bad_files, stack)
        source = stack.enter_context(pdf_source())  # each PDF opened once, to fingerprint, read and parse its pages
        fingerprinted, outcomes = _fingerprint_pages(source, batch, held, budget)
        with session_scope(database) as session:
            fingerprints = {fingerprint for _, fingerprint in fingerprinted} if batch.reuse else set()
            stored = reusable_pages(session, fingerprints, parser.version)
            copies = {fingerprint: stored_result(session, page_id, "") for fingerprint, page_id in stored.items()}
        first: dict[str, PageRef] = {}
        for ref, fingerprint in fingerprinted:
            first.setdefault(fingerprint, ref)
        jobs = [PageJob(_key(ref), held[ref.document_id].path, ref.page_no - 1) for ref, fingerprint in fingerprinted
                if fingerprint not in stored and first[fingerprint] == ref]
        if isinstance(parser, EngineProcesses):
            prepare_validator()  # while the engine workers read and parse
            parsed = parser(jobs, budget)
        else:
            parsed = read_and_parse(parser, source, jobs, budget, log)
        results = fail_unread_pages(parsed.results)
        bad_files.update({document_id: "changed during the run: written to while its pages were parsed"
                          for document_id, file in held.items() if not file.unchanged()})
    validation_started = time.perf_counter()
    verdicts = validate_results([result for result in results.values() if isinstance(result, PageResult)],
                                parsed.inputs)
    results.update((key, verdict.result) for key, verdict in verdicts.items())  # flagged blocks repaired
    validation_seconds = time.perf_counter() - validation_started
    for ref, fingerprint in fingerprinted:
        original = first[fingerprint]
        key = _key(original)
        if fingerprint in stored:
            result, origin, same_as = copies[fingerprint], stored[fingerprint], None
        elif key in parsed.unread:  # unread: failed without a fingerprint, as a page that could not be opened
            outcomes.append(PageOutcome(ref.document_id, ref.page_no, None, error=parsed.unread[key]))
            continue
        else:
            result, origin = results.get(key), None
            same_as = None if original == ref else (original.document_id, original.page_no)
        error = None if isinstance(result, PageResult) else result
        outcomes.append(PageOutcome(ref.document_id, ref.page_no, fingerprint, result if error is None else None,
                                    error, reused_from=origin, same_as=same_as,
                                    issues=verdicts[key].issues if key in verdicts else ()))
    saved = save_batch(database, [_without_bad_files(outcome, bad_files) for outcome in outcomes], batch.claim,
                       bad_files)
    if saved.lost:
        log.warning("batch %d: %d document(s) taken over by another run while this one parsed them (ids %s): their "
                    "pages are left to it", batch.index + 1, len(saved.lost), ", ".join(map(str, sorted(saved.lost))))
    outcomes = saved.pages  # what this run stored, and so counts
    failed_pages = sum(1 for outcome in outcomes if outcome.result is None)
    reused = sum(1 for outcome in outcomes
                 if outcome.result is not None and (outcome.reused_from is not None or outcome.same_as is not None))
    quarantined = tuple(QuarantinedPage(outcome.document_id, outcome.page_no, outcome.failed_checks)
                        for outcome in outcomes if outcome.quarantined)
    flagged = tuple(FlaggedPage(outcome.document_id, outcome.page_no, outcome.flagged_blocks, outcome.failed_checks)
                    for outcome in outcomes
                    if outcome.issues and outcome.result is not None and not outcome.quarantined)
    seconds = time.perf_counter() - started
    blocks_flagged = sum(page.blocks for page in flagged)
    log.info("batch %d: %d pages in %.1f s (%.2f pages/s, validation %.2f s)%s%s%s%s", batch.index + 1,
             len(outcomes), seconds, len(outcomes) / seconds if seconds else 0.0, validation_seconds,
             f", {reused} reused" if reused else "", f", {failed_pages} failed" if failed_pages else "",
             f", {len(quarantined)} quarantined" if quarantined else "",
             f", {blocks_flagged} blocks flagged" if blocks_flagged else "")
    return BatchReport(batch.index, len(outcomes), failed_pages, reused, len(parsed.inputs), seconds, quarantined,
                       flagged, saved.lost, _metrics(seconds, results.values(), outcomes))


def _metrics(seconds: float, results: Iterable[PageResult | str], stored: list[PageOutcome]) -> BatchMetrics:
    """The batch's measures: stage times and OCR use of the pages the engine parsed, reasons of the pages that
    failed."""
    parsed = [result for result in results if isinstance(result, PageResult)]
    failed = Counter(reason_class(outcome.error or "") for outcome in stored if outcome.result is None)
    return BatchMetrics(
        seconds=seconds,
        stage_seconds=tuple((stage, spent) for result in parsed for stage, spent in result.stage_seconds.items()),
        failed_pages=tuple(sorted(failed.items())),
        ocr_pages=sum(1 for result in parsed if not result.text_layer),
        fallback_pages=sum(1 for result in parsed if result.fallback_ocr))


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


def _fingerprint_pages(source: PageSource, batch: Batch, held: dict[int, HeldFile],
                       budget: PageBudget) -> tuple[list[tuple[PageRef, str]], list[PageOutcome]]:
    """The fingerprints of the batch's pages of held files; a page that cannot be read, or is over its budget,
    becomes a failure with the reason."""
    fingerprinted, failures = [], []
    refs = [ref for ref in batch.pages if ref.document_id in held]
    for ref, fingerprint, why in each_page(source, refs, lambda ref: (held[ref.document_id].path, ref.page_no - 1),
                                           lambda _, page: page_fingerprint(page), budget):
        if why is None:
            fingerprinted.append((ref, fingerprint))
        else:
            failures.append(PageOutcome(ref.document_id, ref.page_no, None, error=why))
    return fingerprinted, failures


def _key(ref: PageRef) -> str:
    return f"{ref.document_id}:{ref.page_no}"
