"""folio's vocabularies, defined once: the statuses stored in PostgreSQL and what became of a listed file.

Each member is its stored string (a StrEnum), so rows, queries and messages keep the same values.
"""

from enum import StrEnum


class DocumentStatus(StrEnum):
    PENDING = "pending"  # claimed, not yet opened
    PROCESSING = "processing"  # opened, pages being parsed
    DONE = "done"
    FAILED = "failed"
    QUARANTINED = "quarantined"  # finished, some page with nothing validation could trust


FINISHED = (DocumentStatus.DONE, DocumentStatus.FAILED, DocumentStatus.QUARANTINED)


class PageStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    QUARANTINED = "quarantined"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CRASHED = "crashed"  # its process died, as the next folio command found


class Registration(StrEnum):
    """What registering a listed file found it to be."""

    NEW = "new"  # its pages are to be parsed
    UNCHANGED = "unchanged"  # as it was seen before at the same path or URI, its document finished
    DUPLICATE = "duplicate"  # bytes known from another path, or a document another run holds
    FAILED = "failed"  # it could not be read or opened


class FileOutcome(StrEnum):
    """What became of a listed file, as a run's summary counts it (runs.documents_<outcome>), in the order shown."""

    DONE = "done"
    REUSED = "reused"  # new bytes whose every page was found already parsed
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"
    FAILED = "failed"
    QUARANTINED = "quarantined"
