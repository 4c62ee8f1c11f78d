"""Opening and closing a run: its row in PostgreSQL, final document statuses, a summary for people."""

from dataclasses import asdict, dataclass
from pathlib import Path

from prefect import task
from sqlalchemy import Engine

from db.crashes import beat
from db.migrate import upgrade
from db.session import session_scope
from db.store import (
    FINISHED,
    Claim,
    close_unfinished_run,
    document_errors,
    finish_documents,
    finish_run,
    fully_reused,
    release_claims,
    start_run,
)
from folio.database import database
from folio.settings import get_settings
from tasks.policy import task_options
from tasks.recovery import recover_crashed_runs
from tasks.register import Registered


@dataclass(frozen=True)
class PageCounts:
    """Pages stored by a run's batches: parsed by the engine, reused from a stored page, failed."""

    parsed: int = 0
    reused: int = 0
    failed: int = 0
    quarantined: int = 0  # among parsed and reused: stored without their content, failing validation
    flagged: int = 0  # among parsed: stored with their blocks, some of which failed validation and were repaired
    blocks_flagged: int = 0  # blocks of those pages that failed a block-level check


@dataclass(frozen=True)
class RunSummary:
    """What became of every listed file; unchanged + done + duplicate + reused + failed + quarantined ==
    files_listed.

    An unchanged file was seen before at the same path or URI, as it is now (size and modification time, or
    ETag), and its document is finished: it was not read again (or, touched since, was read and held the same
    bytes). A duplicate holds the bytes of a document seen at another path, or one another run is working on.
    A reused document is new bytes whose every page was found already parsed (a re-saved copy).
    """

    run_id: int
    files_listed: int
    documents_unchanged: int
    documents_done: int
    documents_duplicate: int
    documents_failed: int
    documents_quarantined: int
    documents_reused: int
    pages_parsed: int
    pages_reused: int
    pages_failed: int
    seconds: float
    pages_quarantined: int = 0
    pages_flagged: int = 0  # stored with their blocks, some repaired, demoted or dropped by validation
    blocks_flagged: int = 0
    failures: tuple[tuple[int, str, str], ...] = ()  # (document id, file, error) of the failed documents
    quarantined_pages: tuple[tuple[int, str, int, str], ...] = ()  # (document id, file, page, failed checks)

    @property
    def pages_per_second(self) -> float:
        return self.pages_parsed / self.seconds if self.seconds > 0 else 0.0


def open_run(engine: Engine, source: str, claimant: str) -> int:
    """The schema brought to head, runs whose process died marked crashed (their claims released), and a new row
    in `runs` that names this process; returns its id."""
    upgrade(engine)
    recover_crashed_runs(engine)
    with session_scope(engine) as session:
        run_id = start_run(session, source, claimant)
        beat(session, run_id)
        return run_id


def finish(engine: Engine, run_id: int, registered: list[Registered], pages: PageCounts,
           batch_errors: list[str], seconds: float, claim: Claim | None = None,
           spool: Path | None = None) -> RunSummary:
    """Final status of each document of the run, the run row updated, and the summary.

    A document whose pages are not all stored (a batch failed after its retries) stays claimed by this
    run until the lease ends, so that a retry of this flow run completes it; after that any run does.
    The summary counts it as failed, the run as failed.
    """
    parsed_ids = sorted({item.document_id for item in registered if item.outcome == "new"})
    with session_scope(engine) as session:
        statuses = finish_documents(session, parsed_ids, "; ".join(sorted(set(batch_errors))))
        if claim is not None:
            release_claims(session, [item.document_id for item in registered if item.outcome != "unchanged"
                                     and statuses.get(item.document_id, "done") in FINISHED], claim)
        reused = fully_reused(session, [i for i, status in statuses.items() if status == "done"])
        outcomes = [
            ("reused" if item.document_id in reused else _finished_or_failed(statuses[item.document_id]))
            if item.outcome == "new" else item.outcome
            for item in registered
        ]
        failed = [item for item, outcome in zip(registered, outcomes, strict=True) if outcome == "failed"]
        errors = document_errors(session, [item.document_id for item in failed])
        summary = RunSummary(
            run_id=run_id,
            files_listed=len(registered),
            documents_unchanged=outcomes.count("unchanged"),
            documents_done=outcomes.count("done"),
            documents_duplicate=outcomes.count("duplicate"),
            documents_failed=outcomes.count("failed"),
            documents_quarantined=outcomes.count("quarantined"),
            documents_reused=outcomes.count("reused"),
            pages_parsed=pages.parsed,
            pages_reused=pages.reused,
            pages_failed=pages.failed,
            seconds=round(seconds, 3),
            pages_quarantined=pages.quarantined,
            pages_flagged=pages.flagged,
            blocks_flagged=pages.blocks_flagged,
            failures=tuple((item.document_id, item.file.uri, errors.get(item.document_id, "")) for item in failed),
        )
        counts = {k: v for k, v in asdict(summary).items()
                  if k not in ("run_id", "seconds", "pages_failed", "pages_quarantined", "pages_flagged",
                               "blocks_flagged", "failures", "quarantined_pages")}
        finish_run(session, run_id, "failed" if batch_errors else "completed", counts, seconds)
    if spool is not None:  # S3 objects streamed for this run, but those a retry still needs
        for item in registered:
            path = item.file.path
            if path is not None and path.parent == spool and statuses.get(item.document_id, "done") in FINISHED:
                path.unlink(missing_ok=True)
    return summary


def abandon_run(run_id: int, seconds: float, engine: Engine | None = None) -> None:
    """Close a run whose flow ended before its summary as failed (a run already closed is left as it is)."""
    with session_scope(engine or database()) as session:
        close_unfinished_run(session, run_id, seconds)


def _finished_or_failed(status: str) -> str:
    return status if status in FINISHED else "failed"


@task(name="open-run", **task_options())
def open_run_task(source: str, claimant: str) -> int:
    return open_run(database(), source, claimant)


@task(name="finish-run", **task_options(resumable=False))
def finish_task(run_id: int, registered: list[Registered], pages: PageCounts, batch_errors: list[str],
                seconds: float, claim: Claim | None = None) -> RunSummary:
    return finish(database(), run_id, registered, pages, batch_errors, seconds, claim, get_settings().spool)
