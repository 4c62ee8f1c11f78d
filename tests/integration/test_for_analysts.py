"""What data people and archivists use: the views, full-text search, the read-only role, page pictures, reports."""

import uuid
from pathlib import Path

import numpy as np
import psycopg
import pymupdf
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from base.database import database as configured_database
from base.migrate import upgrade
from base.settings import get_settings
from db.query import search_blocks
from db.roles import grant_reader
from db.server import libpq_url
from db.session import dispose_databases
from flows.digitize import digitize
from folio.annotate import COLOURS
from folio.cli import main as cli
from tests import pdfs


@pytest.fixture
def stored(database: Engine, tmp_path: Path) -> Path:
    """A folder of a page with a table and a formula, and a scanned letter, digitized."""
    folder = tmp_path / "archive"
    folder.mkdir()
    pdfs.formula_page_pdf(folder)
    pdfs.scan_pdf(folder)
    summary = digitize(source=str(folder))
    assert summary.documents_done == 2
    return folder


def rows(database: Engine, query: str, **parameters) -> list:
    with database.connect() as connection:
        return connection.execute(text(query), parameters).all()


def test_views_answer_the_common_questions(database: Engine, stored: Path):
    [(source, letter)] = rows(database, "SELECT source, text FROM document_text WHERE text LIKE '%Harbour Board%'")
    assert source == str(stored / "scan.pdf") and letter.index("Letter to the Harbour Board") == 0
    cells = {(row, col): (header, cell) for row, col, header, cell in rows(
        database, "SELECT row, col, is_header, text FROM table_cell_details WHERE source LIKE '%formula.pdf'")}
    assert cells[0, 0] == (True, "Series") and cells[1, 0] == (False, "Harbour ledgers")
    [(page_no, latex)] = rows(database, "SELECT page_no, latex FROM formula_details")
    assert page_no == 1 and "a" in latex and "=" in latex
    [(status, sources, done)] = rows(database, "SELECT status, sources, pages_done FROM document_overview "
                                               "WHERE :path = ANY(sources)", path=str(stored / "formula.pdf"))
    assert (status, sources, done) == ("done", [str(stored / "formula.pdf")], 1)
    assert rows(database, "SELECT regexp_replace(source, '^.*/', ''), page_no, type FROM block_details "
                          "WHERE search @@ phraseto_tsquery('simple', 'Harbour Board')") == [("scan.pdf", 1, "title")]


def test_search_finds_a_phrase_on_its_page(database: Engine, stored: Path, capsys: pytest.CaptureFixture):
    columns, hits = search_blocks(database, '"Harbour Board"')
    assert columns == ["source", "page", "type", "rank", "snippet"]
    assert hits[0][:3] == (str(stored / "scan.pdf"), 1, "title") and "[Harbour] [Board]" in hits[0][4]
    assert search_blocks(database, "zeppelin") == (columns, [])
    assert cli.main(["search", "harbour -board"]) == 0
    assert "[harbour] office" in capsys.readouterr().out  # the snippet's marks are printed, not taken as markup


def test_search_uses_the_gin_index(database: Engine):
    with database.begin() as connection:
        connection.execute(text("INSERT INTO documents (sha256, status, size_bytes, first_source, metadata) "
                                "VALUES (repeat('a', 64), 'done', 1, '/x.pdf', '{}')"))
        connection.execute(text("INSERT INTO pages (document_id, page_no, status) SELECT id, 1, 'done' FROM documents"))
        connection.execute(text(
            "INSERT INTO blocks (page_id, reading_order, type, x0, y0, x1, y1, text) "
            "SELECT (SELECT id FROM pages), n, 'text', 0, 0, 1, 1, "
            "       'minutes of meeting ' || n || CASE WHEN n % 5000 = 0 THEN ' zeppelin' ELSE '' END "
            "FROM generate_series(1, 50000) AS n"))
    with database.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM ANALYZE blocks"))  # as autovacuum would: statistics, GIN pending list merged
        plan = "\n".join(connection.execute(text(
            "EXPLAIN SELECT id FROM blocks WHERE search @@ websearch_to_tsquery('simple', 'zeppelin')")).scalars())
    assert "ix_blocks_search" in plan, plan
    assert len(search_blocks(database, "zeppelin")[1]) == 10


