"""`folio serve` stopped as a service manager stops it: SIGTERM to its process alone leaves nothing it started."""

import os
import signal
import urllib.request
from collections.abc import Callable
from pathlib import Path

from tests.integration.folio_process import FolioProcess, alive, descendants, free_port


def test_sigterm_stops_the_server_and_the_worker(new_database_url: Callable[[], str], tmp_path: Path):
    port, metrics_port = free_port(), free_port()
    serve = FolioProcess(["serve", "--port", str(port)], new_database_url(), tmp_path / "home",
                         FOLIO_METRICS_PORT=str(metrics_port))
    try:
        serve.wait_for("Worker", timeout=300)
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as response:
            scraped = response.read().decode().splitlines()
        assert "folio_database_up 1.0" in scraped and 'folio_runs{status="running"} 0.0' in scraped
        started = descendants(serve.process.pid)
        assert len(started) >= 2, started  # the Prefect server and the worker at least
        os.kill(serve.process.pid, signal.SIGTERM)  # the command alone, not its process group
        assert serve.process.wait(timeout=120) == 0
    finally:
        if serve.process.poll() is None:
            serve.kill()
    assert not [pid for pid in started if alive(pid)], "".join(serve.lines)[-3000:]
    output = "".join(serve.lines)
    assert "nightly-digitization is paused: set FOLIO_NIGHTLY_SOURCE" in output
    assert "stopping the worker and the Prefect server" in output
