"""A run's summary for people: short lines, the failed and quarantined files by name with why, then a count; the
artifact's table from the same figures."""

from base.run_summary import (
    FAILED_SQL,
    QUARANTINED_SQL,
    FailedDocument,
    QuarantinedPage,
    RunSummary,
    summary_lines,
    summary_table,
)
from db.models import Document, Page, Run
from db.statuses import FileOutcome, RunStatus
from tests.schema import declared_checks


def test_failed_and_quarantined_files_are_named_then_counted():
    failures = tuple(FailedDocument(i, f"/archive/box/{i:02}.pdf", "encrypted: password required") for i in range(12))
    quarantined = (QuarantinedPage(40, 3, "page has ink but no block", "/archive/box/plan.pdf"),
                   QuarantinedPage(40, 1, "text layer not kept", "/archive/box/plan.pdf"),
                   QuarantinedPage(41, 2, "no block", "/elsewhere/x.pdf"))
    summary = RunSummary(run_id=7, files_listed=20, documents_unchanged=0, documents_done=6, documents_duplicate=0,
                         documents_failed=12, documents_quarantined=2, documents_reused=0, pages_parsed=30,
                         pages_reused=0, pages_failed=0, seconds=12.0, pages_quarantined=3, failures=failures,
                         quarantined_pages=quarantined)
    lines = summary_lines(summary, "/archive/", shown=10)
    assert lines[:4] == ["folio run 7: /archive/",
                         "  files  20 listed: 6 done, 12 failed, 2 quarantined",
                         "  pages  30 parsed, 0 reused, 3 quarantined",
                         "  time   12.0 s, 2.50 pages/s"]
    assert lines[4] == "failed (12):" and lines[5] == "  box/00.pdf: encrypted: password required"
    assert lines[15] == f"  and 2 more; all of them: {FAILED_SQL}"
    assert lines[16:] == ["quarantined (2 files, 3 pages):",
                          "  box/plan.pdf: page 1 (text layer not kept); page 3 (page has ink but no block)",
                          "  /elsewhere/x.pdf: page 2 (no block)"]
    assert all(len(line) <= 80 for line in lines[:5]) and QUARANTINED_SQL.startswith("folio sql")


def test_every_outcome_a_file_had_is_named_and_no_other():
    summary = RunSummary(run_id=8, files_listed=2016, documents_unchanged=2000, documents_done=3, documents_duplicate=4,
                         documents_failed=5, documents_quarantined=2, documents_reused=2, pages_parsed=9,
                         pages_reused=2, pages_failed=0, seconds=3.0)
    lines = summary_lines(summary, "/archive")
    assert lines[1:3] == ["  files  2016 listed: 3 done, 2 reused, 2000 unchanged, 4 duplicate, 5 failed,",
                          "         2 quarantined"]
    assert lines[3] == "  pages  9 parsed, 2 reused"
    nothing_new = RunSummary(run_id=9, files_listed=31, documents_unchanged=31, documents_done=0,
                             documents_duplicate=0, documents_failed=0, documents_quarantined=0, documents_reused=0,
                             pages_parsed=0, pages_reused=0, pages_failed=0, seconds=0.4)
    assert summary_lines(nothing_new, "/archive")[1:3] == ["  files  31 listed: 31 unchanged",
                                                          "  pages  0 parsed, 0 reused"]
    empty = RunSummary(9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.1)
    assert summary_lines(empty, "/archive")[1] == "  files  0 listed"


def test_the_cli_lines_and_the_artifact_table_name_every_outcome_with_its_count():
    counts = {f"documents_{outcome}": number for number, outcome in enumerate(FileOutcome, start=1)}
    summary = RunSummary(run_id=3, files_listed=sum(counts.values()), **counts, pages_parsed=7, pages_reused=8,
                         pages_failed=9, seconds=2.0, pages_quarantined=10, pages_flagged=11, blocks_flagged=12)
    text, table = "\n".join(summary_lines(summary, "/archive")), summary_table(summary)
    assert [outcome for outcome, _ in summary.outcomes()] == list(FileOutcome)
    for outcome, count in summary.outcomes():
        assert f"{count} {outcome}" in text and table[outcome] == count
    for what, count in summary.pages():
        assert f"{count} {what}" in text and table[f"pages {what}"] == count
    assert (table["files listed"], table["blocks flagged"], table["pages/s"]) == (21, 12, 3.5)


def test_the_counts_a_run_keeps_are_columns_of_runs_and_statuses_are_their_stored_strings():
    summary = RunSummary(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.1)
    columns = set(Run.__table__.columns.keys())
    assert set(summary.stored_counts()) <= columns
    assert {name for name in columns if name.startswith("documents_")} == {f"documents_{o}" for o in FileOutcome}
    constraints = {str(check.sqltext) for table in (Document.__table__, Page.__table__)
                   for check in declared_checks(table)}
    assert "status IN ('pending', 'processing', 'done', 'failed', 'quarantined')" in constraints
    assert "status IN ('done', 'failed', 'quarantined')" in constraints
    assert [str(status) for status in RunStatus] == ["running", "completed", "failed", "crashed"]
