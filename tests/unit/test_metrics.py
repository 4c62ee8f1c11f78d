import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from sqlalchemy import create_engine

from base.run_metrics import BatchMetrics, RunMetrics
from base.run_summary import FailedDocument, RunSummary
from runs.metrics import DATABASE_GAUGES, RUN_METRICS, DatabaseCollector, LastRunCollector, RunCollector, write_run
from sources.failures import reason_class

MONITORING = Path(__file__).resolve().parents[2] / "deployments" / "monitoring"
NAME = re.compile(r"\bfolio_[a-z_]+")


def exposition(collector) -> str:
    registry = CollectorRegistry()
    registry.register(collector)
    return generate_latest(registry).decode()


@pytest.mark.parametrize(("reason", "kind"), [
    ("corrupt: cycle in page tree", "corrupt"), ("encrypted: password required", "encrypted"),
    ("empty: the file has zero bytes", "empty"), ("not a PDF: starts with 'PK'", "not_a_pdf"),
    ("over budget: out of time (FOLIO_PAGE_TIMEOUT_SECONDS)", "timeout"),
    ("over budget: rendering took more than 30 s (FOLIO_PAGE_TIMEOUT_SECONDS)", "timeout"),
    ("over budget: 200,000 text objects on the page, FOLIO_PAGE_MAX_TEXT_OBJECTS is 100,000", "over_budget"),
    ("over budget: out of memory", "memory"), ("vanished during the run", "vanished"),
    ("changed during the run: written to while its pages were parsed", "changed"),
    ("too large: 9 bytes, the limit is 8", "too_large"), ("ocr: no fallback OCR installed", "ocr"),
    ("error: ValueError: something unforeseen", "error"), ("", "error"),
])
def test_reasons_fall_into_few_classes(reason: str, kind: str):
    assert reason_class(reason) == kind


def a_run() -> RunCollector:
    """A run of two batches (one tried again, one failed) with failed pages and files."""
    measured = RunMetrics()
    measured.add(BatchMetrics(seconds=3.0, retries=1, stage_seconds=(("OcrStage", 0.2), ("TableStage", 0.004)),
                              failed_pages=(("timeout", 1),), ocr_pages=1, fallback_pages=1))
    measured.add(BatchMetrics(seconds=70.0, stage_seconds=(("OcrStage", 4.0),), failed_pages=(("timeout", 2),)))
    measured.failed_batches = 1
    summary = RunSummary(run_id=1, files_listed=4, documents_unchanged=0, documents_done=2, documents_duplicate=0,
                         documents_failed=2, documents_quarantined=0, documents_reused=0, pages_parsed=3,
                         pages_reused=1, pages_failed=3, seconds=80.0, pages_quarantined=1,
                         failures=(FailedDocument(1, "a.pdf", "corrupt: no objects found"),
                                   FailedDocument(2, "b.pdf", "corrupt: cycle in page tree")))
    return RunCollector(summary, measured, completed=False, finished_at=1.8e9)


def test_a_run_exposes_counts_by_label_and_cumulative_histograms():
    text = exposition(a_run())
    lines = set(text.splitlines())
    assert {'folio_run_pages_total{outcome="parsed"} 3.0', 'folio_run_pages_total{outcome="reused"} 1.0',
            'folio_run_pages_total{outcome="failed"} 3.0', "folio_run_quarantined_pages_total 1.0",
            'folio_run_files_total{outcome="done"} 2.0', 'folio_run_failed_files_total{reason="corrupt"} 2.0',
            'folio_run_failed_pages_total{reason="timeout"} 3.0', "folio_run_failed_batches_total 1.0",
            "folio_run_retries_total 1.0", "folio_run_ocr_pages_total 1.0", "folio_run_ocr_fallback_pages_total 1.0",
            'folio_run_page_stage_seconds_bucket{le="0.25",stage="OcrStage"} 1.0',
            'folio_run_page_stage_seconds_bucket{le="5.0",stage="OcrStage"} 2.0',
            'folio_run_page_stage_seconds_bucket{le="+Inf",stage="OcrStage"} 2.0',
            'folio_run_page_stage_seconds_count{stage="TableStage"} 1.0',
            'folio_run_batch_seconds_bucket{le="60.0"} 1.0', 'folio_run_batch_seconds_bucket{le="120.0"} 2.0',
            "folio_run_batch_seconds_sum 73.0", "folio_run_completed 0.0", "folio_run_duration_seconds 80.0",
            "folio_run_finished_timestamp_seconds 1.8e+09"} <= lines
    assert {(name, kind) for name, kind, _ in RUN_METRICS} == {
        tuple(line.split()[2:4]) for line in lines if line.startswith("# TYPE")}


def test_the_last_run_is_served_from_the_file_it_wrote(tmp_path: Path):
    last_run = tmp_path / "metrics" / "last-run.prom"
    assert exposition(LastRunCollector(last_run)) == ""  # before the first run
    write_run(last_run, a_run())
    assert exposition(LastRunCollector(last_run)) == exposition(a_run())


def test_a_database_that_does_not_answer_is_a_metric_not_an_error():
    unreachable = create_engine("postgresql+psycopg://folio@127.0.0.1:1/folio", connect_args={"connect_timeout": 2})
    assert "folio_database_up 0.0" in exposition(DatabaseCollector(lambda: unreachable)).splitlines()


def test_the_alert_rules_pass_promtool_and_name_folio_metrics():
    checked = subprocess.run([shutil.which("promtool") or "promtool", "check", "rules", MONITORING / "alerts.yml"],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 6 rules found" in checked.stdout
    assert set(NAME.findall((MONITORING / "alerts.yml").read_text())) <= known_names()


def test_the_dashboard_is_json_whose_panels_query_folio_metrics():
    dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    assert len(dashboard["panels"]) >= 6 and all(NAME.search(expression) for expression in expressions)
    used = {name for expression in expressions for name in NAME.findall(expression)}
    assert used <= known_names()
    assert used >= {"folio_pages", "folio_documents", "folio_run_failed_pages_total", "folio_run_duration_seconds",
                    "folio_quarantined_pages"}


def known_names() -> set[str]:
    """Every series name folio exposes, histograms with their _bucket, _count and _sum."""
    names = {gauge.name for gauge in DATABASE_GAUGES} | {"folio_database_up"}
    for name, kind, _ in RUN_METRICS:
        names |= {name + suffix for suffix in ("_bucket", "_count", "_sum")} if kind == "histogram" else {name}
    return names
