"""folio sql's formats without a database: unique column names, and CSV, TSV and JSON that parse back whole."""

import csv
import io
import json
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from uuid import UUID

import pytest

from folio.cli.sql_output import csv_lines, json_lines, json_value, text, tsv_lines, unique_names

TRICKY = ["plain", "", "a,b", 'say "hi"', "two\nlines", "cr\rlf\r\n", "tab\there", "back\\slash", " spaced ",
          "ünïcødé ✓", "\\N"]


@pytest.mark.parametrize(("names", "unique"), [
    (["a", "b"], ["a", "b"]),
    (["?column?", "?column?", "?column?"], ["column", "column_2", "column_3"]),
    (["count", "count"], ["count", "count_2"]),
    (["count", "count", "count_2"], ["count", "count_3", "count_2"]),  # a name given is kept as given
    (["column", "?column?"], ["column", "column_2"]),
    (["x", "x_2", "x", "x"], ["x", "x_2", "x_3", "x_4"]),
])
def test_unique_names(names: list[str], unique: list[str]):
    assert unique_names(names) == unique


def test_text_of_each_kind_of_value():
    assert [text(value) for value in (True, False, 7, -0.5, 1e20, float("nan"), float("inf"), float("-inf"))] == \
        ["true", "false", "7", "-0.5", "1e+20", "NaN", "Infinity", "-Infinity"]
    assert [text(Decimal(value)) for value in ("0.0000001", "1E+3", "123456789012345678901234567890.000000001",
                                                "NaN", "-Infinity")] == \
        ["0.0000001", "1000", "123456789012345678901234567890.000000001", "NaN", "-Infinity"]
    assert text(datetime(2026, 11, 1, 8, 0, 0, 250000, tzinfo=UTC)) == "2026-11-01T08:00:00.250000+00:00"
    assert text(datetime(2026, 11, 1, 8, 0)) == "2026-11-01T08:00:00"
    assert text(date(2026, 11, 1)) == "2026-11-01"
    assert text(time(8, 30, tzinfo=timezone(timedelta(hours=2)))) == "08:30:00+02:00"
    assert text(b"\x00\xff") == text(memoryview(b"\x00\xff")) == "\\x00ff"
    assert text({"a": [1, Decimal("2.50"), None]}) == '{"a": [1, 2.50, null]}'
    assert text([1, "x"]) == '[1, "x"]'
    assert text(UUID(int=1)) == "00000000-0000-0000-0000-000000000001"


def test_json_values_keep_their_type_and_precision():
    exact = Decimal("123456789012345678901234567890.123456789")
    assert json.loads(json_value(exact), parse_float=Decimal) == exact
    assert json_value(Decimal("NaN")) == '"NaN"' and json_value(float("inf")) == '"Infinity"'
    assert json.loads(json_value({"k": [True, None, 1.5, "é"], "n": {"m": Decimal("0.1")}}), parse_float=Decimal) \
        == {"k": [True, None, Decimal("1.5"), "é"], "n": {"m": Decimal("0.1")}}
    assert json_value("é") == '"é"'  # UTF-8 as it is, not \\u escapes
    assert json_value(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == '"2026-01-02T03:04:05+00:00"'
    assert json_value(b"\x01") == '"\\\\x01"'


def test_csv_parses_back_whole_and_tells_null_from_empty():
    rows = [(index, value, None) for index, value in enumerate(TRICKY)]
    output = "".join(csv_lines(["i", "value", "nothing"], rows))
    parsed = list(csv.reader(io.StringIO(output, newline="")))
    assert parsed == [["i", "value", "nothing"], *([str(index), value, ""] for index, value, _ in rows)]
    lines = output.split("\n")
    assert lines[1] == "0,plain," and lines[2] == '1,"",'  # '' is quoted, NULL is not


def test_tsv_is_one_line_a_row_and_unescapes_whole():
    output = "".join(tsv_lines(["value", "nothing"], [(value, None) for value in TRICKY]))
    lines = output.split("\n")
    assert lines[-1] == "" and len(lines) == len(TRICKY) + 2
    assert lines[0] == "value\tnothing"
    escapes = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r", "N": None}
    for line, value in zip(lines[1:], TRICKY):
        field, nothing = line.split("\t")
        assert nothing == "\\N"
        unescaped, pending = "", False
        for character in field:
            if pending:
                unescaped += escapes[character]
                pending = False
            elif character == "\\":
                pending = True
            else:
                unescaped += character
        assert unescaped == value


def test_json_is_an_array_of_objects_one_a_line():
    assert "".join(json_lines(["a"], [])) == "[]\n"
    assert "".join(json_lines(["a", "b"], [(1, None)])) == '[\n{"a": 1, "b": null}\n]\n'
    output = "".join(json_lines(["value"], [(value,) for value in TRICKY]))
    assert output.count("\n") == len(TRICKY) + 2
    assert [row["value"] for row in json.loads(output)] == TRICKY
