"""The parse-batch task: a batch's pages read, parsed and stored (pages/batch.py) by the engine loaded in this
process or by engine worker processes (pages/parser.py)."""

import dataclasses

from prefect import task
from prefect.logging import get_run_logger
from prefect.runtime import task_run

from base.database import run_database
from base.settings import get_settings
from pages.batch import Batch, BatchReport, parse_batch_pages
from pages.parser import engine_workers, get_pipeline
from tasks.gpu import gpu_slot
from tasks.policy import task_options


@task(name="parse-batch", task_run_name="parse-batch-{batch.index}", **task_options())
def parse_batch(batch: Batch) -> BatchReport:
    database = run_database(batch.database)  # first: a Dask worker set up with another database fails at once
    workers = engine_workers()
    if workers is not None:
        report = parse_batch_pages(batch, database, workers, get_run_logger())
    else:
        pipeline = get_pipeline()
        with gpu_slot(pipeline, get_settings().gpu_slots):
            report = parse_batch_pages(batch, database, pipeline, get_run_logger())
    retries = max(0, task_run.run_count - 1)  # this try's number, from 1
    return dataclasses.replace(report, metrics=dataclasses.replace(report.metrics, retries=retries))
