"""A finished run's summary for people: what became of every file, then the failed and quarantined files and why."""

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tasks.runs import RunSummary

WIDTH = 80
SHOWN = 10  # failed and quarantined files listed by name; the rest are counted, with the SQL that lists them
FAILED_SQL = "folio sql \"SELECT first_source, error FROM documents WHERE status = 'failed'\""
QUARANTINED_SQL = ("folio sql \"SELECT d.first_source, p.page_no, i.rule FROM page_issues i JOIN pages p ON "
                   "p.id = i.page_id JOIN documents d ON d.id = p.document_id WHERE p.status = 'quarantined'\"")


def summary_lines(summary: "RunSummary", source: str, shown: int = SHOWN) -> list[str]:
    """Short lines (they fit 80 columns but for long names and reasons) of what the run did; outcomes that no
    file had are left out."""
    outcomes = [f"{count} {name}" for name, count in (
        ("done", summary.documents_done), ("reused", summary.documents_reused),
        ("unchanged", summary.documents_unchanged), ("duplicate", summary.documents_duplicate),
        ("failed", summary.documents_failed), ("quarantined", summary.documents_quarantined)) if count]
    pages = f"{summary.pages_parsed} parsed, {summary.pages_reused} reused" + "".join(
        f", {count} {what}" for what, count in (
            ("failed", summary.pages_failed), ("quarantined", summary.pages_quarantined),
            ("with flagged blocks", summary.pages_flagged)) if count)
    lines = [f"folio run {summary.run_id}: {source}",
             *_wrapped(f"  files  {summary.files_listed} listed" + (": " if outcomes else ""), outcomes),
             f"  pages  {pages}",
             f"  time   {summary.seconds:.1f} s, {summary.pages_per_second:.2f} pages/s"]
    name = _namer(source)
    if summary.failures:
        lines.append(f"failed ({len(summary.failures)}):")
        lines += [f"  {name(uri)}: {error or 'no reason stored'}" for _, uri, error in summary.failures[:shown]]
        lines += _more(len(summary.failures) - shown, FAILED_SQL)
    if summary.quarantined_pages:
        by_file: dict[str, list[str]] = {}
        for _, uri, page_no, checks in sorted(summary.quarantined_pages, key=lambda item: (item[1], item[2])):
            by_file.setdefault(uri, []).append(f"page {page_no} ({checks})")
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
