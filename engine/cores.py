"""The cores this process may run on, known without loading a runtime (settings read it for their defaults)."""

import os


def cpu_cores() -> int:
    """The cores this process may run on."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
