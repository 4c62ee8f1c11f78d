"""`folio export` in every format with its filters, and `folio show`, run as a person runs them: a separate process
against a database that holds a known document."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from tests.integration.folio_process import folio_env
from tests.integration.stored import LATEX, StoredSample, store_sample


def folio(url: str, home: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "folio.cli", *arguments], env=folio_env(url, home),
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def stored(database: Engine, empty_database: str, tmp_path: Path) -> StoredSample:
    """The known document and a second one seen elsewhere, in a database at head."""
    sample = store_sample(database, tmp_path / "archive")
    store_sample(database, tmp_path / "elsewhere", "accounts-1932.pdf")
    with database.begin() as connection:  # the other one changed long ago
        connection.execute(text("UPDATE documents SET updated_at = '2020-01-01' WHERE id <> :id"),
                           {"id": sample.document_id})
    return sample


def test_markdown_of_one_document_to_stdout(stored: StoredSample, empty_database: str, tmp_path: Path):
    result = folio(empty_database, tmp_path / "home", "export", "--format", "markdown", "--source",
                   "*minutes-1931*", "--out", "-")
    assert result.returncode == 0, result.stderr
    markdown = result.stdout
    assert markdown.startswith("# Minutes of the Harbour Board\n")
    assert "\n## Tonnage\n" in markdown
    assert "| Year | Ships |\n|---|---|\n| 1930 | 412 |\n| 1931 | 398 |" in markdown
    assert f"$$\n{LATEX}\n$$" in markdown
    assert "- Dredging of the inner basin\n- Lighthouse repairs" in markdown
    assert "\\# of members present" in markdown  # text that would read as a heading is escaped
    assert "<!-- image -->" in markdown and "Figure 1: the inner basin" in markdown
    assert "Harbour Board - Minutes 1931" not in markdown  # the running header, left out
    assert "<!-- page 2: quarantined: every block failed validation -->" in markdown
    assert folio(empty_database, tmp_path / "home", "show", stored.sha256[:10]).stdout == markdown
    assert folio(empty_database, tmp_path / "home", "show", str(stored.pdf)).stdout == markdown


def test_filters_choose_the_documents(stored: StoredSample, empty_database: str, tmp_path: Path):
    home, runs = tmp_path / "home", itertools.count()

    def exported(*filters: str, fmt: str = "json") -> set[str]:
        out = tmp_path / f"out-{next(runs)}"
        result = folio(empty_database, home, "export", "--format", fmt, "--out", str(out), *filters)
        assert result.returncode == 0, result.stderr
        return {path.name for path in out.iterdir()} if out.exists() else set()

    mine, other = f"{stored.sha256}.json", exported("--source", "*accounts*").pop()
    assert exported() == {mine, other}
    assert exported("--id", str(stored.document_id)) == {mine}
    assert exported("--sha256", stored.sha256[:8]) == {mine}
    assert exported("--source", "*/archive/*") == {mine}
    assert exported("--since", "2024-01-01") == {mine}
    assert exported("--source", "*minutes*", "--since", "2024-01-01", fmt="text") == {f"{stored.sha256}.txt"}
    assert exported("--source", "*nothing-like-it*") == set()
    assert exported("--id", str(stored.document_id), fmt="html") == {f"{stored.sha256}.html"}
    assert exported("--id", str(stored.document_id), fmt="markdown") == {f"{stored.sha256}.md"}
    document = json.loads(folio(empty_database, home, "export", "--id", str(stored.document_id), "--out", "-").stdout)
    assert document["document"]["sha256"] == stored.sha256 and document["pages"][0]["blocks"][0]["type"] == "header"


@pytest.mark.parametrize(("arguments", "message"), [
    (["export", "--out", "-"], "2 finished documents match, not one"),
    (["export", "--id", "999999", "--out", "-"], "no stored document has id 999999"),
    (["export", "--sha256", "abc", "--out", "exports"], "a sha256 prefix needs at least 8 characters: abc"),
    (["show", "abc"], "a sha256 prefix needs at least 8 characters: abc"),
    (["show", "deadbeefdeadbeef"], "no stored document's sha256 starts with deadbeefdeadbeef"),
    (["show", "/no/such/minutes.pdf"], "no stored document was seen at /no/such/minutes.pdf"),
    (["inspect", "deadbeefdeadbeef", "--out", "page.png"], "no stored document's sha256 starts with"),
])
def test_a_document_that_is_not_there_is_one_line(stored: StoredSample, empty_database: str, tmp_path: Path,
                                                   arguments: list[str], message: str):
    result = folio(empty_database, tmp_path / "home", *arguments)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"folio {arguments[0]}: {message}") and result.stderr.count("\n") == 1
