"""Processes told apart by pid and start time; what killed folio processes leave is found and stopped."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from db.embedded import Handles
from db.processes import ProcessId
from folio.cli.leftovers import RECORD, record_child, stop_orphans


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen]:
    """A child process that would run for a minute."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def ended() -> ProcessId:
    """A process that ran and exited."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    found = ProcessId.of(process.pid)
    process.wait()
    assert found is not None
    return found


def test_a_process_is_alive_only_while_its_pid_runs_with_the_same_start(sleeper: subprocess.Popen):
    child = ProcessId.of(sleeper.pid)
    assert child is not None and child.alive() and ProcessId.current().alive()
    assert not ProcessId(sleeper.pid, child.started - 3600).alive()  # its pid, reused by another process
    gone = ended()
    assert not gone.alive() and ProcessId.of(gone.pid) is None


def test_the_server_handles_forget_processes_that_died(tmp_path: Path, sleeper: subprocess.Popen):
    path = tmp_path / ".handle_pids.json"
    gone, this = ended(), ProcessId.current()
    path.write_text(json.dumps([[gone.pid, gone.started], [sleeper.pid, 0.0], this.pid]))  # a reused pid, the wheel's
    handles = Handles(path)
    assert handles.get() == [this.pid]
    assert handles.get_and_add(sleeper.pid) == [this.pid]
    assert json.loads(path.read_text()) == [[this.pid, this.started], [sleeper.pid, ProcessId.of(sleeper.pid).started]]


def test_a_recorded_process_is_stopped_once_its_owner_is_gone(tmp_path: Path, sleeper: subprocess.Popen):
    child = ProcessId.of(sleeper.pid)
    record_child(tmp_path, child)
    assert stop_orphans(tmp_path) == [] and child.alive()  # its owner, this process, runs
    owner = ended()
    entries = json.loads((tmp_path / RECORD).read_text())
    entries[0]["owner"] = [owner.pid, owner.started]
    (tmp_path / RECORD).write_text(json.dumps(entries))
    assert stop_orphans(tmp_path) == [sleeper.pid]
    assert sleeper.wait(timeout=30) is not None and not child.alive()
    assert json.loads((tmp_path / RECORD).read_text()) == []