def test_the_reader_role_reads_and_cannot_write(database: Engine, stored: Path, empty_database: str):
    name = f"analyst_{uuid.uuid4().hex[:8]}"
    grant_reader(database, name, password="s3cret:pass")
    url = make_url(empty_database).difference_update_query(["passfile"]).set(username=name)
    try:
        for password in (None, "wrong") if embedded(empty_database) else ():  # asked for, and checked
            with pytest.raises(psycopg.OperationalError, match="password"):
                psycopg.connect(libpq_url(url.set(password=password).render_as_string(False)))
        with psycopg.connect(libpq_url(url.set(password="s3cret:pass").render_as_string(False)),
                             autocommit=True) as connection:
            assert connection.execute("SELECT count(*) FROM document_text").fetchone()[0] == 2
            assert connection.execute("SELECT count(*) FROM blocks").fetchone()[0] > 0
            for statement in ("INSERT INTO runs (source, status) VALUES ('x', 'running')",
                              "UPDATE documents SET status = 'failed'", "DELETE FROM blocks",
                              "CREATE TABLE notes (x int)"):
                with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                    connection.execute(statement)
                with connection.transaction():  # even with read-only switched off, it may not write
                    connection.execute("SET LOCAL transaction_read_only = off")
                    with pytest.raises(psycopg.errors.InsufficientPrivilege):
                        connection.execute(statement)
    finally:
        with database.begin() as connection:
            connection.execute(text(f'DROP OWNED BY "{name}"; DROP ROLE "{name}"'))
    assert cli.main(["sql", "DELETE FROM blocks"]) == 1


@pytest.fixture
def two_documents(database: Engine) -> Engine:
    """Two documents, their sources, a page and a block: enough to see whether a query changed anything."""
    with database.begin() as connection:
        connection.execute(text("INSERT INTO documents (sha256, status, size_bytes, first_source, metadata) "
                                "VALUES (repeat('a', 64), 'done', 1, '/a.pdf', '{}'), "
                                "       (repeat('b', 64), 'done', 1, '/b.pdf', '{}')"))
        connection.execute(text("INSERT INTO document_sources (document_id, uri, size_bytes) "
                                "SELECT id, first_source, 1 FROM documents"))
        connection.execute(text("INSERT INTO pages (document_id, page_no, status) SELECT min(id), 1, 'done' "
                                "FROM documents"))
        connection.execute(text("INSERT INTO blocks (page_id, reading_order, type, x0, y0, x1, y1, text) "
                                "SELECT id, 0, 'text', 0, 0, 1, 1, 'minutes' FROM pages"))
    return database


def snapshot(database: Engine) -> list:
    """Every row folio's tables hold, and the tables and roles there are."""
    return rows(database, "SELECT (SELECT json_agg(d ORDER BY id) FROM documents d), "
                        "(SELECT json_agg(s ORDER BY id) FROM document_sources s), "
                        "(SELECT json_agg(b ORDER BY id) FROM blocks b), "
                        "(SELECT array_agg(tablename ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'), "
                        "(SELECT array_agg(rolname ORDER BY rolname) FROM pg_roles WHERE rolname !~ '^(pg_|t_)')")


