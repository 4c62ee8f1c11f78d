"""A run's new pages cut into the batches its parse tasks take."""

from db.identity import DatabaseIdentity
from db.statuses import Registration
from db.store import Claim
from pages.batch import Batch, PageRef
from runs.register import Registered


def make_batches(registered: list[Registered], batch_size: int, claim: Claim | None = None,
                 reuse: bool = True, database: DatabaseIdentity | None = None) -> list[Batch]:
    """The pages still to parse, in document order, cut into batches of `batch_size`."""
    refs = [
        PageRef(item.document_id, str(item.file.path), page_no, item.sha256, item.identity)
        for item in registered if item.outcome == Registration.NEW
        for page_no in item.pages_todo
    ]
    return [Batch(index, tuple(refs[start:start + batch_size]), claim, reuse, database)
            for index, start in enumerate(range(0, len(refs), batch_size))]
