"""Claims with a lease: runs at the same time parse every page once, a crashed run's documents are taken over."""

import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, func, select, text, update

from db.embedded import get_server
from db.models import Document, Page
from db.passwords import passfile
from db.server import libpq_url, start_embedded
from db.session import session_scope
from db.statuses import FileOutcome
from db.store import Claim, SourceFile, claim_document, claim_for_run
from flows.digitize import digitize
from tests import pdfs
from tests.integration.folio_process import FolioRun, wait_for_lock_wait


def test_a_live_claim_keeps_other_runs_off_and_an_expired_one_does_not(database: Engine):
    first, second = Claim("run-a", 600), Claim("run-b", 600)
    with session_scope(database) as session:
        document_id, _ = claim_document(session, "a" * 64, SourceFile(uri="/x.pdf", size_bytes=1))
        assert claim_for_run(session, document_id, first)
        assert claim_for_run(session, document_id, first)  # a run may renew its own claim
        assert not claim_for_run(session, document_id, second)
        session.execute(update(Document).values(claimed_until=func.now() - text("interval '1 second'")))
        assert claim_for_run(session, document_id, second)
        assert session.execute(select(Document.claimed_by)).scalar_one() == "run-b"


def crash(database: Engine, claimed_until: str) -> None:
    """Leave the stored document as a run killed mid-document would: page 2 missing, still claimed."""
    with session_scope(database) as session:
        session.execute(text("DELETE FROM pages WHERE page_no = 2"))
        session.execute(text(f"UPDATE documents SET status = 'processing', claimed_by = 'killed-run', "
                             f"claimed_until = now() + interval '{claimed_until}'"))


@pytest.mark.parametrize(("lease_left", "parsed"), [("-1 second", 1), ("10 minutes", 0)])
def test_a_crashed_run_is_taken_over_only_when_its_lease_expired(database: Engine, tmp_path: Path,
                                                                 lease_left: str, parsed: int):
    pdfs.two_column_pdf(tmp_path)
    digitize(source=str(tmp_path))
    crash(database, lease_left)
    summary = digitize(source=str(tmp_path))
    assert summary.pages_parsed == parsed
    with database.connect() as connection:
        status, claimed_by = connection.execute(select(Document.status, Document.claimed_by)).one()
        pages = connection.execute(select(func.count()).select_from(Page)).scalar()
    if parsed:
        assert (status, claimed_by, pages) == ("done", None, 2)
    else:  # still the other run's: left alone, counted as handled elsewhere
        assert (status, claimed_by, pages) == ("processing", "killed-run", 1)
        assert summary.documents_duplicate == summary.files_listed == 1


def run_totals(url: str) -> tuple:
    """Pages stored (all, distinct), and over all runs: pages parsed or reused, documents done, documents left."""
    with psycopg.connect(libpq_url(url)) as connection:
        pages = connection.execute("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages").fetchone()
        runs = connection.execute("SELECT sum(pages_parsed + pages_reused), sum(documents_done), "
                                  "sum(documents_duplicate) FROM runs").fetchone()
        statuses = connection.execute("SELECT DISTINCT status, claimed_by FROM documents").fetchall()
    return tuple(pages), tuple(runs), statuses


@contextmanager
def server_for(layout: str, home: Path, new_database_url: Callable[[], str]) -> Iterator[tuple[str, str | None]]:
    """The database two runs share: the embedded server of their one home (kept up by this test's handle), or an
    external PostgreSQL; its URL, and what the runs are given (None: the home's own server)."""
    if layout == "two homes":
        url = new_database_url()
        yield url, url
        return
    url = start_embedded(home / "pgdata")
    try:
        yield url, None
    finally:
        get_server(home.resolve() / "pgdata", passfile(home.resolve())).cleanup()


