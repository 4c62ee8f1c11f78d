"""How far a flow running in this process has got, told to whoever watches (the command line's progress bar)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """A stage of a run (listing, registering, parsing, finishing) and how far it is: done of total pages or files."""

    stage: str
    done: int = 0
    total: int | None = None  # None: not counted
    detail: str = ""


Watcher = Callable[[Step], None]
_watchers: list[Watcher] = []


@contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Tell the watcher every step of the flows run in this process while the block runs."""
    _watchers.append(watcher)
    try:
        yield
    finally:
        _watchers.remove(watcher)


def tell(step: Step) -> None:
    for watcher in tuple(_watchers):
        watcher(step)
