"""The real flow on real PostgreSQL: a page parsed by one pipeline is reused by the same pipeline, parsed again once
the formula model is enabled, and its document is chosen by `reprocess --engine-version` (without a value)."""

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from base.engines import engine_identity
from base.settings import get_settings
from db.store import OTHER_VERSIONS, Selection
from engine import ENGINE_VERSION
from flows.digitize import digitize
from flows.reprocess import reprocess
from runs.reopen import select_documents
from tests import pdfs


@pytest.fixture
def formula_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """Sets FOLIO_FORMULA_MODEL; returns the configured pipeline's version."""
    def use(value: str) -> str:
        monkeypatch.setenv("FOLIO_FORMULA_MODEL", value)
        get_settings.cache_clear()
        return engine_identity().version

    yield use
    get_settings.cache_clear()


def versions(database: Engine) -> dict[int, set[str]]:
    with database.connect() as connection:
        rows = connection.execute(text("SELECT document_id, engine_version FROM pages WHERE status = 'done'"))
        found: dict[int, set[str]] = {}
        for document_id, version in rows:
            found.setdefault(document_id, set()).add(version)
        return found


def copy_of(source: Path, folder: Path) -> Path:
    """The same pages in other bytes: reusable by fingerprint."""
    folder.mkdir()
    (folder / source.name).write_bytes(source.read_bytes() + f"% copied to {folder.name}\n".encode())
    return folder


def test_pages_of_another_pipeline_are_not_reused_and_are_chosen_for_reprocess(
        database: Engine, tmp_path: Path, formula_model: Callable[[str], str]):
    pytest.importorskip("latex_ocr_junia")
    (first := tmp_path / "first").mkdir()
    report = pdfs.two_column_pdf(first)
    without_formulas = formula_model("none")
    assert digitize(source=str(first)).pages_parsed == 2
    assert versions(database) == {1: {without_formulas}}

    reused = digitize(source=str(copy_of(report, tmp_path / "second")))  # the same pipeline: copied
    assert (reused.pages_parsed, reused.pages_reused) == (0, 2)

    with_formulas = formula_model("auto")
    assert with_formulas != without_formulas and with_formulas.startswith(f"{ENGINE_VERSION}+")
    parsed = digitize(source=str(copy_of(report, tmp_path / "third")))  # the formula model enabled: parsed again
    assert (parsed.pages_parsed, parsed.pages_reused) == (2, 0)
    assert versions(database) == {1: {without_formulas}, 2: {without_formulas}, 3: {with_formulas}}

    assert select_documents(database, Selection(engine_version=OTHER_VERSIONS)) == [1, 2]
    assert select_documents(database, Selection(engine_version=without_formulas)) == [1, 2]
    assert select_documents(database, Selection(engine_version=ENGINE_VERSION)) == [1, 2, 3]  # every identity
    summary = reprocess(Selection(engine_version=OTHER_VERSIONS))
    assert (summary.files_listed, summary.pages_parsed, summary.pages_reused) == (2, 0, 4)  # copies of document 3
    assert versions(database) == {1: {with_formulas}, 2: {with_formulas}, 3: {with_formulas}}
