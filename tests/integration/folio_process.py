"""folio commands as an operator starts them: their own process group (with their Prefect server), output kept."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> set[int]:
    """The processes whose parent is pid, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        new = children(todo.pop()) - found
        found |= new
        todo.extend(new)
    return found


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def folio_env(database_url: str | None, home: Path, **settings: str) -> dict[str, str]:
    """The environment of a folio process of its own: this database (None: the embedded server under home), this
    home, none of the tests' Prefect; one batch at a time (tests hold a batch's store and count on the batches
    after it waiting) unless `settings` name FOLIO_WORKERS."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOLIO_", "PREFECT_"))}
    env.update(FOLIO_FORMULA_MODEL="none", FOLIO_BATCH_SIZE="2", FOLIO_WORKERS="1", FOLIO_HOME=str(home),
               PREFECT_HOME=str(home / "prefect"), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    if database_url is not None:
        env["FOLIO_DATABASE_URL"] = database_url
    env["FOLIO_ENGINE_CACHE"] = os.environ["FOLIO_ENGINE_CACHE"]  # the session's derived models, made once
    env.update(settings)
    return env


class FolioProcess:
    def __init__(self, arguments: list[str], database_url: str | None, home: Path, **settings: str):
        self.process = subprocess.Popen([sys.executable, "-m", "folio.cli", *arguments],
                                        env=folio_env(database_url, home, **settings),
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, needle: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while not any(needle in line for line in self.lines):
            assert self.process.poll() is None, "".join(self.lines)[-3000:]
            assert time.monotonic() < deadline, f"no {needle!r} in: " + "".join(self.lines)[-3000:]
            time.sleep(0.05)

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def kill_alone(self) -> None:
        """SIGKILL to the command's process only, as the OOM killer sends it: what it started goes on running."""
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM to the whole group (the command and what it started), SIGKILL if it lingers."""
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()

    def finish(self) -> int:
        code = self.process.wait(timeout=600)
        self.reader.join(timeout=10)
        return code


class FolioRun(FolioProcess):
    """`folio run SOURCE --verbose`: with Prefect's log lines, which tests wait for."""

    def __init__(self, source: Path | str, database_url: str | None, home: Path, **settings: str):
        super().__init__(["run", str(source), "--verbose"], database_url, home, **settings)


def wait_for_blocked_insert(url: str, timeout: float = 300) -> None:
    """Until a run's transaction waits to insert blocks: it has written pages that are not committed."""
    wait_for_lock_wait(url, "INSERT INTO blocks%", timeout)


def wait_for_lock_wait(url: str, statement: str, timeout: float = 300) -> None:
    """Until a statement LIKE `statement` waits for a lock another transaction holds."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as connection:
        while not connection.execute(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE %s", (statement,)
        ).fetchone():
            assert time.monotonic() < deadline, f"no statement like {statement!r} came to wait for a lock"
            time.sleep(0.05)


def wait_for_run_status(url: str, status: str, run: FolioProcess, timeout: float = 300) -> None:
    """Until the latest run has this status; if it never does, what the database's sessions were doing and the
    run's last output tell why."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as connection:
        while connection.execute("SELECT status FROM runs ORDER BY id DESC LIMIT 1").fetchone() != (status,):
            if time.monotonic() >= deadline:
                sessions = connection.execute(
                    "SELECT pid, state, wait_event_type, wait_event, left(query, 120) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
                raise AssertionError(f"the run did not come to be {status!r}; sessions: {sessions}; its output: "
                                     + "".join(run.lines)[-3000:])
            time.sleep(0.05)
