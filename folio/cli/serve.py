"""`folio serve`: the Prefect UI on this machine with folio's deployments and a worker to run them.

Joins the Prefect server in PREFECT_API_URL when one answers there, else starts `prefect server
start` (its database under FOLIO_HOME); registers the deployments; runs a process worker on
folio's pool until Ctrl-C or SIGTERM, which stop the worker and the server it started, and wait for them.
"""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from contextlib import suppress

from base.settings import Settings

STARTUP_SECONDS = 180
STOP_SECONDS = 30  # how long a process may take to stop after SIGTERM before it is killed


def api_answers(api_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url.rstrip('/')}/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_for_api(api_url: str, server: subprocess.Popen | None) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not api_answers(api_url):
        if server is not None and server.poll() is not None:
            raise RuntimeError(f"the Prefect server exited with code {server.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no Prefect API at {api_url} after {STARTUP_SECONDS} s")
        time.sleep(0.5)


def start(command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    """A child in a process group of its own, so that stopping it reaches what it starts in turn."""
    return subprocess.Popen(command, env=env, start_new_session=True)


def stop(processes: list[subprocess.Popen]) -> None:
    """SIGTERM to each child's group, newest first; wait for each, then kill whatever of its group is left."""
    processes = processes[::-1]
    for process in processes:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def wait_for_interrupt() -> None:
    """Return on SIGINT (Ctrl-C) or SIGTERM."""
    handler = signal.signal(signal.SIGTERM, _interrupt)
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        return
    finally:
        signal.signal(signal.SIGTERM, handler)


def serve(settings: Settings, host: str, port: int, say: Callable[[str], None]) -> int:
    """Bring the server (if needed), the deployments and a worker up, and the metrics on FOLIO_METRICS_PORT; return
    when the worker ends or a signal (SIGINT, SIGTERM) stops them all."""
    api_url = os.environ.get("PREFECT_API_URL") or f"http://{host}:{port}/api"
    processes: dict[str, subprocess.Popen] = {}  # what this call started, by name, oldest first
    handlers = {number: signal.signal(number, _interrupt) for number in (signal.SIGINT, signal.SIGTERM)}
    metrics = None
    try:
        if settings.metrics_port is not None:
            from base.database import database
            from runs.metrics import serve_metrics

            metrics, _ = serve_metrics(host, settings.metrics_port, database, settings.last_run_metrics)
            say(f"metrics: http://{host}:{settings.metrics_port}/metrics")
        if not api_answers(api_url):
            say(f"starting the Prefect server on http://{host}:{port} (data under {os.environ['PREFECT_HOME']})")
            ui_env = {"PREFECT_SERVER_API_HOST": host, "PREFECT_SERVER_API_PORT": str(port),
                      "PREFECT_UI_API_URL": api_url}  # the UI's pages call the API at this address
            processes["the Prefect server"] = start([sys.executable, "-m", "prefect", "server", "start", "--host",
                                                     host, "--port", str(port)], env={**os.environ, **ui_env})
            wait_for_api(api_url, processes["the Prefect server"])
        os.environ["PREFECT_API_URL"] = api_url  # before Prefect's settings are first read
        from deployments.definitions import nightly_paused_because, register_deployments

        for name in register_deployments(settings):
            say(f"deployment {name} registered")
        if reason := nightly_paused_because(settings):
            say(f"nightly-digitization is paused: {reason}")
        processes["the worker"] = start([sys.executable, "-m", "prefect", "worker", "start", "--pool",
                                         settings.work_pool, "--type", "process"])
        say(f"Prefect UI: {api_url.removesuffix('/api')} — start `ingest` from Deployments; Ctrl-C stops")
        return processes["the worker"].wait()
    except KeyboardInterrupt:
        if processes:
            say("stopping " + " and ".join(reversed(processes)))
        return 0
    finally:
        for number in handlers:  # a second signal must not cut the stopping short
            signal.signal(number, signal.SIG_IGN)
        stop(list(processes.values()))
        if metrics is not None:
            metrics.shutdown()
        for number, handler in handlers.items():
            signal.signal(number, handler)
