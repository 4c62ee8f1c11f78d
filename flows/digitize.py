"""The digitize flow: list a source, register files, parse new pages in batches, close the run."""

import dataclasses
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from base.database import identity
from base.run_metrics import RunMetrics
from base.run_summary import FlaggedPage, QuarantinedPage, RunSummary
from base.settings import get_settings
from db.store import Claim
from flows.artifacts import RunProgress, publish_outcome
from flows.monitoring import publish_run_metrics
from flows.progress import Stage, Step, tell
from flows.runners import SettingsTaskRunner
from runs.batches import make_batches
from runs.heartbeat import heartbeat
from runs.lifecycle import PageCounts, abandon_run
from runs.register import Registered
from tasks.discover import discover
from tasks.parse import parse_batch
from tasks.register import register
from tasks.runs import finish_task, open_run_task

PageT = TypeVar("PageT", QuarantinedPage, FlaggedPage)


class RunFailed(Exception):
    """Batches failed after their retries; what was stored is in the summary, the rest is left to a retry."""

    def __init__(self, summary: RunSummary, errors: list[str]):
        super().__init__(f"{len(errors)} batch(es) failed: " + "; ".join(sorted(set(errors))))
        self.summary = summary


def run_claim() -> Claim:
    """This flow run's claim on documents: its id (the same when the flow run is retried) and the lease."""
    return Claim(str(flow_run.get_id() or uuid.uuid4()), get_settings().claim_lease_seconds)


def parse_and_finish(run_id: int, registered: list[Registered], batch_size: int, claim: Claim,
                     started: float, reuse: bool = True) -> RunSummary:
    """Parse the registered documents' pages in batches and close the run; raise RunFailed if a batch failed.

    With reuse, a page whose fingerprint has a stored result copies it instead of being parsed.
    """
    log = get_run_logger()
    batches = make_batches(registered, batch_size, claim, reuse, identity(), get_settings().workers)
    total_pages = sum(len(batch.pages) for batch in batches)
    log.info("%d pages to parse in %d batches", total_pages, len(batches))
    progress = RunProgress(total_pages)
    progress.start()
    parsed = reused = failed = 0
    measured = RunMetrics()
    lost: set[int] = set()
    errors: list[str] = []
    quarantined: list[QuarantinedPage] = []
    flagged: list[FlaggedPage] = []
    for future in parse_batch.map(batches):
        report = future.result(raise_on_failure=False)
        if isinstance(report, BaseException):
            errors.append(f"{type(report).__name__}: {report}")
            measured.failed_batches += 1
            continue
        measured.add(report.metrics)
        parsed += report.pages - report.failed - report.reused
        reused += report.reused
        failed += report.failed
        quarantined.extend(report.quarantined)
        flagged.extend(report.flagged)
        lost |= report.lost
        log.info("progress: %d/%d pages", parsed + reused + failed, total_pages)
        progress.advance(parsed + reused + failed)
    tell(Step(Stage.FINISHING))
    counts = PageCounts(parsed, reused, failed, len(quarantined), len(flagged), sum(page.blocks for page in flagged))
    summary = finish_task(run_id, registered, counts, errors, time.perf_counter() - started, claim, frozenset(lost))
    files = {item.document_id: item.file.uri for item in registered}
    summary = dataclasses.replace(summary, quarantined_pages=_with_files(quarantined, files),
                                  flagged_pages=_with_files(flagged, files))
    if quarantined:
        log.warning("%d pages quarantined by validation: see the run's quarantined-pages artifact, or "
                    "SELECT * FROM page_issues", len(quarantined))
    if flagged:
        log.warning("%d pages stored with output that validation repaired (%d blocks flagged: repaired, kept as "
                    "text or dropped; or a reading order renumbered), with their good blocks: see the run's "
                    "flagged-blocks artifact, or SELECT * FROM page_issues WHERE action <> 'page quarantined'",
                    len(flagged), counts.blocks_flagged)
    publish_outcome(summary)
    publish_run_metrics(summary, measured, completed=not errors)
    if errors:
        raise RunFailed(summary, errors)
    return summary


def _with_files(pages: list[PageT], files: dict[int, str]) -> tuple[PageT, ...]:
    """The pages in order, each with its document's file."""
    return tuple(dataclasses.replace(page, file=files.get(page.document_id, "")) for page in sorted(pages))


@contextmanager
def failed_if_raising(run_id: int, started: float) -> Iterator[None]:
    """A run whose flow raises before it is finished (a source that cannot be listed, the database lost, an
    interrupt) is closed as failed instead of being left `running`."""
    try:
        yield
    except RunFailed:
        raise  # finished, with what it stored
    except BaseException:
        try:
            abandon_run(run_id, time.perf_counter() - started)
        except Exception as error:  # the original error matters more; say why the row stays open
            get_run_logger().warning("run %d could not be closed as failed: %s", run_id, error)
        raise


@flow(name="digitize", task_runner=SettingsTaskRunner())
def digitize(source: str, batch_size: int | None = None, force: bool = False) -> RunSummary:
    """Turn every PDF under a folder or S3 prefix into pages, blocks, tables and formulas in PostgreSQL.

    Args:
        source: a folder, an s3://bucket/prefix (both searched recursively) or one PDF
        batch_size: pages per batch task, each stored in one transaction (empty: FOLIO_BATCH_SIZE)
        force: parse documents again even if they are already done, without reusing stored pages
    """
    started = time.perf_counter()
    claim = run_claim()
    run_id = open_run_task(source, claim.claimant)
    with heartbeat(run_id), failed_if_raising(run_id, started):
        tell(Step(Stage.LISTING, detail=source))
        files = discover(source)
        get_run_logger().info("%d PDF files listed in %s", len(files), source)
        tell(Step(Stage.REGISTERING, 0, len(files)))
        registered = register(files, claim, force)
        return parse_and_finish(run_id, registered, batch_size or get_settings().batch_size, claim, started,
                                reuse=not force)
