"""A run's new pages cut into the batches its parse tasks take."""

from db.identity import DatabaseIdentity
from db.statuses import Registration
from db.store import Claim
from pages.batch import Batch, PageRef
from runs.register import Registered


def make_batches(registered: list[Registered], batch_size: int, claim: Claim | None = None,
                 reuse: bool = True, database: DatabaseIdentity | None = None, workers: int = 1) -> list[Batch]:
    """The pages still to parse, in document order, cut into batches of at most `batch_size` that keep `workers`
    busy to the end (batch_bounds)."""
    refs = [
        PageRef(item.document_id, str(item.file.path), page_no, item.sha256, item.identity)
        for item in registered if item.outcome == Registration.NEW
        for page_no in item.pages_todo
    ]
    return [Batch(index, tuple(refs[start:end]), claim, reuse, database)
            for index, (start, end) in enumerate(batch_bounds(len(refs), batch_size, workers))]


def batch_bounds(count: int, batch_size: int, workers: int = 1) -> list[tuple[int, int]]:
    """(start, end) of each batch of `count` items in order: none over `batch_size`, as many as that takes rounded up
    to a whole number of rounds of `workers` batches, their sizes within one of each other. Cut into full batches
    and a remainder, the last round would leave workers idle: 29 pages in batches of 8 on 2 workers are 8+8 pages
    for one and 8+5 for the other, evened out 8+7 and 7+7."""
    if count == 0:
        return []
    batches = -(-count // batch_size)
    batches = min(count, -(-batches // workers) * workers)
    size, larger = divmod(count, batches)
    ends = [(index + 1) * size + min(index + 1, larger) for index in range(batches)]
    return list(zip([0, *ends[:-1]], ends))
