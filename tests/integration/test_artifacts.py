"""What a run leaves in the Prefect UI: its progress, a summary table and the failed documents with their errors."""

import json
from pathlib import Path

from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
from sqlalchemy import Engine

from flows.digitize import digitize
from tests import pdfs


def test_a_run_publishes_progress_summary_and_failures(database: Engine, tmp_path: Path):
    report = pdfs.two_column_pdf(tmp_path)
    pdfs.encrypted_pdf(tmp_path, report)
    pdfs.empty_pdf(tmp_path)
    state = digitize(source=str(tmp_path), return_state=True)
    assert state.is_completed()
    with get_client(sync_client=True) as client:
        artifacts = {artifact.key: artifact for artifact in client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(
                any_=[state.state_details.flow_run_id])))}
    assert artifacts["run-progress"].data == 100.0
    [summary] = json.loads(artifacts["run-summary"].data)
    assert (summary["files listed"], summary["done"], summary["failed"], summary["pages parsed"]) == (3, 1, 2, 2)
    failed = {Path(row["file"]).name: row["error"] for row in json.loads(artifacts["failed-documents"].data)}
    assert failed.keys() == {"empty.pdf", "protected.pdf"}
    assert "encrypted" in failed["protected.pdf"] and failed["empty.pdf"]
    assert "quarantined-pages" not in artifacts
