"""What a run did, and its one renderer: the lines the CLI prints and the tables the Prefect UI shows are made
from the same figures, so both name every outcome."""

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from db.statuses import DocumentStatus, FileOutcome, PageStatus

WIDTH = 80
SHOWN = 10  # failed and quarantined files listed by name; the rest are counted, with the SQL that lists them
FAILED_SQL = f"folio sql \"SELECT first_source, error FROM documents WHERE status = '{DocumentStatus.FAILED}'\""
QUARANTINED_SQL = ("folio sql \"SELECT d.first_source, p.page_no, i.rule FROM page_issues i JOIN pages p ON "
                   "p.id = i.page_id JOIN documents d ON d.id = p.document_id "
                   f"WHERE p.status = '{PageStatus.QUARANTINED}'\"")


@dataclass(frozen=True, order=True)
class QuarantinedPage:
    """A page stored without its content: nothing on it passed validation."""

    document_id: int
    page_no: int
    checks: str  # the names of the checks it failed
    file: str = ""  # its document's file, once the run puts it in its summary


@dataclass(frozen=True, order=True)
class FlaggedPage:
    """A page stored with its good blocks after validation repaired, demoted or dropped some."""

    document_id: int
    page_no: int
    blocks: int  # how many blocks failed a block-level check
    checks: str
    file: str = ""


class FailedDocument(NamedTuple):
    """A listed file whose document failed, with why."""

    document_id: int
    file: str
    error: str


@dataclass(frozen=True)
class RunSummary:
    """What became of every listed file; the documents_<outcome> counts (FileOutcome) add up to files_listed.

    An unchanged file was seen before at the same path or URI, as it is now (size and modification time, or
    ETag), and its document is finished: it was not read again (or, touched since, was read and held the same
    bytes). A duplicate holds the bytes of a document seen at another path, or one another run is working on.
    A reused document is new bytes whose every page was found already parsed (a re-saved copy).
    """

    run_id: int
    files_listed: int
    documents_unchanged: int
    documents_done: int
    documents_duplicate: int
    documents_failed: int
    documents_quarantined: int
    documents_reused: int
    pages_parsed: int
    pages_reused: int
    pages_failed: int
    seconds: float
    pages_quarantined: int = 0
    pages_flagged: int = 0  # stored with their blocks, some repaired, demoted or dropped by validation
    blocks_flagged: int = 0
    failures: tuple[FailedDocument, ...] = ()
    quarantined_pages: tuple[QuarantinedPage, ...] = ()
    flagged_pages: tuple[FlaggedPage, ...] = ()

    @property
    def pages_per_second(self) -> float:
        return self.pages_parsed / self.seconds if self.seconds > 0 else 0.0

    def documents(self, outcome: FileOutcome) -> int:
        """How many listed files had this outcome."""
        return getattr(self, f"documents_{outcome}")

    def outcomes(self) -> list[tuple[FileOutcome, int]]:
        """Every outcome with its count, in the order shown."""
        return [(outcome, self.documents(outcome)) for outcome in FileOutcome]

    def pages(self) -> list[tuple[str, int]]:
        """What became of the pages, in the order shown."""
        return [("parsed", self.pages_parsed), ("reused", self.pages_reused), ("failed", self.pages_failed),
                ("quarantined", self.pages_quarantined), ("with flagged blocks", self.pages_flagged)]

    def stored_counts(self) -> dict[str, int]:
        """The counts the run's row keeps (columns of `runs`)."""
        return {"files_listed": self.files_listed, "pages_parsed": self.pages_parsed,
                "pages_reused": self.pages_reused,
                **{f"documents_{outcome}": count for outcome, count in self.outcomes()}}


def summary_table(summary: RunSummary) -> dict[str, float]:
    """The figures of the run, each named: the run-summary artifact's one row."""
    return {"files listed": summary.files_listed, **{str(outcome): count for outcome, count in summary.outcomes()},
            **{f"pages {what}": count for what, count in summary.pages()}, "blocks flagged": summary.blocks_flagged,
            "seconds": summary.seconds, "pages/s": round(summary.pages_per_second, 2)}


def summary_lines(summary: RunSummary, source: str, shown: int = SHOWN) -> list[str]:
    """Short lines (they fit 80 columns but for long names and reasons) of what the run did; outcomes and page
    counts (beyond parsed and reused) that no file had are left out."""
    outcomes = [f"{count} {outcome}" for outcome, count in summary.outcomes() if count]
    pages = ", ".join(f"{count} {what}" for number, (what, count) in enumerate(summary.pages()) if count or number < 2)
    lines = [f"folio run {summary.run_id}: {source}",
             *_wrapped(f"  files  {summary.files_listed} listed" + (": " if outcomes else ""), outcomes),
             f"  pages  {pages}",
             f"  time   {summary.seconds:.1f} s, {summary.pages_per_second:.2f} pages/s"]
    name = _namer(source)
    if summary.failures:
        lines.append(f"failed ({len(summary.failures)}):")
        lines += [f"  {name(failed.file)}: {failed.error or 'no reason stored'}" for failed in summary.failures[:shown]]
        lines += _more(len(summary.failures) - shown, FAILED_SQL)
    if summary.quarantined_pages:
        by_file: dict[str, list[str]] = {}
        for page in sorted(summary.quarantined_pages, key=lambda page: (page.file, page.page_no)):
            by_file.setdefault(page.file, []).append(f"page {page.page_no} ({page.checks})")
        lines.append(f"quarantined ({len(by_file)} files, {len(summary.quarantined_pages)} pages):")
        lines += [f"  {name(uri)}: {'; '.join(pages)}" for uri, pages in list(by_file.items())[:shown]]
        lines += _more(len(by_file) - shown, QUARANTINED_SQL)
    return lines


def _wrapped(head: str, parts: list[str], width: int = WIDTH) -> list[str]:
    """The head followed by the parts separated by commas, on as many lines as `width` columns need."""
    lines, line, fresh = [], head, True
    for number, part in enumerate(parts):
        piece = part + ("," if number < len(parts) - 1 else "")
        if not fresh and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line, fresh = " " * 9, True
        line += piece if fresh else " " + piece
        fresh = False
    return [*lines, line]


def _more(hidden: int, sql: str) -> list[str]:
    return [f"  and {hidden} more; all of them: {sql}"] if hidden > 0 else []


def _namer(source: str):
    """Files under the source folder or prefix named from there; others by their whole path or URI."""
    root = source.rstrip("/") if source.startswith("s3://") else str(Path(source).expanduser().resolve())

    def name(uri: str) -> str:
        return uri[len(root) + 1:] if uri.startswith(root + "/") else uri

    return name
