"""How far a flow running in this process has got, told to whoever watches (the command line's progress bar)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    """What a run is doing, in the order a run does it."""

    LOOKING = "looking"  # checking whether any listed file is new or changed, before the flow starts
    STARTING = "starting"  # starting Prefect's temporary server
    LISTING = "listing"
    SELECTING = "selecting"  # choosing the documents to parse again
    REGISTERING = "registering"
    PARSING = "parsing"
    FINISHING = "finishing"


@dataclass(frozen=True)
class Step:
    """A stage of a run and how far it is: done of total pages or files."""

    stage: Stage
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
