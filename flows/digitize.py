"""The digitize flow: list a source, register files, parse new pages in batches, close the run."""

import time
import uuid

from prefect import flow, get_run_logger
from prefect.runtime import flow_run
from prefect.task_runners import ThreadPoolTaskRunner

from db.migrate import upgrade
from db.session import get_engine, session_scope
from db.store import Claim, start_run
from folio.settings import get_settings
from tasks.discover import discover
from tasks.finish import PageCounts, RunSummary, finish_task
from tasks.parse import make_batches, parse_batch
from tasks.register import register


@flow(name="digitize", task_runner=ThreadPoolTaskRunner(max_workers=get_settings().workers))
def digitize(source: str, batch_size: int | None = None) -> RunSummary:
    """Turn every PDF under `source` into pages, blocks and text in PostgreSQL."""
    log = get_run_logger()
    started = time.perf_counter()
    settings = get_settings()
    engine = get_engine(settings)
    upgrade(engine)
    claim = Claim(str(flow_run.get_id() or uuid.uuid4()), settings.claim_lease_seconds)
    with session_scope(engine) as session:
        run_id = start_run(session, source, claim.claimant)
    files = discover(source)
    log.info("%d PDF files listed in %s", len(files), source)
    registered = register(files, claim)
    batches = make_batches(registered, batch_size or settings.batch_size, claim)
    total_pages = sum(len(batch.pages) for batch in batches)
    log.info("%d pages to parse in %d batches", total_pages, len(batches))
    futures = parse_batch.map(batches)
    parsed = reused = failed = 0
    errors: list[str] = []
    for future in futures:
        report = future.result(raise_on_failure=False)
        if isinstance(report, BaseException):
            errors.append(f"{type(report).__name__}: {report}")
            continue
        parsed += report.pages - report.failed - report.reused
        reused += report.reused
        failed += report.failed
        log.info("progress: %d/%d pages", parsed + reused + failed, total_pages)
    return finish_task(run_id, registered, PageCounts(parsed, reused, failed), errors, time.perf_counter() - started,
                       claim)
