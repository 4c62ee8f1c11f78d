"""folio for Prometheus: what the database knows, read at scrape time (`folio metrics`, `folio serve`), and what a
run measured when it ends: pushed to a Pushgateway (FOLIO_PUSHGATEWAY_URL, the convention for batch jobs) or else
written to its home and served beside the database's, as node_exporter's textfile collector does.

Names follow Prometheus's rules: base units (seconds, Unix timestamps), counters end in `_total`, one name per
kind of thing with its kinds as a label. The README's Monitoring section lists them all (DATABASE_GAUGES, RUN_METRICS).
"""

import logging
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, push_to_gateway, start_http_server, write_to_textfile
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector
from sqlalchemy import Engine

from base.migrate import upgrade
from base.run_metrics import RunMetrics
from base.run_summary import RunSummary
from db.metrics import Sample, database_state
from db.statuses import DocumentStatus, FileOutcome, PageStatus, RunStatus
from sources.failures import reason_class

log = logging.getLogger(__name__)

STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
BATCH_BUCKETS = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
PUSH_JOB = "folio_run"


@dataclass(frozen=True)
class Gauge:
    """A gauge read from the database: its part of db.metrics.STATE_QUERY, its label and the label's known values
    (shown as 0 when no row has them, so that an alert on a status sees 0, not nothing); or, without a label, the
    sum of the part's rows (those labelled `only`, when given)."""

    name: str
    help: str
    part: str
    label: str | None = None
    known: tuple[str, ...] = ()
    only: str | None = None


DATABASE_GAUGES = (
    Gauge("folio_documents", "Documents by status", "documents", "status", tuple(DocumentStatus)),
    Gauge("folio_pages", "Pages by status", "pages", "status", tuple(PageStatus)),
    Gauge("folio_runs", "Runs by status", "runs", "status", tuple(RunStatus)),
    Gauge("folio_last_run_finished_timestamp_seconds", "When the last run of each status finished (Unix time)",
          "last_run_finished", "status"),
    Gauge("folio_claimed_documents", "Documents a run holds a claim on", "claimed_documents"),
    Gauge("folio_expired_claims", "Claims past their lease that no run renews: a run that stopped without "
                                  "releasing them", "expired_claims"),
    Gauge("folio_oldest_claim_age_seconds", "Age of the oldest claim, from the start of the run holding it "
                                            "(0: no claims)", "oldest_claim_age"),
    Gauge("folio_pages_by_engine", "Stored pages by the engine identity that parsed them", "pages_by_engine",
          "identity"),
    Gauge("folio_quarantined_pages", "Pages stored without content: validation found nothing to trust", "pages",
          only=PageStatus.QUARANTINED),
    Gauge("folio_page_issues", "Validation findings by what was done about them", "page_issues", "action"),
    Gauge("folio_last_page_stored_timestamp_seconds", "When the newest page was stored (Unix time; 0: none)",
          "last_page_stored"),
)

# name, type, help: what a run pushes (RunCollector); the README documents both lists
RUN_METRICS = (
    ("folio_run_pages_total", "counter", "The run's pages by outcome: parsed, reused (a stored result copied), failed"),
    ("folio_run_quarantined_pages_total", "counter", "The run's pages quarantined by validation"),
    ("folio_run_files_total", "counter", "The run's listed files by outcome (done, reused, unchanged, duplicate, "
                                         "failed, quarantined)"),
    ("folio_run_failed_files_total", "counter", "The run's files that failed, by reason class (corrupt, encrypted, "
                                                "empty, not_a_pdf, too_large, timeout, ...)"),
    ("folio_run_failed_pages_total", "counter", "The run's pages that failed, by reason class"),
    ("folio_run_failed_batches_total", "counter", "The run's batch tasks that failed after their retries"),
    ("folio_run_retries_total", "counter", "Tries of the run's batch tasks after their first"),
    ("folio_run_ocr_pages_total", "counter", "The run's pages read by OCR (no usable text layer)"),
    ("folio_run_ocr_fallback_pages_total", "counter", "Of those, pages read again by the fallback OCR (Tesseract)"),
    ("folio_run_page_stage_seconds", "histogram", "Seconds a parsed page spent in each engine stage"),
    ("folio_run_batch_seconds", "histogram", "Seconds each batch took to read, parse, validate and store"),
    ("folio_run_duration_seconds", "gauge", "How long the run took"),
    ("folio_run_completed", "gauge", "1 when the run completed, 0 when batches failed"),
    ("folio_run_finished_timestamp_seconds", "gauge", "When the run ended (Unix time)"),
)


class DatabaseCollector(Collector):
    """DATABASE_GAUGES, read from the database at each scrape; `folio_database_up` says whether that worked."""

    def __init__(self, database: Callable[[], Engine]):
        self.database = database

    def collect(self) -> Iterator[Metric]:
        try:
            samples = database_state(self.database())
        except Exception as error:  # a scrape must answer: the database being down is what it reports
            log.warning("metrics: the database could not be read: %s", error)
            yield GaugeMetricFamily("folio_database_up", "1 when folio's database answered this scrape", value=0)
            return
        yield GaugeMetricFamily("folio_database_up", "1 when folio's database answered this scrape", value=1)
        for gauge in DATABASE_GAUGES:
            yield _gauge(gauge, [sample for sample in samples if sample.metric == gauge.part])