@pytest.mark.parametrize("layout", ["one home", "two homes"])
def test_a_live_run_keeps_its_claims_past_the_lease_and_a_second_run_leaves_them(
        layout: str, tmp_path: Path, session_dir: Path, new_database_url: Callable[[], str]):
    """The first run is held as it comes to store its first batch (the test locks that document's row) for three
    leases; a second run started then over copies of its other documents finds them still claimed (the first
    run's heartbeat renews every claim it holds) and leaves them. Every page is parsed, stored and counted once,
    each document done by one run."""
    archive, copies = tmp_path / "archive", tmp_path / "copies"
    paths = pdfs.reports(archive, [f"Annual Report {1990 + number}" for number in range(4)], "report")
    copies.mkdir()
    for path in paths[1:]:  # not the document of the first run's first batch, which the test holds
        shutil.copy(path, copies / path.name)
    base = session_dir / f"claims-{uuid.uuid4().hex[:8]}"  # as root, the embedded server's user must reach a home
    homes = (base / "home", base / ("home" if layout == "one home" else "home-2"))
    short = {"FOLIO_CLAIM_LEASE_SECONDS": "3", "FOLIO_HEARTBEAT_SECONDS": "0.5"}
    with server_for(layout, homes[0], new_database_url) as (url, given):
        first = FolioRun(archive, given, homes[0], **short)
        first.wait_for("pages to parse")
        with psycopg.connect(libpq_url(url)) as lock:
            lock.execute("SELECT id FROM documents WHERE first_source LIKE %s FOR UPDATE", (f"%/{paths[0].name}",))
            wait_for_lock_wait(libpq_url(url), "SELECT documents.id%FOR UPDATE")  # the first batch's store waits
            time.sleep(9)  # three leases: a claim not renewed by now has lapsed
            second = FolioRun(copies, given, homes[1], **short)
            assert second.finish() == 0, "".join(second.lines)[-3000:]
            lock.rollback()
        assert first.finish() == 0, "".join(first.lines)[-3000:]
        assert "  files  3 listed: 3 duplicate" in "".join(second.lines)
        assert "  pages  0 parsed" in "".join(second.lines)
        assert run_totals(url) == ((8, 8), (8, 4, 3), [("done", None)])


def test_a_run_that_lost_its_claims_stores_and_counts_none_of_those_pages(tmp_path: Path,
                                                                          new_database_url: Callable[[], str]):
    """Held as it comes to store its first batch, the run has its other documents taken over (by a run that found
    it dead: silent too long on another machine); it stores none of their pages, leaves them as the other run holds
    them, and counts them as duplicates."""
    archive = tmp_path / "archive"
    paths = pdfs.reports(archive, [f"Annual Report {1990 + number}" for number in range(4)], "report")
    url = new_database_url()
    run = FolioRun(archive, url, tmp_path / "home")
    run.wait_for("pages to parse")
    with psycopg.connect(libpq_url(url)) as lock:
        lock.execute("SELECT id FROM documents WHERE first_source LIKE %s FOR UPDATE", (f"%/{paths[0].name}",))
        wait_for_lock_wait(libpq_url(url), "SELECT documents.id%FOR UPDATE")
        with psycopg.connect(libpq_url(url), autocommit=True) as other:
            other.execute("UPDATE documents SET claimed_by = 'the-other-run', claimed_until = now() + "
                          "interval '1 hour' WHERE first_source NOT LIKE %s", (f"%/{paths[0].name}",))
        lock.rollback()
    assert run.finish() == 0, "".join(run.lines)[-3000:]
    output = "".join(run.lines)
    assert "taken over by another run while this one parsed them" in output
    assert "  files  4 listed: 1 done, 3 duplicate" in output and "  pages  2 parsed" in output
    with psycopg.connect(libpq_url(url)) as connection:
        assert connection.execute("SELECT count(*) FROM pages").fetchone() == (2,)
        assert connection.execute("SELECT status, claimed_by, count(*) FROM documents GROUP BY 1, 2 "
                                  "ORDER BY 1").fetchall() == [("done", None, 1), ("processing", "the-other-run", 3)]


