"""A run's summary for people: short lines, the failed and quarantined files by name with why, then a count."""

from folio.cli.summary import FAILED_SQL, QUARANTINED_SQL, summary_lines
from tasks.runs import RunSummary


def test_failed_and_quarantined_files_are_named_then_counted():
    failures = tuple((i, f"/archive/box/{i:02}.pdf", "encrypted: password required") for i in range(12))
    quarantined = ((40, "/archive/box/plan.pdf", 3, "page has ink but no block"),
                   (40, "/archive/box/plan.pdf", 1, "text layer not kept"), (41, "/elsewhere/x.pdf", 2, "no block"))
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
