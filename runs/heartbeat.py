"""A run's heartbeat: while its flow runs, its row names this process and is stamped every FOLIO_HEARTBEAT_SECONDS,
and the run's claims are renewed for FOLIO_CLAIM_LEASE_SECONDS."""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from base.database import database
from base.settings import get_settings
from db.crashes import beat
from db.session import session_scope

log = logging.getLogger(__name__)


@contextmanager
def heartbeat(run_id: int, db: Engine | None = None) -> Iterator[None]:
    """Beat now (a retried flow run's new process takes the row over), then every interval until the block ends."""
    db = db or database()
    settings = get_settings()
    with session_scope(db) as session:
        beat(session, run_id, settings.claim_lease_seconds)
    stop = threading.Event()
    beating = threading.Thread(target=_beat_until, daemon=True, name=f"folio-heartbeat-{run_id}",
                               args=(db, run_id, settings.heartbeat_seconds, settings.claim_lease_seconds, stop))
    beating.start()
    try:
        yield
    finally:
        stop.set()
        beating.join()


def _beat_until(db: Engine, run_id: int, interval: float, lease_seconds: int, stop: threading.Event) -> None:
    while not stop.wait(interval):
        try:
            with session_scope(db) as session:
                beat(session, run_id, lease_seconds)
        except Exception as error:  # the database away for a while: the next beat tries again
            log.warning("run %d: heartbeat not recorded (%s)", run_id, error)