def test_a_killed_run_keeps_its_claims_one_lease_past_its_last_beat(tmp_path: Path,
                                                                   new_database_url: Callable[[], str]):
    """A run killed on another machine is not seen dead from here until it has been silent for four heartbeats:
    its claims end one lease after its last beat. A run started before that leaves its documents, the next run
    after it takes them over."""
    archive = tmp_path / "archive"
    paths = pdfs.reports(archive, [f"Annual Report {1990 + number}" for number in range(3)], "report")
    # the held document's claim is not renewed while the test holds its row, from before the killed run loads its
    # engine and parses its first batch until the early run below has registered: the lease outlasts both
    url, lease = new_database_url(), 60
    judge = {"FOLIO_CLAIM_LEASE_SECONDS": str(lease), "FOLIO_HEARTBEAT_SECONDS": "60"}  # silent after 240 s
    killed = FolioRun(archive, url, tmp_path / "home-1", **{**judge, "FOLIO_HEARTBEAT_SECONDS": "0.5"})
    killed.wait_for("pages to parse")
    with psycopg.connect(libpq_url(url)) as lock:
        lock.execute("SELECT id FROM documents WHERE first_source LIKE %s FOR UPDATE", (f"%/{paths[0].name}",))
        wait_for_lock_wait(libpq_url(url), "SELECT documents.id%FOR UPDATE")
        time.sleep(2)  # beats renew the claims it holds meanwhile
        killed.kill()
        lock.rollback()
    with psycopg.connect(libpq_url(url), autocommit=True) as connection:
        connection.execute("UPDATE runs SET machine = 'another-machine'")  # its process cannot be looked at
        left = connection.execute("SELECT min(claimed_until - r.heartbeat_at), max(claimed_until - r.heartbeat_at) "
                                  "FROM documents d JOIN runs r ON r.flow_run_id = d.claimed_by "
                                  "WHERE first_source NOT LIKE %s", (f"%/{paths[0].name}",)).fetchone()
    assert timedelta(seconds=lease - 1) <= left[0] <= left[1] <= timedelta(seconds=lease)  # the held one: less

    early = FolioRun(archive, url, tmp_path / "home-2", **judge)
    assert early.finish() == 0, "".join(early.lines)[-3000:]
    assert "  files  3 listed: 3 duplicate" in "".join(early.lines)
    with psycopg.connect(libpq_url(url)) as connection:
        until = connection.execute("SELECT max(claimed_until) - now() FROM documents").fetchone()[0]
    time.sleep(max(0.0, until.total_seconds()) + 1)
    late = FolioRun(archive, url, tmp_path / "home-2", **judge)
    assert late.finish() == 0, "".join(late.lines)[-3000:]
    summary = "".join(line for line in late.lines if line.startswith(("folio run", "  ")))
    assert "  files  3 listed: 3 done\n  pages  4 parsed, 2 reused\n" in summary, summary  # the reports' same page
    with psycopg.connect(libpq_url(url)) as connection:
        assert connection.execute("SELECT count(*), count(DISTINCT (document_id, page_no)) FROM pages").fetchone() \
            == (6, 6)


@pytest.mark.parametrize("layout", ["one home", "three homes"])
def test_three_runs_at_once_store_every_page_once_and_each_summary_is_its_row(
        layout: str, tmp_path: Path, session_dir: Path, new_database_url: Callable[[], str]):
    """Three runs over the same archive, started together (each with its own Prefect temporary server; in one home
    they share its Prefect database and embedded PostgreSQL): every page is stored once, every document done by
    one run and a duplicate for the others (or unchanged, when it was done before they registered its file), and
    what each run prints is what its row holds."""
    archive = tmp_path / "archive"
    pdfs.reports(archive, [f"Annual Report {1990 + number}" for number in range(6)], "report")
    base = session_dir / f"three-{uuid.uuid4().hex[:8]}"
    homes = [base / ("home" if layout == "one home" else f"home-{number}") for number in range(3)]
    with server_for("one home" if layout == "one home" else "two homes", homes[0], new_database_url) as (url, given):
        runs = [FolioRun(archive, given, home) for home in homes]
        for run in runs:
            assert run.finish() == 0, "".join(run.lines)[-3000:]
        outcomes = [str(outcome) for outcome in FileOutcome]
        with psycopg.connect(libpq_url(url)) as connection:
            rows = connection.execute(f"SELECT id, status, files_listed, pages_parsed, pages_reused, "
                                      f"{', '.join(f'documents_{o}' for o in outcomes)} FROM runs ORDER BY id"
                                      ).fetchall()
        totals = run_totals(url)
    for run_id, status, listed, parsed, reused, *counts in rows:
        summary = next("".join(run.lines) for run in runs if f"folio run {run_id}: " in "".join(run.lines))
        counted = dict(zip(outcomes, counts, strict=True))
        # a file another run finished before this one registered it is unchanged (seen, done), not a duplicate
        assert status == "completed" and listed == 6, counted
        assert counted["done"] + counted["duplicate"] + counted["unchanged"] == 6, counted
        files = ", ".join(f"{count} {outcome}" for outcome, count in counted.items() if count)
        assert f"  files  6 listed: {files}\n  pages  {parsed} parsed, {reused} reused\n" in summary, summary
    pages, (handled, done, _), statuses = totals
    assert (pages, handled, done, statuses) == ((12, 12), 12, 6, [("done", None)])  # each document done by one run
