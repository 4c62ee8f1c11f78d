"""What a run shows in the Prefect UI: its progress while it works, then its summary, failures and quarantine."""

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact

from flows.progress import Step, tell
from tasks.runs import RunSummary


@dataclass
class RunProgress:
    """A progress artifact of the flow run, moved on as batches finish, and told to watchers in this process."""

    total_pages: int
    artifact_id: UUID | None = None

    def start(self) -> None:
        tell(Step("parsing", 0, self.total_pages))
        self.artifact_id = create_progress_artifact(
            0.0 if self.total_pages else 100.0, key="run-progress",
            description=f"Pages stored of {self.total_pages} to parse")

    def advance(self, pages_done: int) -> None:
        tell(Step("parsing", pages_done, self.total_pages))
        if self.artifact_id is not None:
            update_progress_artifact(self.artifact_id, 100.0 * pages_done / max(self.total_pages, 1))


def publish_outcome(summary: RunSummary, quarantined: list[tuple[int, int, str]], files: dict[int, str],
                    flagged: Sequence[tuple[int, int, int, str]] = ()) -> None:
    """Tables for the run's page in the UI: the summary, failed documents, quarantined pages, flagged blocks."""
    create_table_artifact([{
        "files listed": summary.files_listed, "done": summary.documents_done, "reused": summary.documents_reused,
        "unchanged": summary.documents_unchanged, "duplicate": summary.documents_duplicate,
        "failed": summary.documents_failed, "quarantined": summary.documents_quarantined,
        "pages parsed": summary.pages_parsed, "pages reused": summary.pages_reused,
        "pages failed": summary.pages_failed, "pages quarantined": summary.pages_quarantined,
        "pages with flagged blocks": summary.pages_flagged, "blocks flagged": summary.blocks_flagged,
        "seconds": summary.seconds, "pages/s": round(summary.pages_per_second, 2),
    }], key="run-summary", description=f"folio run {summary.run_id}: what became of every listed file")
    if summary.failures:
        create_table_artifact(
            [{"document": document_id, "file": uri, "error": error} for document_id, uri, error in summary.failures],
            key="failed-documents",
            description=f"Documents of run {summary.run_id} that failed, with why. `folio reprocess --status failed` "
                        "parses them again once the cause is fixed.")
    if quarantined:
        create_table_artifact(
            [{"document": document_id, "file": files.get(document_id, ""), "page": page_no, "failed checks": checks}
             for document_id, page_no, checks in sorted(quarantined)],
            key="quarantined-pages",
            description=f"Pages of run {summary.run_id} on which nothing could be trusted (a page-level check "
                        "failed, or every block did): stored without content, their failed checks in the "
                        "page_issues table. `folio reprocess --status quarantined` parses them again.")
    if flagged:
        create_table_artifact(
            [{"document": document_id, "file": files.get(document_id, ""), "page": page_no,
              "blocks flagged": blocks, "failed checks": checks}
             for document_id, page_no, blocks, checks in sorted(flagged)],
            key="flagged-blocks",
            description=f"Pages of run {summary.run_id} stored with their good blocks after validation repaired "
                        f"part of their output: {summary.blocks_flagged} blocks flagged (each repaired, kept as text "
                        "or dropped) and reading orders renumbered, every failed check with what was done in "
                        "page_issues (block_id: the block as stored). These pages are done, not quarantined.")
