"""Opening and closing a run: its row in PostgreSQL, final document statuses, a summary for people."""

from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Engine

from base.database import database
from base.migrate import upgrade
from base.run_summary import FailedDocument, RunSummary
from base.settings import get_settings
from db.crashes import beat
from db.session import session_scope
from db.statuses import FINISHED, DocumentStatus, FileOutcome, Registration, RunStatus
from db.store import (
    Claim,
    close_unfinished_run,
    document_errors,
    finish_documents,
    finish_run,
    fully_reused,
    release_claims,
    start_run,
)
from runs.recovery import recover_crashed_runs
from runs.register import Registered


@dataclass(frozen=True)
class PageCounts:
    """Pages stored by a run's batches: parsed by the engine, reused from a stored page, failed."""

    parsed: int = 0
    reused: int = 0
    failed: int = 0
    quarantined: int = 0  # among parsed and reused: stored without their content, failing validation
    flagged: int = 0  # among parsed: stored with their blocks, some of which failed validation and were repaired
    blocks_flagged: int = 0  # blocks of those pages that failed a block-level check


def open_run(database: Engine, source: str, claimant: str) -> int:
    """The schema brought to head, runs whose process died marked crashed (their claims released), and a new row
    in `runs` that names this process; returns its id."""
    upgrade(database)
    recover_crashed_runs(database)
    with session_scope(database) as session:
        run_id = start_run(session, source, claimant)
        beat(session, run_id, get_settings().claim_lease_seconds)
        return run_id


def finish(database: Engine, run_id: int, registered: list[Registered], pages: PageCounts,
           batch_errors: list[str], seconds: float, claim: Claim | None = None,
           spool: Path | None = None, lost: frozenset[int] = frozenset()) -> RunSummary:
    """Final status of each document of the run, the run row updated, and the summary.

    A document whose pages are not all stored (a batch failed after its retries) stays claimed by this
    run until the lease ends, so that a retry of this flow run completes it; after that any run does.
    The summary counts it as failed, the run as failed. A document another run took over (`lost` by a batch)
    is that run's: left as it is, and counted as a duplicate, as at registration.
    """
    registered = [replace(item, outcome=Registration.DUPLICATE) if item.document_id in lost else item
                  for item in registered]
    parsed_ids = sorted({item.document_id for item in registered if item.outcome == Registration.NEW})
    with session_scope(database) as session:
        statuses = finish_documents(session, parsed_ids, "; ".join(sorted(set(batch_errors))))
        finished = [item for item in registered
                    if statuses.get(item.document_id, DocumentStatus.DONE) in FINISHED]  # not left to a retry
        if claim is not None:
            release_claims(session, [item.document_id for item in finished
                                     if item.outcome != Registration.UNCHANGED], claim)
        reused = fully_reused(session, [i for i, status in statuses.items() if status == DocumentStatus.DONE])
        outcomes = [_outcome(item, statuses, reused) for item in registered]
        failed = [item for item, outcome in zip(registered, outcomes, strict=True) if outcome == FileOutcome.FAILED]
        errors = document_errors(session, [item.document_id for item in failed])
        summary = RunSummary(
            run_id=run_id,
            files_listed=len(registered),
            **{f"documents_{outcome}": outcomes.count(outcome) for outcome in FileOutcome},
            pages_parsed=pages.parsed,
            pages_reused=pages.reused,
            pages_failed=pages.failed,
            seconds=round(seconds, 3),
            pages_quarantined=pages.quarantined,
            pages_flagged=pages.flagged,
            blocks_flagged=pages.blocks_flagged,
            failures=tuple(FailedDocument(item.document_id, item.file.uri, errors.get(item.document_id, ""))
                           for item in failed),
        )
        finish_run(session, run_id, RunStatus.FAILED if batch_errors else RunStatus.COMPLETED,
                   summary.stored_counts(), seconds)
    if spool is not None:  # S3 objects streamed for this run, but those a retry still needs
        for item in finished:
            if item.file.path is not None and item.file.path.parent == spool:
                item.file.path.unlink(missing_ok=True)
        if spool.is_dir() and not any(spool.iterdir()):
            spool.rmdir()
    return summary


def abandon_run(run_id: int, seconds: float, db: Engine | None = None) -> None:
    """Close a run whose flow ended before its summary as failed (a run already closed is left as it is)."""
    with session_scope(db or database()) as session:
        close_unfinished_run(session, run_id, seconds)


def _outcome(item: Registered, statuses: dict[int, str], reused: set[int]) -> FileOutcome:
    """What became of a listed file: a new one's document is done, reused, quarantined or (not finished) failed."""
    if item.outcome != Registration.NEW:
        return FileOutcome(item.outcome)
    if item.document_id in reused:
        return FileOutcome.REUSED
    status = statuses[item.document_id]
    return FileOutcome(status) if status in FINISHED else FileOutcome.FAILED
