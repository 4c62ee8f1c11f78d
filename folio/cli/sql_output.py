"""`folio sql`'s rows for machines: unique column names, and CSV, TSV or JSON with every value whole.

CSV: RFC 4180 with "\\n" line ends, a field quoted where it holds a comma, a quote or a line break, or is an empty
string; NULL is an empty field, unquoted (as `psql --csv` writes it). TSV: PostgreSQL's text COPY format with a
header line: NULL is \\N; backslash, tab, newline and carriage return in a value are \\\\, \\t, \\n and \\r. JSON:
an array of objects, one a line, keys in column order; numbers are numbers (numeric exactly as stored), NULL null,
json and jsonb nested JSON, timestamps ISO 8601, bytea "\\x" and hex as PostgreSQL writes it; NaN and infinities
are strings, as PostgreSQL's to_json writes them. In CSV, TSV and tables a value is the same text: arrays and JSON
as JSON, booleans true and false.
"""

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

FORMATS = ("table", "csv", "json", "tsv")
UNNAMED = "?column?"  # PostgreSQL's name for an expression without AS
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def unique_names(names: Sequence[str]) -> list[str]:
    """Column names made unique: an unnamed expression is `column`; a name seen before gets _2, _3, ... (the first
    suffix that names no other column)."""
    wanted = ["column" if name == UNNAMED else name for name in names]
    taken = set(wanted)
    seen: set[str] = set()
    unique = []
    for name in wanted:
        if name in seen:
            suffix = 2
            while f"{name}_{suffix}" in taken:
                suffix += 1
            name = f"{name}_{suffix}"
            taken.add(name)
        seen.add(name)
        unique.append(name)
    return unique


def text(value: Any) -> str:
    """A value (not NULL) as text in CSV, TSV and tables."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float, Decimal)):
        return _number(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "\\x" + bytes(value).hex()
    if isinstance(value, (list, tuple, dict)):
        return json_value(value)
    return str(value)


def _number(value: bool | int | float | Decimal) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Decimal):
        if value.is_nan():
            return "NaN"
        if value.is_infinite():
            return "Infinity" if value > 0 else "-Infinity"
        return format(value, "f")  # no exponent: 0.0000001, not 1E-7
    return repr(value)


def json_value(value: Any) -> str:
    """A value as JSON text; numbers (Decimal too) written out whole, what JSON cannot hold as a string."""
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float, Decimal)):
        number = _number(value)
        return number if number not in ("NaN", "Infinity", "-Infinity") else f'"{number}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(key), ensure_ascii=False)}: {json_value(item)}"
                               for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_value(item) for item in value) + "]"
    return json.dumps(text(value), ensure_ascii=False)


def csv_field(value: Any) -> str:
    if value is None:
        return ""
    field = text(value)
    if field == "" or any(character in field for character in ',"\r\n'):
        return '"' + field.replace('"', '""') + '"'
    return field


def tsv_field(value: Any) -> str:
    return "\\N" if value is None else text(value).translate(_TSV_ESCAPES)


def csv_lines(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """A header line, then a line per row."""
    return _delimited(",", csv_field, columns, rows)


def tsv_lines(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """A header line, then a line per row."""
    return _delimited("\t", tsv_field, columns, rows)


def _delimited(delimiter: str, field: Callable[[Any], str], columns: Sequence[str],
               rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    yield delimiter.join(field(name) for name in columns) + "\n"
    for row in rows:
        yield delimiter.join(field(value) for value in row) + "\n"


def json_lines(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """A JSON array of objects, one object a line: `[`, `{...},` ..., `{...}`, `]`; `[]` for no rows."""
    keys = [json.dumps(name, ensure_ascii=False) + ": " for name in columns]
    previous = None
    for row in rows:
        if previous is None:
            yield "[\n"
        else:
            yield previous + ",\n"
        previous = "{" + ", ".join(key + json_value(value) for key, value in zip(keys, row)) + "}"
    yield "[]\n" if previous is None else previous + "\n]\n"


WRITERS: dict[str, Callable[[Sequence[str], Iterable[Sequence[Any]]], Iterator[str]]] = {
    "csv": csv_lines, "tsv": tsv_lines, "json": json_lines}
