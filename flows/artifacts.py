"""What a run shows in the Prefect UI: its progress while it works, then its summary, failures and quarantine."""

from dataclasses import dataclass
from uuid import UUID

from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact

from base.run_summary import RunSummary, summary_table
from flows.progress import Stage, Step, tell


@dataclass
class RunProgress:
    """A progress artifact of the flow run, moved on as batches finish, and told to watchers in this process."""

    total_pages: int
    artifact_id: UUID | None = None

    def start(self) -> None:
        tell(Step(Stage.PARSING, 0, self.total_pages))
        self.artifact_id = create_progress_artifact(
            0.0 if self.total_pages else 100.0, key="run-progress",
            description=f"Pages stored of {self.total_pages} to parse")

    def advance(self, pages_done: int) -> None:
        tell(Step(Stage.PARSING, pages_done, self.total_pages))
        if self.artifact_id is not None:
            update_progress_artifact(self.artifact_id, 100.0 * pages_done / max(self.total_pages, 1))


def publish_outcome(summary: RunSummary) -> None:
    """Tables for the run's page in the UI: the summary, failed documents, quarantined pages, flagged blocks."""
    create_table_artifact([summary_table(summary)], key="run-summary",
                          description=f"folio run {summary.run_id}: what became of every listed file")
    if summary.failures:
        create_table_artifact(
            [{"document": failed.document_id, "file": failed.file, "error": failed.error}
             for failed in summary.failures],
            key="failed-documents",
            description=f"Documents of run {summary.run_id} that failed, with why. `folio reprocess --status failed` "
                        "parses them again once the cause is fixed.")
    if summary.quarantined_pages:
        create_table_artifact(
            [{"document": page.document_id, "file": page.file, "page": page.page_no, "failed checks": page.checks}
             for page in summary.quarantined_pages],
            key="quarantined-pages",
            description=f"Pages of run {summary.run_id} on which nothing could be trusted (a page-level check "
                        "failed, or every block did): stored without content, their failed checks in the "
                        "page_issues table. `folio reprocess --status quarantined` parses them again.")
    if summary.flagged_pages:
        create_table_artifact(
            [{"document": page.document_id, "file": page.file, "page": page.page_no, "blocks flagged": page.blocks,
              "failed checks": page.checks}
             for page in summary.flagged_pages],
            key="flagged-blocks",
            description=f"Pages of run {summary.run_id} stored with their good blocks after validation repaired "
                        f"part of their output: {summary.blocks_flagged} blocks flagged (each repaired, kept as text "
                        "or dropped) and reading orders renumbered, every failed check with what was done in "
                        "page_issues (block_id: the block as stored). These pages are done, not quarantined.")
