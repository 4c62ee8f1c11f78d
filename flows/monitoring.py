"""A finished run's metrics to the Pushgateway in FOLIO_PUSHGATEWAY_URL (nothing is pushed when it is unset)."""

import time

from folio.metrics import RunCollector, push_run
from folio.run_metrics import RunMetrics
from folio.run_summary import RunSummary
from folio.settings import get_settings


def push_run_metrics(summary: RunSummary, measured: RunMetrics, completed: bool) -> None:
    settings = get_settings()
    if settings.pushgateway_url:
        push_run(settings.pushgateway_url, RunCollector(summary, measured, completed, time.time()),
                 str(settings.home_dir))
