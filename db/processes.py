"""Which process is which: a pid with its start time (a pid is reused, the pair is not), alive or not, stopped."""

import os
import socket
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import psutil

START_TOLERANCE_SECONDS = 1.0  # the kernel's start time is read in clock ticks; a reused pid starts much later


@dataclass(frozen=True)
class ProcessId:
    """A process of this machine: its pid and when it started (seconds since the epoch)."""

    pid: int
    started: float

    @classmethod
    def of(cls, pid: int) -> "ProcessId | None":
        """The running process with this pid, or None."""
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except psutil.Error:
            return None

    @classmethod
    def current(cls) -> "ProcessId":
        return cls(os.getpid(), psutil.Process().create_time())

    def alive(self) -> bool:
        """Whether this very process still runs: its pid exists, started at the same time, and is no zombie."""
        try:
            process = psutil.Process(self.pid)
            return (abs(process.create_time() - self.started) < START_TOLERANCE_SECONDS
                    and process.status() != psutil.STATUS_ZOMBIE)
        except psutil.Error:
            return False

    def stop(self, grace_seconds: float = 10) -> None:
        """SIGTERM, then SIGKILL if it still runs after the grace period; nothing if it is gone."""
        if not self.alive():
            return
        try:
            process = psutil.Process(self.pid)
            process.terminate()
            try:
                process.wait(grace_seconds)
            except psutil.TimeoutExpired:
                process.kill()
                process.wait(grace_seconds)
        except psutil.NoSuchProcess:
            pass


@lru_cache(maxsize=1)
def machine() -> str:
    """This kernel's boot and pid namespace: processes with the same key see each other's pids (containers on one
    host do not, whatever their host names)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:  # no /proc (macOS): the host name and its boot
        return f"{socket.gethostname()}/{psutil.boot_time():.0f}"