def _gauge(gauge: Gauge, samples: list[Sample]) -> GaugeMetricFamily:
    if gauge.label is None:
        return GaugeMetricFamily(gauge.name, gauge.help, value=sum(
            sample.value for sample in samples if gauge.only is None or sample.label == gauge.only))
    family = GaugeMetricFamily(gauge.name, gauge.help, labels=[gauge.label])
    values = dict.fromkeys(gauge.known, 0.0) | {sample.label: sample.value for sample in samples}
    for label, value in sorted(values.items()):
        family.add_metric([label], value)
    return family


class RunCollector(Collector):
    """RUN_METRICS of one finished run, from its summary and its batches' measures."""

    def __init__(self, summary: RunSummary, measured: RunMetrics, completed: bool, finished_at: float):
        self.summary, self.measured, self.completed, self.finished_at = summary, measured, completed, finished_at

    def collect(self) -> Iterator[Metric]:
        summary, measured = self.summary, self.measured
        helps = {name: text for name, _, text in RUN_METRICS}

        def counter(name: str, label: str | None = None, values: Iterable[tuple[str, float]] = ()) \
                -> CounterMetricFamily:
            base = name.removesuffix("_total")
            if label is None:
                return CounterMetricFamily(base, helps[name], value=sum(value for _, value in values))
            family = CounterMetricFamily(base, helps[name], labels=[label])
            for key, value in values:
                family.add_metric([key], value)
            return family

        yield counter("folio_run_pages_total", "outcome", [("parsed", summary.pages_parsed),
                                                           ("reused", summary.pages_reused),
                                                           ("failed", summary.pages_failed)])
        yield counter("folio_run_quarantined_pages_total", values=[("", summary.pages_quarantined)])
        yield counter("folio_run_files_total", "outcome", [(str(o), summary.documents(o)) for o in FileOutcome])
        files = Counter(reason_class(failed.error) for failed in summary.failures)
        yield counter("folio_run_failed_files_total", "reason", sorted(files.items()))
        yield counter("folio_run_failed_pages_total", "reason", sorted(measured.failed_pages.items()))
        yield counter("folio_run_failed_batches_total", values=[("", measured.failed_batches)])
        yield counter("folio_run_retries_total", values=[("", measured.retries)])
        yield counter("folio_run_ocr_pages_total", values=[("", measured.ocr_pages)])
        yield counter("folio_run_ocr_fallback_pages_total", values=[("", measured.fallback_pages)])
        stages = HistogramMetricFamily("folio_run_page_stage_seconds", helps["folio_run_page_stage_seconds"],
                                       labels=["stage"])
        for stage in sorted({stage for stage, _ in measured.stage_seconds}):
            observed = [seconds for name, seconds in measured.stage_seconds if name == stage]
            stages.add_metric([stage], _buckets(observed, STAGE_BUCKETS), sum(observed))
        yield stages
        batches = HistogramMetricFamily("folio_run_batch_seconds", helps["folio_run_batch_seconds"])
        batches.add_metric([], _buckets(measured.batch_seconds, BATCH_BUCKETS), sum(measured.batch_seconds))
        yield batches
        for name, value in (("folio_run_duration_seconds", summary.seconds),
                            ("folio_run_completed", int(self.completed)),
                            ("folio_run_finished_timestamp_seconds", self.finished_at)):
            yield GaugeMetricFamily(name, helps[name], value=value)


def _buckets(observed: list[float], bounds: tuple[float, ...]) -> list[tuple[str, float]]:
    """Cumulative bucket counts of the observations, ending with +Inf."""
    return [(str(bound), sum(1 for value in observed if value <= bound)) for bound in bounds] + \
        [("+Inf", len(observed))]


def push_run(url: str, collector: RunCollector, home: str) -> None:
    """Push one run's metrics to the Pushgateway at `url`, grouped by host and home (a run of the same home replaces
    the last one's). A Pushgateway that cannot be reached is a warning: monitoring never fails a run."""
    try:
        push_to_gateway(url, job=PUSH_JOB, registry=_registry(collector),
                        grouping_key={"instance": socket.gethostname(), "home": home}, timeout=10)
    except OSError as error:
        log.warning("the run's metrics could not be pushed to %s: %s", url, error)


def write_run(path: Path, collector: RunCollector) -> None:
    """One run's metrics as Prometheus text in `path` (written whole, then renamed over the last run's), for
    LastRunCollector. A file that cannot be written is a warning, as a Pushgateway that cannot be reached is."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_to_textfile(str(path), _registry(collector))
    except OSError as error:
        log.warning("the run's metrics could not be written to %s: %s", path, error)


class LastRunCollector(Collector):
    """The metrics of the last run that ended in this home, read from the file it wrote (nothing before one has)."""

    def __init__(self, path: Path):
        self.path = path

    def collect(self) -> Iterator[Metric]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return
        yield from text_string_to_metric_families(text)


def _registry(collector: Collector) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(collector)
    return registry


def serve_metrics(host: str, port: int, database: Callable[[], Engine], last_run: Path
                  ) -> tuple[WSGIServer, threading.Thread]:
    """/metrics on host:port, answered by a thread of its own until the server is shut down: DATABASE_GAUGES, and
    RUN_METRICS of the last run in this home (the file `last_run`). The schema is made current first: the database's
    errors are raised here, and a scrape before the first run reads zeros."""
    upgrade(database())
    registry = _registry(DatabaseCollector(database))
    registry.register(LastRunCollector(last_run))
    return start_http_server(port, addr=host, registry=registry)
