"""Monitoring against the real thing: Debian's Prometheus scrapes `folio metrics` and a Pushgateway that a real
`folio run` pushed to; its HTTP API must give what the database holds, and load folio's alert rules and the
dashboard's queries."""

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import yaml

from db.server import libpq_url
from db.statuses import FileOutcome
from tests import pdfs
from tests.integration.folio_process import FolioProcess, FolioRun, free_port

MONITORING = Path(__file__).resolve().parents[2] / "deployments" / "monitoring"


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def wait_until(check: Callable[[], object], what: str, timeout: float = 120) -> object:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if found := check():
                return found
        except OSError:
            pass  # not listening yet
        assert time.monotonic() < deadline, f"no {what} after {timeout} s"
        time.sleep(0.5)


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen]]:
    """Starts Debian's Prometheus tools as children of the test; all are stopped after it."""
    started: list[subprocess.Popen] = []

    def start(*command: str) -> subprocess.Popen:
        log = (tmp_path / f"{Path(command[0]).name}.log").open("w")
        started.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT))
        return started[-1]

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=30)


def prometheus_query(api: str, expression: str) -> dict:
    answer = get_json(f"{api}/api/v1/query?query={urllib.parse.quote(expression)}")
    assert answer["status"] == "success", (expression, answer)
    return answer["data"]


def values(api: str, expression: str) -> dict[str, float]:
    """The instant vector's values by their label sets (as text)."""
    return {json.dumps(r["metric"], sort_keys=True): float(r["value"][1])
            for r in prometheus_query(api, expression)["result"]}


def test_prometheus_reads_what_the_database_holds(new_database_url: Callable[[], str], tmp_path: Path,
                                                  daemons: Callable[..., subprocess.Popen]):
    url = new_database_url()
    home = tmp_path / "home"
    archive = tmp_path / "archive"
    archive.mkdir()
    report = pdfs.two_column_pdf(archive)
    pdfs.scan_pdf(archive)
    pdfs.truncated_pdf(archive, report)
    pdfs.encrypted_pdf(archive, report)

    gateway_port, metrics_port, prometheus_port = free_port(), free_port(), free_port()
    gateway = f"http://127.0.0.1:{gateway_port}"
    daemons(shutil.which("prometheus-pushgateway"), f"--web.listen-address=127.0.0.1:{gateway_port}",
            "--persistence.file=")  # Debian's build keeps pushes in /var/lib/prometheus by default
    wait_until(lambda: urllib.request.urlopen(f"{gateway}/-/ready", timeout=2).status == 200, "Pushgateway")

    run = FolioRun(archive, url, home, FOLIO_PUSHGATEWAY_URL=gateway)
    assert run.finish() == 0, "".join(run.lines)[-3000:]

    metrics = FolioProcess(["metrics", "--port", str(metrics_port)], url, home)
    try:
        metrics.wait_for("metrics: http://127.0.0.1", timeout=120)
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(MONITORING / "alerts.yml")],
            "scrape_configs": [
                {"job_name": "folio", "static_configs": [{"targets": [f"127.0.0.1:{metrics_port}"]}]},
                {"job_name": "pushgateway", "honor_labels": True,
                 "static_configs": [{"targets": [f"127.0.0.1:{gateway_port}"]}]},
            ],
        }
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        daemons(shutil.which("prometheus"), f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}", f"--web.listen-address=127.0.0.1:{prometheus_port}")
        api = f"http://127.0.0.1:{prometheus_port}"
        wait_until(lambda: values(api, 'folio_pages{status="done"}') and values(api, "folio_run_pages_total"),
                   "folio metrics in Prometheus")

        with psycopg.connect(libpq_url(url)) as connection:
            pages = dict(connection.execute("SELECT status, count(*) FROM pages GROUP BY status").fetchall())
            documents = dict(connection.execute("SELECT status, count(*) FROM documents GROUP BY status").fetchall())
            run_row = connection.execute("SELECT pages_parsed, pages_reused, documents_failed, status FROM runs"
                                         ).fetchone()
        scraped = values(api, 'folio_pages{job="folio"}')
        assert {json.loads(labels)["status"]: value for labels, value in scraped.items()} == {
            status: float(pages.get(status, 0)) for status in ("done", "failed", "quarantined")}
        assert pages["done"] == 3  # the report's two pages and the scan
        assert values(api, 'folio_documents{status="failed"}').popitem()[1] == documents["failed"] == 2
        assert values(api, 'folio_runs{status="completed"}').popitem()[1] == 1 and run_row[3] == "completed"
        assert values(api, "folio_database_up").popitem()[1] == 1

        pushed = {json.loads(labels)["outcome"]: value for labels, value in
                  values(api, 'folio_run_pages_total{job="folio_run"}').items()}
        assert pushed == {"parsed": run_row[0], "reused": run_row[1], "failed": 0}
        failed_files = {json.loads(labels)["reason"]: value for labels, value in
                        values(api, "folio_run_failed_files_total").items()}
        assert failed_files == {"corrupt": 1, "encrypted": 1}
        assert values(api, "folio_run_ocr_pages_total").popitem()[1] >= 1  # the scan
        stages = values(api, "sum by (stage) (folio_run_page_stage_seconds_count)")
        assert {json.loads(labels)["stage"] for labels in stages} >= {"OcrStage", "ReadingOrderStage"}
        assert all(count == run_row[0] for count in stages.values())  # each parsed page passed every stage
        assert values(api, "folio_run_batch_seconds_count").popitem()[1] >= 1
        assert values(api, "folio_run_completed").popitem()[1] == 1

        rules = get_json(f"{api}/api/v1/rules")["data"]["groups"]
        loaded = {rule["name"]: rule["health"] for group in rules for rule in group["rules"]}
        assert len(loaded) == len(yaml.safe_load((MONITORING / "alerts.yml").read_text())["groups"][0]["rules"])
        assert set(loaded.values()) <= {"ok", "unknown"}, loaded
        dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text())
        for panel in dashboard["panels"]:
            for target in panel["targets"]:
                prometheus_query(api, target["expr"])  # each panel's query is valid PromQL Prometheus answers

        assert not values(api, 'folio_run_pages_total{job="folio"}')  # pushed, so not served as well
        again = FolioRun(archive, url, home)  # no Pushgateway: the run's metrics are served by `folio metrics`
        assert again.finish() == 0, "".join(again.lines)[-3000:]
        outcomes = [str(outcome) for outcome in FileOutcome]
        with psycopg.connect(libpq_url(url)) as connection:
            second = connection.execute(f"SELECT {', '.join(f'documents_{o}' for o in outcomes)} FROM runs "
                                        "ORDER BY id DESC LIMIT 1").fetchone()
        expected = dict(zip(outcomes, map(float, second), strict=True))
        assert expected["unchanged"] == 4  # the same four files, the two bad ones too

        def served() -> dict[str, float]:
            return {json.loads(labels)["outcome"]: value
                    for labels, value in values(api, 'folio_run_files_total{job="folio"}').items()}

        wait_until(lambda: served() == expected, "the second run's files served by folio metrics")
    finally:
        metrics.stop()
