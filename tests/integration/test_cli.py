"""The `folio` command as a user runs it: a separate process, the embedded PostgreSQL, ephemeral Prefect."""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from base.migrate import head_revision
from db.embedded import get_server
from db.passwords import passfile
from db.server import start_embedded
from engine import ENGINE_VERSION


@pytest.fixture(scope="module")
def folio_home(session_dir: Path) -> Path:
    return session_dir / "cli" / "home"  # not under pytest's 0700 folders: as root the server runs as another user


def folio(home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FOLIO_", "PREFECT_"))}
    env.update(FOLIO_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
    return subprocess.run([sys.executable, "-m", "folio.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def demo(folio_home: Path) -> subprocess.CompletedProcess:
    return folio(folio_home, "demo")


def test_demo_prints_the_summary_and_stored_blocks(demo: subprocess.CompletedProcess, folio_home: Path):
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "  files  2 listed: 2 done\n" in demo.stdout
    assert "pages/s" in demo.stdout
    assert "folio: parsing 3 pages" in demo.stderr and "folio: 3/3 pages" in demo.stderr  # not a terminal: lines
    assert "Finished in state" not in demo.stderr and "great_expectations" not in demo.stderr
    assert "Annual Report of the Municipal Archive" in demo.stdout
    assert "harbour-letter-scan.pdf" in demo.stdout
    assert (folio_home / "pgdata" / "PG_VERSION").exists()


def test_demo_again_stores_nothing_new(demo: subprocess.CompletedProcess, folio_home: Path):
    again = folio(folio_home, "demo")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "  files  2 listed: 2 unchanged\n" in again.stdout


def test_sql_reads_and_refuses_writes(demo: subprocess.CompletedProcess, folio_home: Path, tmp_path: Path):
    read = folio(folio_home, "sql", "SELECT count(*) AS documents FROM documents")
    assert read.returncode == 0 and read.stdout == "documents\n2\n"  # into a pipe: CSV
    stored = "SELECT (SELECT count(*) FROM document_sources), (SELECT count(DISTINCT page_id) FROM blocks), ':foo'"
    before = folio(folio_home, "sql", stored)
    assert before.returncode == 0 and before.stdout == "count,count_2,column\n2,3,:foo\n", before.stdout
    marker = tmp_path / "ran"
    refused = {"DELETE FROM blocks": "read-only transaction",
               "COMMIT; DELETE FROM document_sources WHERE id = 2": "one statement per call",
               f"COPY (SELECT 1) TO PROGRAM 'id > {marker}'": "permission denied",
               "SELECT pg_read_file('/etc/passwd')": "permission denied"}
    for query, reason in refused.items():
        write = folio(folio_home, "sql", query)
        assert write.returncode == 1 and write.stdout == "" and reason in write.stderr, query
        assert write.stderr.count("\n") == 1 and "Traceback" not in write.stderr, query
    assert not marker.exists()
    assert folio(folio_home, "sql", stored).stdout == before.stdout  # still all there


def test_the_embedded_server_asks_for_its_password(demo: subprocess.CompletedProcess, folio_home: Path):
    rules = [line for line in (folio_home / "pgdata" / "pg_hba.conf").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert rules and not any("trust" in line for line in rules)
    assert stat.S_IMODE((folio_home / "pgpass").stat().st_mode) == 0o600
    pgdata = folio_home / "pgdata"  # also the socket's folder: 0700
    assert stat.S_IMODE(pgdata.stat().st_mode) == 0o700
    start_embedded(pgdata)  # as a long-running folio process (`folio serve`) would: the server runs meanwhile
    try:
        for password in (None, "guessed"):
            with pytest.raises(psycopg.OperationalError, match="no password supplied|password authentication failed"):
                psycopg.connect(host=str(pgdata), user="postgres", dbname="folio", password=password)
        with psycopg.connect(host=str(pgdata), user="postgres", dbname="folio",
                             passfile=str(folio_home / "pgpass")) as connection:
            assert connection.execute("SELECT count(*) FROM documents").fetchone() == (2,)
    finally:
        get_server(pgdata, passfile(folio_home)).cleanup()


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
    assert result.stderr == f"folio run: source not found: {folio_home / 'no-such-folder'}\n"


def test_version_and_help(folio_home: Path):
    version = folio(folio_home, "--version")
    assert version.returncode == 0
    lines = version.stdout.splitlines()
    assert re.fullmatch(rf"engine {re.escape(ENGINE_VERSION)}\+[0-9a-f]{{12}}", lines[1])
    assert lines[2] == f"  code: {ENGINE_VERSION}" and "  setting ocr_dpi: 150" in lines
    assert any(re.fullmatch(r"  model text recognition: [0-9a-f]{12}", line) for line in lines)
    assert lines[-1] == f"schema head {head_revision()}"
    page = folio(folio_home, "export", "--help")
    assert page.returncode == 0 and "--source GLOB" in page.stdout
    assert "examples:\n  folio export --out exports/" in page.stdout
