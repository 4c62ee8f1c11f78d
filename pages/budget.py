"""Per-page budgets: how much a page may hold (text objects, characters, drawings) and how long it may take.

A page over a budget is failed with the reason; the rest of its document and batch go on. Time is enforced
by `TimeLimit`, which raises `OutOfTime` in the thread doing the work once its time is up: at the next
Python instruction, so a call into native code (MuPDF, ONNX Runtime) ends first. The size budgets keep
those calls short: they are checked before the page reaches PyMuPDF's layout analysis and the engine.
"""

import ctypes
import threading
from dataclasses import dataclass
from types import TracebackType

from base.settings import get_settings
from sources.causes import causes
from sources.failures import OutOfTime, OverBudget


@dataclass(frozen=True)
class PageBudget:
    """What one page may hold and take (FOLIO_PAGE_* settings)."""

    text_objects: int
    characters: int
    drawings: int
    seconds: float

    def check(self, text_objects: int, characters: int, drawings: int) -> None:
        """Raise OverBudget if the page holds more than its budget allows."""
        for count, limit, what, setting in (
                (text_objects, self.text_objects, "text objects", "FOLIO_PAGE_MAX_TEXT_OBJECTS"),
                (characters, self.characters, "characters of text", "FOLIO_PAGE_MAX_CHARACTERS"),
                (drawings, self.drawings, "drawn lines, rectangles and curves", "FOLIO_PAGE_MAX_DRAWINGS")):
            if count > limit:
                raise OverBudget(f"over budget: {count:,} {what} on the page, {setting} is {limit:,}")

    def out_of_time(self, doing: str) -> str:
        """The reason for a page whose `doing` ran out of time."""
        return f"over budget: {doing} took more than {self.seconds:g} s (FOLIO_PAGE_TIMEOUT_SECONDS)"


def page_budget() -> PageBudget:
    """The budget of a page, from the settings."""
    settings = get_settings()
    return PageBudget(text_objects=settings.page_max_text_objects, characters=settings.page_max_characters,
                      drawings=settings.page_max_drawings, seconds=settings.page_timeout_seconds)


class TimeLimit:
    """`with TimeLimit(seconds):` raises OutOfTime in this thread when the block runs longer than that.

    An exception raised from outside can land where Python ignores it (a weakref callback, a __del__), so
    it is raised again every RETRY seconds until the block ends; and a block that ends after its time ends
    with OutOfTime even if it finished its work. It can also land in Python code that native code called
    (PyMuPDF's reading a Rect): the native function then fails with a SystemError caused by OutOfTime, and the
    block ends with OutOfTime all the same.
    """

    RETRY = 0.5

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._fired = False
        self._thread = threading.get_ident()

    def __enter__(self) -> "TimeLimit":
        self._thread = threading.get_ident()
        threading.Thread(target=self._watch, daemon=True, name="time-limit").start()
        return self

    def _watch(self) -> None:
        wait = self.seconds
        while not self._done.wait(wait):
            with self._lock:
                if self._done.is_set():
                    return
                self._fired = True
                _raise_in(self._thread, OutOfTime)
            wait = self.RETRY

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        with self._lock:
            self._done.set()
            fired = self._fired
        if fired:
            _raise_in(self._thread, None)  # withdrawn if it has not been raised yet
            if error is None or (not isinstance(error, OutOfTime)
                                 and any(isinstance(cause, OutOfTime) for cause in causes(error))):
                raise OutOfTime from error


def _raise_in(thread: int, error: type[BaseException] | None) -> None:
    """Have `error` raised in the thread at its next Python instruction (None: withdraw a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                               ctypes.py_object(error) if error is not None else None)
