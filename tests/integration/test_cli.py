"""The `folio` command as a user runs it: a separate process, the embedded PostgreSQL, ephemeral Prefect."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from db.migrate import head_revision


@pytest.fixture(scope="module")
def folio_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli") / "home"


def folio(home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOLIO_", "PREFECT_"))}
    env.update(FOLIO_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def demo(folio_home: Path) -> subprocess.CompletedProcess:
    return folio(folio_home, "demo")


def test_demo_prints_the_summary_and_stored_blocks(demo: subprocess.CompletedProcess, folio_home: Path):
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "files" in demo.stdout and "pages/s" in demo.stdout
    assert "Annual Report of the Municipal Archive" in demo.stdout
    assert "harbour-letter-scan.pdf" in demo.stdout
    assert (folio_home / "pgdata" / "PG_VERSION").exists()


def test_demo_again_stores_nothing_new(demo: subprocess.CompletedProcess, folio_home: Path):
    again = folio(folio_home, "demo")
    assert again.returncode == 0, again.stderr[-3000:]
    summary = next(line for line in again.stdout.splitlines() if line.startswith("│"))
    assert [cell.strip() for cell in summary.strip("│").split("│")][:3] == ["2", "0", "2"]


def test_sql_reads_and_refuses_writes(demo: subprocess.CompletedProcess, folio_home: Path):
    read = folio(folio_home, "sql", "SELECT count(*) AS documents FROM documents")
    assert read.returncode == 0 and "documents" in read.stdout and "2" in read.stdout
    write = folio(folio_home, "sql", "DELETE FROM blocks")
    assert write.returncode != 0
    assert "read-only transaction" in write.stdout + write.stderr
    assert "3" in folio(folio_home, "sql", "SELECT count(DISTINCT page_id) FROM blocks").stdout  # still all there


def test_status_export_and_db(demo: subprocess.CompletedProcess, folio_home: Path, tmp_path: Path):
    status = folio(folio_home, "status")
    assert status.returncode == 0 and "done" in status.stdout
    export = folio(folio_home, "export", "--out", str(tmp_path / "out"))
    assert export.returncode == 0, export.stderr[-2000:]
    files = list((tmp_path / "out").glob("*.json"))
    assert len(files) == 2
    assert all(json.loads(f.read_text())["document"]["status"] == "done" for f in files)
    assert f"schema revision: {head_revision()} (head)" in folio(folio_home, "db", "current").stdout


def test_a_missing_source_is_a_clear_error(folio_home: Path):
    result = folio(folio_home, "run", str(folio_home / "no-such-folder"))
    assert result.returncode == 2
    assert "source not found" in result.stdout