def folio_sql(query: str, capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """The exit code, and the table printed or (on failure, with nothing on stdout) the error, in one line."""
    code = cli.main(["sql", "--format", "table", query])
    captured = capsys.readouterr()
    assert (captured.out if code else captured.err) == "", captured
    return code, " ".join((captured.err if code else captured.out).split())


def test_sql_runs_one_statement_as_a_reader_and_changes_nothing(two_documents: Engine, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture):
    code, output = folio_sql("SELECT ':foo' AS colon, '%s %d' AS percent, session_user, current_user", capsys)
    assert code == 0 and "│ :foo │ %s %d │ folio_reader │ folio_reader │" in output, output  # literal, as a reader
    assert "(1 rows)" in folio_sql("SELECT 1;", capsys)[1]  # a trailing ';' is one statement
    before = snapshot(two_documents)
    batches = ("COMMIT; DELETE FROM document_sources WHERE id = 2", "END; CREATE TABLE notes (x int)",
               "ROLLBACK; UPDATE documents SET status = 'failed'", "SELECT 1; SELECT 2")
    for query in batches:
        assert folio_sql(query, capsys) == (1, "folio sql: one statement per call: this query holds several, "
                                               "separated by ';'"), query
    marker = tmp_path / "ran"
    refused = {
        "DELETE FROM document_sources": "read-only transaction",
        f"COPY (SELECT 1) TO PROGRAM 'id > {marker}'": "permission denied",
        f"COPY (SELECT 1) TO '{marker}'": "permission denied",
        "SELECT pg_read_file('/etc/passwd')": "permission denied for function pg_read_file",
        "SELEC 1": 'syntax error at or near "SELEC" at character 1',
        "SELECT * FROM pg_ls_dir('.')": "permission denied for function pg_ls_dir",
        "SELECT rolname, rolpassword FROM pg_authid": "permission denied for table pg_authid",
        "SET ROLE postgres": "permission denied",
        "SELECT set_config('role', 'postgres', false)": "permission denied",
        "COPY documents TO STDOUT": "COPY is not supported",
    }
    for query, reason in refused.items():
        code, output = folio_sql(query, capsys)
        assert code == 1 and reason in output, (query, output)
    assert not marker.exists()
    assert snapshot(two_documents) == before


def test_sql_statements_have_a_time_limit(database: Engine, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture):
    monkeypatch.setenv("FOLIO_SQL_TIMEOUT_SECONDS", "0.5")
    get_settings.cache_clear()
    assert folio_sql("SELECT pg_sleep(30)", capsys) == (1, "folio sql: canceling statement due to statement timeout")


def test_sql_on_a_server_whose_owner_is_no_superuser(new_database_url, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """As on an external server: the owner in FOLIO_DATABASE_URL has CREATEROLE and owns folio's tables, no more."""
    admin_url = new_database_url()
    admin = make_url(admin_url)
    owner = f"owner_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(libpq_url(admin_url), autocommit=True) as connection:
        connection.execute(f'CREATE ROLE "{owner}" LOGIN CREATEROLE PASSWORD \'owner-pass\'')
        connection.execute(f'ALTER DATABASE "{admin.database}" OWNER TO "{owner}"')
    url = admin.difference_update_query(["passfile"]).set(username=owner, password="owner-pass")
    monkeypatch.setenv("FOLIO_DATABASE_URL", url.render_as_string(hide_password=False))
    get_settings.cache_clear()
    try:
        upgrade(configured_database())
        code, output = folio_sql("SELECT session_user, count(*) FROM documents", capsys)
        assert code == 0 and "│ folio_reader │ 0 │" in output, output
        assert "permission denied" in folio_sql("SELECT pg_read_file('/etc/passwd')", capsys)[1]

        with psycopg.connect(libpq_url(admin_url), autocommit=True) as connection:
            connection.execute(f'ALTER ROLE "{owner}" NOCREATEROLE')
        monkeypatch.setenv("FOLIO_HOME", str(tmp_path / "other-home"))  # whose folio_reader password differs
        get_settings.cache_clear()
        assert folio_sql("SELECT 1", capsys) == (2, f"folio sql: {owner} could not create or update the role "
                                                    "folio_reader: permission denied to alter role (Only roles with "
                                                    'the CREATEROLE attribute and the ADMIN option on role '
                                                    '"folio_reader" may alter this role.)')
    finally:
        dispose_databases()
        with psycopg.connect(libpq_url(admin_url), autocommit=True) as connection:
            connection.execute(f'REASSIGN OWNED BY "{owner}" TO CURRENT_USER')
            connection.execute(f'DROP OWNED BY "{owner}"')
            connection.execute(f'DROP ROLE "{owner}"')


def embedded(url: str) -> bool:
    """Whether the test database is on the suite's embedded server (not FOLIO_TEST_DATABASE_URL's)."""
    return "passfile" in make_url(url).query


def colour_pixels(png: Path, colour: tuple[float, float, float], tolerance: int = 40,
                  columns: slice = slice(None)) -> int:
    pixmap = pymupdf.Pixmap(str(png))
    picture = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width, pixmap.n)
    pixels = picture[:, columns, :3].reshape(-1, 3).astype(int)
    target = np.array([round(255 * c) for c in colour])
    return int(np.count_nonzero(np.all(np.abs(pixels - target) <= tolerance, axis=1)))


def test_inspect_draws_every_block_and_report_shows_them(database: Engine, stored: Path, tmp_path: Path):
    png = tmp_path / "page.png"
    assert cli.main(["inspect", str(stored / "formula.pdf"), "--page", "1", "--out", str(png)]) == 0
    pixmap = pymupdf.Pixmap(str(png))
    # A4 (595 x 842 pt: 910 x 1287 px at 110 dpi) with a 72 pt margin on each side for the labels, a legend below
    assert pixmap.width == 910 + 2 * 110 and pixmap.height > 1287
    for kind in ("table", "formula", "title", "text"):
        assert colour_pixels(png, COLOURS[kind]) > 200, kind  # its boxes and its labels are there
    assert colour_pixels(png, COLOURS["title"], columns=slice(0, 110)) > 20  # its label: beside the page, not on it
    plain = tmp_path / "plain.png"
    with pymupdf.open(stored / "formula.pdf") as document:
        document[0].get_pixmap(dpi=110).save(plain)
    assert colour_pixels(plain, COLOURS["formula"]) == 0

    [(sha256,)] = rows(database, "SELECT sha256 FROM documents WHERE first_source LIKE '%formula.pdf'")
    assert cli.main(["report", sha256[:10], "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "index.html").read_text()
    assert "<table>" in report and "<pre>" in report and 'src="page-1.png"' in report
    assert (tmp_path / "report" / "page-1.png").stat().st_size > 10_000
    assert cli.main(["inspect", "deadbeefdeadbeef", "--out", str(png)]) == 2
