"""`folio sql` for machines, run as a separate process against the session's PostgreSQL: CSV, TSV and JSON parsed
back with every value whole and typed, unique column names, --limit, and failures as one line on stderr."""

import csv
import io
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from tests.integration.folio_process import folio_env
from tests.integration.test_progress import run_on_a_terminal

LONG = "minutes of the harbour board, " * 200 + 'with "quotes",\ttabs\nand a second line\\'
TYPED = ("SELECT 7 AS i, 1.5::float8 AS f, 123456789012345678901234567890.123456789::numeric AS n, NULL AS z, "
         "true AS b, timestamptz '2026-11-01 08:00:00.25+00' AS t, date '2026-11-01' AS d, "
         "'{\"a\": {\"b\": [1, 2.50]}, \"c\": null}'::jsonb AS j, '\\x00ff'::bytea AS raw, "
         "interval '1 year 2 months 3 days 04:05:06' AS span, ARRAY[1, 2] AS arr, 'NaN'::float8 AS nan, "
         "'infinity'::timestamptz AS forever")


@pytest.fixture
def stored(database: Engine, empty_database: str) -> str:
    """The database's URL; two documents, one with a long block of text holding commas, quotes, tabs, newlines."""
    with database.begin() as connection:
        connection.execute(text("INSERT INTO documents (sha256, status, size_bytes, first_source, metadata) "
                                "VALUES (repeat('a', 64), 'done', 1, '/a.pdf', '{\"pages\": 1, \"title\": \"A\"}'), "
                                "       (repeat('b', 64), 'done', 1, '/b.pdf', '{}')"))
        connection.execute(text("INSERT INTO pages (document_id, page_no, status) SELECT min(id), 1, 'done' "
                                "FROM documents"))
        connection.execute(text("INSERT INTO blocks (page_id, reading_order, type, x0, y0, x1, y1, text) "
                                "SELECT id, 0, 'text', 0, 0, 1, 1, :long FROM pages"), {"long": LONG})
    return empty_database


def sql(url: str, home: Path, *arguments: str, **settings: str) -> subprocess.CompletedProcess:
    """`folio sql ARGUMENTS` with its output into pipes (not a terminal)."""
    return subprocess.run([sys.executable, "-m", "folio.cli", "sql", *arguments],
                          env=folio_env(url, home, **settings), capture_output=True, text=True, timeout=300)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def test_csv_is_the_default_into_a_pipe_and_holds_values_whole(stored: str, tmp_path: Path):
    output = ok(sql(stored, tmp_path, "SELECT d.id, d.first_source, d.metadata, b.text, '' AS empty, NULL AS "
                                      "nothing FROM documents d LEFT JOIN pages p ON p.document_id = d.id "
                                      "LEFT JOIN blocks b ON b.page_id = p.id ORDER BY d.id"))
    rows = list(csv.reader(io.StringIO(output, newline="")))
    assert rows[0] == ["id", "first_source", "metadata", "text", "empty", "nothing"]
    assert [row[1:3] for row in rows[1:]] == [["/a.pdf", '{"pages": 1, "title": "A"}'], ["/b.pdf", "{}"]]
    assert rows[1][3] == LONG and rows[2][3] == ""  # whole: not cut, not wrapped
    assert output.endswith('\\","",\n2,/b.pdf,{},,"",\n')  # '' quoted, NULL not


def test_json_is_an_array_of_typed_objects(stored: str, tmp_path: Path):
    output = ok(sql(stored, tmp_path, "--format", "json", TYPED))
    [row] = json.loads(output, parse_float=Decimal)
    assert datetime.fromisoformat(row.pop("t")) == datetime(2026, 11, 1, 8, 0, 0, 250000, tzinfo=UTC)  # any zone
    assert row == {"i": 7, "f": Decimal("1.5"), "n": Decimal("123456789012345678901234567890.123456789"), "z": None,
                   "b": True, "d": "2026-11-01",
                   "j": {"a": {"b": [1, Decimal("2.50")]}, "c": None}, "raw": "\\x00ff", "span": "P1Y2M3DT4H5M6S",
                   "arr": [1, 2], "nan": "NaN", "forever": "infinity"}
    assert bytes.fromhex(row["raw"][2:]) == b"\x00\xff"
    documents = json.loads(ok(sql(stored, tmp_path, "--format", "json", "SELECT d.id, metadata, b.text FROM "
                                  "documents d LEFT JOIN pages p ON p.document_id = d.id LEFT JOIN blocks b ON "
                                  "b.page_id = p.id ORDER BY d.id")))
    assert [(d["metadata"], d["text"]) for d in documents] == [({"pages": 1, "title": "A"}, LONG), ({}, None)]
    assert json.loads(ok(sql(stored, tmp_path, "--format", "json", "SELECT 1 WHERE false"))) == []


def test_tsv_escapes_tabs_newlines_and_backslashes(stored: str, tmp_path: Path):
    output = ok(sql(stored, tmp_path, "--format", "tsv", "SELECT b.text, NULL AS nothing, '' AS empty, 2 AS n "
                                                        "FROM blocks b"))
    header, line = output.splitlines()  # one line per row, whatever the values hold
    assert header == "text\tnothing\tempty\tn"
    value, nothing, empty, number = line.split("\t")
    assert (nothing, empty, number) == ("\\N", "", "2")
    unescaped = value.replace("\\\\", "\0").replace("\\t", "\t").replace("\\n", "\n").replace("\0", "\\")
    assert unescaped == LONG


