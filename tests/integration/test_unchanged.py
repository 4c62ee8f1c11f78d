"""A second run of a folder: files as they were are unchanged and not read; copies, touched and changed files are."""

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
from sqlalchemy import Engine, event, text

from base.database import database as configured_database
from base.settings import Settings, get_settings
from db.store import Claim
from flows.digitize import digitize
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from runs import register
from sources.listing import list_source
from tasks import parse
from tests import pdfs
from tests.integration.folio_process import FolioProcess


def one_page(folder: Path, name: str, title: str) -> Path:
    return born_digital_pdf(folder / name, [PageSpec(title=title, paragraphs=PARAGRAPHS[:1])])


@pytest.fixture
def delivery(tmp_path: Path) -> Path:
    folder = tmp_path / "delivery"
    folder.mkdir()
    for name in ("a.pdf", "b.pdf", "c.pdf", "d.pdf"):
        one_page(folder, name, f"Minutes of the harbour board, file {name}")
    pdfs.empty_pdf(folder)
    return folder


def last_seen(database: Engine) -> dict[str, object]:
    with database.connect() as connection:
        rows = connection.execute(text("SELECT uri, last_seen_at FROM document_sources")).all()
    return {Path(uri).name: seen for uri, seen in rows}


def spy_on_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files whose bytes registration reads from now on."""
    hashed: list[str] = []
    real_hash = register.hash_file
    monkeypatch.setattr(register, "hash_file", lambda path, limit: hashed.append(path.name) or real_hash(path, limit))
    return hashed


def test_a_rerun_reads_only_new_touched_and_changed_files(database: Engine, delivery: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    first = digitize(source=str(delivery))
    assert (first.documents_done, first.documents_failed, first.documents_unchanged) == (4, 1, 0)
    seen_first = last_seen(database)

    (delivery / "copy-of-a.pdf").write_bytes((delivery / "a.pdf").read_bytes())  # the same bytes at a new path
    touched = delivery / "b.pdf"  # a new time, the same bytes
    os.utime(touched, (touched.stat().st_atime, touched.stat().st_mtime + 60))
    one_page(delivery, "c.pdf", "Minutes of the harbour board, rewritten")  # other bytes, another size and time
    # d.pdf's bytes replaced by others of the same length, its time put back: only reading it would tell, and
    # an unchanged file is not read (where the tests do not run as root, it cannot even be opened)
    changed_unseen = delivery / "d.pdf"
    info = changed_unseen.stat()
    changed_unseen.write_bytes(changed_unseen.read_bytes()[::-1])
    os.utime(changed_unseen, ns=(info.st_atime_ns, info.st_mtime_ns))
    if os.geteuid() != 0:
        changed_unseen.chmod(0)
    hashed = spy_on_reads(monkeypatch)

    second = digitize(source=str(delivery))

    assert sorted(hashed) == ["b.pdf", "c.pdf", "copy-of-a.pdf"]
    assert (second.files_listed, second.documents_unchanged, second.documents_duplicate, second.documents_done,
            second.documents_failed) == (6, 4, 1, 1, 0)  # a, b (read: the same bytes), d, empty; the copy; c
    assert second.pages_parsed == 1
    with database.connect() as connection:
        run = connection.execute(text(
            "SELECT files_listed, documents_unchanged, documents_done, documents_duplicate, documents_reused, "
            "documents_failed, documents_quarantined FROM runs ORDER BY id DESC LIMIT 1")).one()
        seen_at_c = connection.execute(text(
            "SELECT d.status FROM document_sources s JOIN documents d ON d.id = s.document_id "
            "WHERE s.uri LIKE '%/c.pdf'")).scalars().all()
    assert run[0] == sum(run[1:]) == 6 and run[1] == 4
    assert seen_at_c == ["done", "done"]  # c.pdf's old document and its new one
    seen_second = last_seen(database)
    assert all(seen_second[name] > seen_first[name] for name in ("a.pdf", "d.pdf", "empty.pdf"))


def test_nothing_new_loads_no_model_and_says_unchanged_everywhere(database: Engine, delivery: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(delivery))
    hashed = spy_on_reads(monkeypatch)

    def no_model() -> None:
        raise AssertionError("a model was loaded with nothing to parse")

    monkeypatch.setattr(parse, "get_pipeline", no_model)
    state = digitize(source=str(delivery), return_state=True)
    summary = state.result()
    assert hashed == []
    assert (summary.files_listed, summary.documents_unchanged, summary.pages_parsed) == (5, 5, 0)
    with get_client(sync_client=True) as client:
        artifacts = {artifact.key: artifact for artifact in client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(
                any_=[state.state_details.flow_run_id])))}
    [table] = json.loads(artifacts["run-summary"].data)
    assert (table["files listed"], table["unchanged"], table["duplicate"], table["done"]) == (5, 5, 0, 0)
    assert artifacts["run-progress"].data == 100.0  # nothing to parse is all of it done
    with database.connect() as connection:
        assert connection.execute(text("SELECT status, documents_unchanged FROM runs ORDER BY id DESC")).first() \
            == ("completed", 5)


def test_seen_files_are_looked_up_in_one_query_and_never_read(database: Engine, delivery: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    digitize(source=str(delivery))
    files = list_source(str(delivery))

    def no_read(path: Path, limit: int) -> None:
        raise AssertionError(f"{path} was read")

    monkeypatch.setattr(register, "hash_file", no_read)
    statements: list[str] = []
    event.listen(database, "before_cursor_execute", lambda conn, cursor, sql, *rest: statements.append(sql))
    registered = register.register_files(files, database, get_settings().max_file_bytes, Claim("test", 60))
    assert [item.outcome for item in registered] == ["unchanged"] * 5
    assert [sql.split()[0] for sql in statements] == ["SELECT", "UPDATE"]  # the lookup, then last_seen_at


def test_folio_run_with_nothing_new_is_recorded_without_prefect_unless_a_server_is_configured(
        new_database_url: Callable[[], str], delivery: Path, tmp_path: Path):
    url, home = new_database_url(), tmp_path / "home"

    def folio_run(**settings: str) -> str:
        run = FolioProcess(["run", str(delivery)], url, home, **settings)
        assert run.finish() == 0, "".join(run.lines)[-3000:]
        return "".join(run.lines)

    first = folio_run()
    assert "folio: starting Prefect" in first and "  files  5 listed: 4 done, 1 failed\n" in first
    again = folio_run()
    assert "  files  5 listed: 5 unchanged\n" in again and "starting Prefect" not in again
    from prefect.settings import PREFECT_API_URL  # the tests' Prefect server

    with_server = folio_run(PREFECT_API_URL=PREFECT_API_URL.value())
    assert "folio: starting Prefect" in with_server and "  files  5 listed: 5 unchanged\n" in with_server
    with configured_database(Settings(database_url=url)).connect() as connection:
        runs = connection.execute(text(
            "SELECT status, flow_run_id, files_listed, documents_unchanged FROM runs ORDER BY id")).all()
    assert [(status, listed, unchanged) for status, _, listed, unchanged in runs] == [
        ("completed", 5, 0), ("completed", 5, 5), ("completed", 5, 5)]
    assert runs[1].flow_run_id is None  # recorded by folio alone: Prefect's temporary server was not started
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(uuid.UUID(runs[2].flow_run_id)).state.is_completed()
