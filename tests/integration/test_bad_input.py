"""One file or page never stops a run: each bad one is failed with its reason, its neighbours are done, nothing is
left processing, and no document stores pages of bytes other than those it was hashed from."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest
from sqlalchemy import Engine, select, text

from base.settings import get_settings
from db.models import Document, DocumentSource, Page
from flows.digitize import digitize
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from pages.pdf import page_fingerprint
from sources.listing import uri_path
from tasks import parse, register  # the tasks call the names patched here
from tests import pdfs
from tests.integration.folio_process import folio_env


def outcomes(database: Engine) -> dict[str, tuple[str, str | None]]:
    """(status, error) of every document, by the last part of each URI it was seen at."""
    with database.connect() as connection:
        rows = connection.execute(select(DocumentSource.uri, Document.status, Document.error).join(Document)).all()
    return {uri.rsplit("/", 1)[-1]: (status, error) for uri, status, error in rows}


def unfinished(database: Engine) -> list[tuple[str, str]]:
    with database.connect() as connection:
        return [tuple(row) for row in connection.execute(text(
            "SELECT first_source, status FROM documents WHERE status NOT IN ('done', 'failed', 'quarantined') "
            "OR claimed_by IS NOT NULL"))]


def ledger(folder: Path, name: str, pages: int = 1) -> Path:
    """A good born-digital PDF of its own (its text differs by name, so no two are the same document)."""
    return born_digital_pdf(folder / name, [PageSpec(title=f"Ledger {name} page {n}", paragraphs=PARAGRAPHS[n:n + 2])
                                            for n in range(pages)])


def test_broken_page_trees_and_odd_metadata_and_names_fail_alone(database: Engine, tmp_path: Path):
    folder = tmp_path / "delivery"
    folder.mkdir()
    pdfs.two_column_pdf(folder)
    pdfs.lying_count_pdf(folder)
    pdfs.repeated_page_pdf(folder)
    pdfs.page_tree_cycle_pdf(folder)
    pdfs.invalid_unicode_metadata_pdf(folder)
    odd_name = os.fsencode(folder) + b"/minutes-caf\xe9.pdf"  # Latin-1, not UTF-8
    shutil.copyfile(ledger(tmp_path, "minutes.pdf"), odd_name)

    summary = digitize(source=str(folder), batch_size=2)  # the cycle's page shares a batch with the report's

    found = outcomes(database)
    assert found["report.pdf"] == ("done", None)
    assert found["lying-count.pdf"] == ("failed", "corrupt: invalid number of pages")
    assert found["repeated-page.pdf"] == ("failed", "corrupt: invalid number of pages")
    assert found["page-tree-cycle.pdf"] == ("failed", "no page could be read: corrupt: cycle in page tree")
    assert found["odd-title.pdf"] == ("done", None)
    assert found["minutes-caf\\xe9.pdf"] == ("done", None)
    assert (summary.files_listed, summary.documents_done, summary.documents_failed) == (6, 3, 3)
    assert unfinished(database) == []
    with database.connect() as connection:
        metadata = connection.execute(select(Document.metadata_).where(Document.first_source.like("%odd-title.pdf"))
                                      ).scalar_one()
        uri = connection.execute(select(DocumentSource.uri).where(DocumentSource.uri.like("%caf%"))).scalar_one()
        page_error = connection.execute(select(Page.error).join(Document).where(
            Document.first_source.like("%page-tree-cycle.pdf"))).scalar_one()
    assert metadata["title"] == "A\ufffd\ufffd\ufffd" and metadata["sanitized"] == ["title"]
    assert metadata["author"] == "Harbour Board"
    assert os.fsencode(uri_path(uri)) == odd_name  # the name as stored gives the very file back
    assert page_error == "corrupt: cycle in page tree"


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem for a real EIO")
def test_links_out_of_the_folder_are_refused_unless_followed_and_io_errors_fail_alone(
        database: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder, elsewhere = tmp_path / "delivery", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    ledger(folder, "ledger.pdf")
    (folder / "link-out.pdf").symlink_to(ledger(elsewhere, "outside.pdf"))
    digitize(source=str(folder))
    assert outcomes(database)["link-out.pdf"] == (
        "failed", "refused: a symbolic link out of the source folder (FOLIO_FOLLOW_SYMLINKS=1 follows it)")

    followed = tmp_path / "followed"
    followed.mkdir()
    ledger(followed, "neighbour.pdf")
    (followed / "link-out.pdf").symlink_to(elsewhere / "outside.pdf")
    (followed / "io-error.pdf").symlink_to("/proc/self/mem")  # a regular file whose every read fails with EIO
    monkeypatch.setenv("FOLIO_FOLLOW_SYMLINKS", "1")
    get_settings.cache_clear()
    summary = digitize(source=str(followed))

    found = outcomes(database)
    assert found["mem"] == ("failed", "unreadable: input/output error")
    assert found["outside.pdf"] == ("done", None)
    assert found["neighbour.pdf"] == ("done", None)
    assert (summary.files_listed, summary.documents_done, summary.documents_failed) == (3, 2, 1)
    assert unfinished(database) == []


def test_files_that_vanish_after_listing_or_registration_fail_alone_and_are_read_when_back(
        database: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "delivery"
    folder.mkdir()
    for name in ("a-first.pdf", "b-listed-then-gone.pdf", "c-registered-then-gone.pdf", "d-last.pdf"):
        ledger(folder, name)
    kept = {name: (folder / name).read_bytes() for name in ("b-listed-then-gone.pdf", "c-registered-then-gone.pdf")}
    real_register, real_parse = register.register_files, parse.parse_batch_pages

    def delete_then_register(files, *args, **kwargs):
        (folder / "b-listed-then-gone.pdf").unlink()
        return real_register(files, *args, **kwargs)

    def delete_then_parse(batch, *args, **kwargs):
        (folder / "c-registered-then-gone.pdf").unlink(missing_ok=True)
        return real_parse(batch, *args, **kwargs)

    monkeypatch.setattr(register, "register_files", delete_then_register)
    monkeypatch.setattr(parse, "parse_batch_pages", delete_then_parse)
    summary = digitize(source=str(folder), batch_size=1)

    found = outcomes(database)
    assert found["b-listed-then-gone.pdf"] == ("failed", "vanished during the run")
    assert found["c-registered-then-gone.pdf"] == ("failed", "vanished during the run")
    assert found["a-first.pdf"] == found["d-last.pdf"] == ("done", None)
    assert (summary.documents_done, summary.documents_failed) == (2, 2)
    assert unfinished(database) == []

    monkeypatch.undo()
    for name, data in kept.items():
        (folder / name).write_bytes(data)
    digitize(source=str(folder))
    assert {status for status, _ in outcomes(database).values()} == {"done"}  # the failed records are gone
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM documents")).scalar() == 4


def test_a_file_replaced_after_registration_stores_no_page_of_other_bytes(database: Engine, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "delivery"
    folder.mkdir()
    ledger(folder, "a-neighbour.pdf")
    ledger(folder, "b-replaced-before-parsing.pdf", pages=2)
    ledger(folder, "c-replaced-between-batches.pdf", pages=3)
    replacement = ledger(tmp_path, "replacement.pdf", pages=3).read_bytes()
    hashed = {hashlib.sha256(path.read_bytes()).hexdigest(): path.read_bytes() for path in folder.iterdir()}
    real_parse = parse.parse_batch_pages

    def replace_then_parse(batch, *args, **kwargs):
        names = {Path(ref.path).name: ref.page_no for ref in batch.pages}
        if names.get("b-replaced-before-parsing.pdf") == 1 or names.get("c-replaced-between-batches.pdf") == 2:
            for name in names:
                (folder / name).write_bytes(replacement)
        return real_parse(batch, *args, **kwargs)

    monkeypatch.setattr(parse, "parse_batch_pages", replace_then_parse)
    digitize(source=str(folder), batch_size=1)

    found = outcomes(database)
    assert found["a-neighbour.pdf"] == ("done", None)
    for name in ("b-replaced-before-parsing.pdf", "c-replaced-between-batches.pdf"):
        status, error = found[name]
        assert status == "failed" and error.startswith("changed during the run: the file no longer holds the bytes")
    assert unfinished(database) == []
    with database.connect() as connection:
        stored = connection.execute(select(Document.sha256, Page.page_no, Page.fingerprint, Page.status)
                                    .join(Page)).all()
    done = [(sha256, page_no, fingerprint) for sha256, page_no, fingerprint, status in stored if status == "done"]
    assert len(done) == 2  # the neighbour's page and the first page of the file replaced between batches
    for sha256, page_no, fingerprint in done:
        with pymupdf.open(stream=hashed[sha256]) as document:
            assert fingerprint == page_fingerprint(document[page_no - 1])


def test_a_page_of_fifty_thousand_text_objects_is_parsed_within_its_budget(database: Engine, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "delivery"
    folder.mkdir()
    pdfs.text_objects_pdf(folder, 50_000)
    ledger(folder, "neighbour.pdf")
    monkeypatch.setenv("FOLIO_PAGE_TIMEOUT_SECONDS", "120")
    get_settings.cache_clear()
    digitize(source=str(folder), batch_size=2)
    assert outcomes(database) == {"text-objects-50000.pdf": ("done", None), "neighbour.pdf": ("done", None)}
    with database.connect() as connection:
        characters = connection.execute(text(
            "SELECT sum(length(replace(b.text, ' ', ''))) FROM blocks b JOIN pages p ON p.id = b.page_id "
            "JOIN documents d ON d.id = p.document_id WHERE d.first_source LIKE '%text-objects-50000.pdf'")).scalar()
    assert characters == 50_000


# an interruption that lands in a callback Python ignores is reported as unraisable there, and raised again
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize(("setting", "value", "objects", "reason"), [
    ("FOLIO_PAGE_MAX_TEXT_OBJECTS", "10000", 50_000,
     "over budget: 50,000 text objects on the page, FOLIO_PAGE_MAX_TEXT_OBJECTS is 10,000"),
    ("FOLIO_PAGE_TIMEOUT_SECONDS", "1", 100_000, "over budget: "),
])
def test_a_page_over_its_budget_fails_alone(database: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            setting: str, value: str, objects: int, reason: str):
    folder = tmp_path / "delivery"
    folder.mkdir()
    pdfs.text_objects_pdf(folder, objects)
    ledger(folder, "neighbour.pdf")
    monkeypatch.setenv(setting, value)
    get_settings.cache_clear()
    summary = digitize(source=str(folder), batch_size=2)
    found = outcomes(database)
    status, error = found[f"text-objects-{objects}.pdf"]
    assert status == "failed" and error.startswith(f"no page could be read: {reason}") and setting in error
    assert found["neighbour.pdf"] == ("done", None)
    assert summary.documents_done == 1
    assert unfinished(database) == []


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem for a real EIO")
def test_the_command_exits_0_with_unreadable_files_and_names_that_are_not_utf8(empty_database: str,
                                                                                 database: Engine, tmp_path: Path):
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/deliv\xe9ry"))  # the folder given, and a file in it
    folder.mkdir()
    shutil.copyfile(ledger(tmp_path, "ledger.pdf"), folder / "ledger.pdf")  # PyMuPDF saves to UTF-8 names only
    shutil.copyfile(ledger(tmp_path, "minutes.pdf"), os.fsencode(folder) + b"/minutes-caf\xe9.pdf")
    (folder / "io-error.pdf").symlink_to("/proc/self/mem")
    expected = {"ledger.pdf": ("done", None), "minutes-caf\\xe9.pdf": ("done", None),
                "mem": ("failed", "unreadable: input/output error")}
    if os.geteuid() != 0:  # root reads any file (tests/unit/test_files.py drops its capabilities to check this case)
        shutil.copyfile(ledger(tmp_path, "locked.pdf"), folder / "locked.pdf")
        (folder / "locked.pdf").chmod(0)
        expected["locked.pdf"] = ("failed", "unreadable: permission denied")
    done = subprocess.run([sys.executable, "-m", "folio.cli", "run", str(folder)], capture_output=True, text=True,
                          env=folio_env(empty_database, tmp_path / "home", FOLIO_FOLLOW_SYMLINKS="1"), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert outcomes(database) == expected
    assert unfinished(database) == []
