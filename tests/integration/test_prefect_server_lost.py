"""A run whose Prefect temporary server dies under it: started again, the run finishes with a true summary; when it
cannot be, the run ends failed in one line with exit code 1, and the next run completes the work."""

import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

from db.server import libpq_url
from tests import pdfs
from tests.integration.folio_process import FolioProcess, descendants, wait_for_lock_wait

REPORTS = [f"Annual Report {1990 + number}" for number in range(4)]


def temporary_server(run: FolioProcess) -> int:
    """The pid of the run's Prefect temporary server (uvicorn serving Prefect's API)."""
    servers = [pid for pid in descendants(run.process.pid)
               if b"prefect.server.api.server:create_app" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert len(servers) == 1, servers
    return servers[0]


def held_at_first_store(run: FolioProcess, url: str, first: Path) -> psycopg.Connection:
    """A connection holding the row of the first batch's document: the run waits to store that batch."""
    run.wait_for("parsing")
    lock = psycopg.connect(libpq_url(url))
    lock.execute("SELECT id FROM documents WHERE first_source LIKE %s FOR UPDATE", (f"%/{first.name}",))
    wait_for_lock_wait(libpq_url(url), "SELECT documents.id%FOR UPDATE")
    return lock


def take(squatter: socket.socket, port: int, timeout: float = 30) -> None:
    """Listen on the port as soon as the kernel has let go of it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            squatter.bind(("127.0.0.1", port))
            break
        except OSError:
            assert time.monotonic() < deadline, f"port {port} still taken"
            time.sleep(0.01)
    squatter.listen()


def stored(url: str) -> tuple:
    with psycopg.connect(libpq_url(url)) as connection:
        pages = connection.execute("SELECT count(*) FROM pages WHERE status = 'done'").fetchone()[0]
        runs = connection.execute("SELECT status, documents_done, pages_parsed FROM runs ORDER BY id").fetchall()
    return pages, runs


def test_a_killed_temporary_server_is_started_again_and_the_run_counts_every_page(
        tmp_path: Path, new_database_url: Callable[[], str]):
    paths = pdfs.reports(tmp_path / "archive", REPORTS, "report")
    url = new_database_url()
    run = FolioProcess(["run", str(tmp_path / "archive")], url, tmp_path / "home")
    with held_at_first_store(run, url, paths[0]) as lock:
        os.kill(temporary_server(run), signal.SIGKILL)
        run.wait_for("starting it again")
        lock.rollback()
    assert run.finish() == 0, "".join(run.lines)[-3000:]
    output = "".join(run.lines)
    assert "  files  4 listed: 4 done\n  pages  5 parsed, 3 reused\n" in output, output  # the reports' same page
    assert "EventsWorker" not in output and "Traceback" not in output
    assert stored(url) == (8, [("completed", 4, 5)])


def test_a_server_that_cannot_be_started_again_fails_the_run_in_one_line_and_the_next_run_completes_it(
        tmp_path: Path, new_database_url: Callable[[], str]):
    """The test takes the dead server's port before folio can start it again (folio is stopped, SIGSTOP, in
    between, so that it cannot be first) and holds it until folio gives up; then connections are refused."""
    paths = pdfs.reports(tmp_path / "archive", REPORTS, "report")
    url, home = new_database_url(), tmp_path / "home"
    run = FolioProcess(["run", str(tmp_path / "archive")], url, home, PREFECT_CLIENT_MAX_RETRIES="2")
    with held_at_first_store(run, url, paths[0]) as lock:
        server = temporary_server(run)
        arguments = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
        port = int(arguments[arguments.index(b"--port") + 1])
        with socket.socket() as squatter:
            os.kill(run.process.pid, signal.SIGSTOP)
            try:
                os.kill(server, signal.SIGKILL)
                squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                take(squatter, port)
            finally:
                os.kill(run.process.pid, signal.SIGCONT)
            run.wait_for("left stopped")
        lock.rollback()
        code = run.finish()
    errors = [line for line in run.lines if line.startswith("folio run:")]
    assert code == 1, "".join(run.lines)[-3000:]
    assert len(errors) == 1 and "Prefect's API" in errors[0], "".join(run.lines)[-3000:]
    assert stored(url)[1][0][0] == "failed"

    again = FolioProcess(["run", str(tmp_path / "archive")], url, home)
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    pages, runs = stored(url)
    assert pages == 8 and runs[1][0] == "completed"