def test_column_names_are_unique_in_every_format(stored: str, tmp_path: Path):
    query = "SELECT 1, 2, count(*), count(*), 3 AS count_2, 'x' AS \"?column?\" FROM documents"
    names = ["column", "column_2", "count", "count_3", "count_2", "column_3"]
    assert ok(sql(stored, tmp_path, query)).splitlines()[0] == ",".join(names)
    assert ok(sql(stored, tmp_path, "--format", "tsv", query)).splitlines()[0] == "\t".join(names)
    assert list(json.loads(ok(sql(stored, tmp_path, "--format", "json", query)))[0]) == names
    table = ok(sql(stored, tmp_path, "--format", "table", query))
    assert table.startswith("┏")
    assert all(f" {name} " in table for name in names) and "?column?" not in table


def test_limit(stored: str, tmp_path: Path):
    series = "SELECT generate_series(1, 1500) AS n"
    assert ok(sql(stored, tmp_path, series)).splitlines() == ["n", *map(str, range(1, 1501))]  # CSV: all rows
    assert ok(sql(stored, tmp_path, "--limit", "0", "--format", "tsv", series)).count("\n") == 1501
    cut = sql(stored, tmp_path, "--limit", "10", series)
    assert cut.returncode == 0 and cut.stdout.splitlines() == ["n", *map(str, range(1, 11))]
    assert cut.stderr == "folio sql: only the first 10 rows; --limit 0 prints them all\n"
    table = sql(stored, tmp_path, "--format", "table", series)  # a table: 1000 rows unless told
    assert table.returncode == 0 and "│ 1000 " in table.stdout and "│ 1001 " not in table.stdout
    assert "(1000 rows)" in table.stdout and "only the first 1000 rows" in table.stderr
    everything = ok(sql(stored, tmp_path, "--format", "table", "--limit", "0", series))
    assert "│ 1500 " in everything and "(1500 rows)" in everything


def test_a_table_on_a_terminal_by_default(stored: str, tmp_path: Path):
    code, screen = run_on_a_terminal(["sql", "SELECT first_source, 1 FROM documents ORDER BY id"],
                                     folio_env(stored, tmp_path))
    assert code == 0, screen
    screen = re.sub(r"\x1b\[[0-9;]*m", "", screen)  # no colours
    assert "┃ first_source ┃ column ┃" in screen and "│ /a.pdf       │ 1      │" in screen and "(2 rows)" in screen


def test_a_reader_that_stops_early_is_no_error(stored: str, tmp_path: Path):
    process = subprocess.Popen([sys.executable, "-m", "folio.cli", "sql", "SELECT generate_series(1, 500000)"],
                               env=folio_env(stored, tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline() == b"generate_series\n"
    process.stdout.close()  # as `| head -1` does
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


@pytest.mark.parametrize(("query", "needle"), [
    ("SELEC 1", 'syntax error at or near "SELEC" at character 1'),
    ("SELECT * FROM no_such_table", 'relation "no_such_table" does not exist'),
    ("DELETE FROM documents", "cannot execute DELETE in a read-only transaction"),
    ("SELECT 1; SELECT 2", "one statement per call"),
    ("COPY documents TO STDOUT", "COPY is not supported"),
    ("SELECT pg_read_file('/etc/passwd')", "permission denied for function pg_read_file"),
    ("SELECT 1/0", "division by zero"),
])
def test_a_refused_query_is_one_line_on_stderr(stored: str, tmp_path: Path, query: str, needle: str):
    result = sql(stored, tmp_path, "--format", "json", query)
    assert result.returncode == 1 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("folio sql: ") and result.stderr.count("\n") == 1 and needle in result.stderr


def test_a_query_past_its_time_limit_and_debug(stored: str, tmp_path: Path):
    result = sql(stored, tmp_path, "SELECT pg_sleep(30)", FOLIO_SQL_TIMEOUT_SECONDS="0.5")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "folio sql: canceling statement due to statement timeout\n"
    debug = sql(stored, tmp_path, "--debug", "SELEC 1")
    assert debug.returncode == 1 and "Traceback" in debug.stderr and debug.stderr.endswith(
        'folio sql: syntax error at or near "SELEC" at character 1\n')


def test_a_statement_without_rows_says_so(stored: str, tmp_path: Path):
    result = sql(stored, tmp_path, "SET search_path = public")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "folio sql: the statement returns no rows\n")


def test_a_reader_that_cannot_log_in_is_exit_2_on_stderr(stored: str, database: Engine, tmp_path: Path):
    """The owner connects, folio_reader cannot (here: no connection allowed): the database is for the person to fix."""
    ok(sql(stored, tmp_path, "SELECT 1"))  # folio_reader exists, with this home's password
    with database.begin() as connection:
        connection.execute(text("ALTER ROLE folio_reader CONNECTION LIMIT 0"))
    try:
        result = sql(stored, tmp_path, "SELECT 1")
    finally:
        with database.begin() as connection:
            connection.execute(text("ALTER ROLE folio_reader CONNECTION LIMIT -1"))
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("folio sql: cannot use the database: ") and result.stderr.count("\n") == 1
    assert 'too many connections for role "folio_reader"' in result.stderr
