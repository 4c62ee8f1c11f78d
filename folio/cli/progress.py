"""A run's progress on the command line: a live bar on a terminal, a plain line now and then anywhere else."""

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

from flows.progress import Stage, Step, watching

PLAIN_EVERY_SECONDS = 10.0  # a plain progress line at most this often (the first and the last always)


def say(text: str) -> None:
    """A line on stderr, beside the progress display (Prefect's and folio's log lines are off the terminal)."""
    print(f"folio: {text}", file=sys.stderr, flush=True)


def describe(step: Step) -> str:
    """What the run is doing, in a few words."""
    return {
        Stage.LOOKING: f"looking for new or changed files in {step.detail}",
        Stage.STARTING: "starting Prefect",
        Stage.LISTING: f"listing {step.detail}",
        Stage.SELECTING: f"choosing documents ({step.detail})",
        Stage.REGISTERING: f"registering {step.total} files",
        Stage.PARSING: "parsing",
        Stage.FINISHING: "storing the summary",
    }[step.stage]


def pages_rate_eta(done: int, total: int, seconds: float) -> str:
    """`12/40 pages, 0.52 pages/s, ETA 0:00:54`: the rate and what is left from the average since parsing began."""
    text = f"{done}/{total} pages"
    if done and seconds > 0:
        rate = done / seconds
        eta = timedelta(seconds=round((total - done) / rate))
        text += f", {rate:.2f} pages/s, ETA {eta}"
    return text


class PagesColumn(ProgressColumn):
    """Pages done of total, pages per second and the time left, once pages are being parsed."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(pages_rate_eta(int(task.completed), int(task.total), task.elapsed or 0.0))


class TerminalProgress:
    """One live line on stderr: spinner, stage, a bar of pages with their rate and ETA, time elapsed."""

    def __init__(self, console: Console):
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), PagesColumn(),
                                 TimeElapsedColumn(), console=console, transient=True)
        self.task = self.progress.add_task("starting", total=None)
        self.stage: Stage | None = None

    def __call__(self, step: Step) -> None:
        if step.stage is Stage.PARSING and self.stage is not Stage.PARSING:  # the clock of the rate starts now
            self.progress.reset(self.task, total=step.total, completed=step.done, description=describe(step))
        else:
            self.progress.update(self.task, description=describe(step),
                                 completed=step.done if step.stage is Stage.PARSING else None)
        self.stage = step.stage


class PlainProgress:
    """A line on stderr for each new stage, and one about pages at most every PLAIN_EVERY_SECONDS."""

    def __init__(self) -> None:
        self.stage: Stage | None = None
        self.parsing_since = self.last_line = 0.0

    def __call__(self, step: Step) -> None:
        now = time.monotonic()
        if step.stage is not Stage.PARSING:
            if step.stage != self.stage:
                self.say(describe(step))
        elif self.stage is not Stage.PARSING:
            self.parsing_since = now
            self.say(f"parsing {step.total} pages")
        elif step.done == step.total or now - self.last_line >= PLAIN_EVERY_SECONDS:
            self.say(pages_rate_eta(step.done, step.total or 0, now - self.parsing_since))
        self.stage = step.stage

    def say(self, text: str) -> None:
        self.last_line = time.monotonic()
        say(text)


@contextmanager
def shown(live: bool) -> Iterator[None]:
    """Show the progress of the flows run within: a live bar when `live` and stderr is a terminal, else lines."""
    console = Console(stderr=True)
    if live and console.is_terminal and not console.is_dumb_terminal:
        display = TerminalProgress(console)
        with display.progress, watching(display):
            yield
    else:
        with watching(PlainProgress()):
            yield
