"""Closing a run: final document statuses, the run's counts in PostgreSQL, a summary for people."""

from dataclasses import asdict, dataclass

from prefect import task
from sqlalchemy import Engine

from db.session import get_engine, session_scope
from db.store import fail_document, finish_documents, finish_run
from tasks.register import Registered


@dataclass(frozen=True)
class RunSummary:
    """What became of every listed file; done + duplicate + failed + quarantined == files_listed."""

    run_id: int
    files_listed: int
    documents_done: int
    documents_duplicate: int
    documents_failed: int
    documents_quarantined: int
    pages_parsed: int
    pages_failed: int
    seconds: float

    @property
    def pages_per_second(self) -> float:
        return self.pages_parsed / self.seconds if self.seconds > 0 else 0.0


def finish(engine: Engine, run_id: int, registered: list[Registered], pages_parsed: int, pages_failed: int,
           batch_errors: list[str], seconds: float) -> RunSummary:
    """Final status of each document of the run, the run row updated, and the summary."""
    parsed_ids = sorted({item.document_id for item in registered if item.outcome == "new"})
    with session_scope(engine) as session:
        statuses = finish_documents(session, parsed_ids)
        for document_id, status in statuses.items():
            if status not in ("done", "failed", "quarantined"):
                reason = "; ".join(sorted(set(batch_errors))) or "pages missing"
                fail_document(session, document_id, f"incomplete: some pages were not parsed ({reason})")
                statuses[document_id] = "failed"
        outcomes = [statuses.get(item.document_id, "failed") if item.outcome == "new" else item.outcome
                    for item in registered]
        summary = RunSummary(
            run_id=run_id,
            files_listed=len(registered),
            documents_done=outcomes.count("done"),
            documents_duplicate=outcomes.count("duplicate"),
            documents_failed=outcomes.count("failed"),
            documents_quarantined=outcomes.count("quarantined"),
            pages_parsed=pages_parsed,
            pages_failed=pages_failed,
            seconds=round(seconds, 3),
        )
        counts = {k: v for k, v in asdict(summary).items() if k not in ("run_id", "seconds", "pages_failed")}
        finish_run(session, run_id, "completed", counts, seconds)
    return summary


@task(name="finish-run")
def finish_task(run_id: int, registered: list[Registered], pages_parsed: int, pages_failed: int,
                batch_errors: list[str], seconds: float) -> RunSummary:
    return finish(get_engine(), run_id, registered, pages_parsed, pages_failed, batch_errors, seconds)
