"""A finished run's metrics in one place, so that no series is counted twice: the Pushgateway in FOLIO_PUSHGATEWAY_URL
when it is set, else a file in its home (FOLIO_HOME/metrics) that `folio metrics` and `folio serve` serve."""

import time

from base.run_metrics import RunMetrics
from base.run_summary import RunSummary
from base.settings import get_settings
from runs.metrics import RunCollector, push_run, write_run


def publish_run_metrics(summary: RunSummary, measured: RunMetrics, completed: bool) -> None:
    settings = get_settings()
    collector = RunCollector(summary, measured, completed, time.time())
    if settings.pushgateway_url:
        push_run(settings.pushgateway_url, collector, str(settings.home_dir))
        settings.last_run_metrics.unlink(missing_ok=True)  # an earlier run's, served no more
    else:
        write_run(settings.last_run_metrics, collector)
