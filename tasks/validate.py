"""The validation gate: each batch's engine output checked with Great Expectations before it is stored.

The batch becomes one long data frame (a row per page, block, table cell, grid slot and formula,
each with the measures its checks read, null where a measure does not apply), so a batch costs
one validation. Great Expectations is imported on the first batch of a worker, not before.
"""

import html
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any, get_args

from engine.types import TEXT_TYPES, Block, BlockType, PageInput, PageResult, Table

# Thresholds, measured on the dev split (see benchmarks/validation_gate.py):
BOX_TOLERANCE = 2.0  # points a box may reach past the page edge (glyph overhang, rounding); beyond: broken
MIN_SIDE = 0.5  # points: a box thinner than this is a point or a line, not a region
COVERAGE_MIN = 0.85  # share of the text layer's characters that must be in the stored text
INK_MIN = 0.002  # share of a rendered page's pixels that are ink for it to need a block (specks stay below)

CHECKS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    # (name, Great Expectations expectation, its arguments)
    ("block type in the vocabulary", "ExpectColumnValuesToBeInSet",
     {"column": "type", "value_set": list(get_args(BlockType))}),
    ("confidence within [0, 1]", "ExpectColumnValuesToBeBetween", {"column": "confidence", "min_value": 0,
                                                                   "max_value": 1}),
    ("box inside the page", "ExpectColumnValuesToBeBetween", {"column": "overshoot", "max_value": BOX_TOLERANCE}),
    ("box not degenerate", "ExpectColumnValuesToBeBetween", {"column": "min_side", "min_value": MIN_SIDE}),
    ("reading order without repeats", "ExpectColumnValuesToBeUnique", {"column": "order_key"}),
    ("reading order within 0..n-1", "ExpectColumnValuesToBeBetween", {"column": "order_room", "min_value": 0}),
    ("text block has text", "ExpectColumnValuesToBeInSet", {"column": "text_missing", "value_set": [False]}),
    ("table cell inside its grid", "ExpectColumnValuesToBeBetween", {"column": "grid_overshoot", "max_value": 0}),
    ("one cell per grid slot", "ExpectColumnValuesToBeUnique", {"column": "slot"}),
    ("table HTML agrees with its cells", "ExpectColumnValuesToBeInSet", {"column": "html_agrees",
                                                                         "value_set": [True]}),
    ("formula LaTeX not empty", "ExpectColumnValuesToBeBetween", {"column": "latex_length", "min_value": 1}),
    ("formula braces balanced", "ExpectColumnValuesToBeInSet", {"column": "braces_balanced", "value_set": [True]}),
    ("formula environments balanced", "ExpectColumnValuesToBeInSet", {"column": "environments_balanced",
                                                                      "value_set": [True]}),
    ("page with ink has blocks", "ExpectColumnValuesToBeBetween", {"column": "blocks_if_ink", "min_value": 1}),
    ("stored text covers the text layer", "ExpectColumnValuesToBeBetween", {"column": "coverage",
                                                                            "min_value": COVERAGE_MIN}),
)
COLUMNS = ("page", "block", "kind", "type", "confidence", "overshoot", "min_side", "order_key", "order_room",
           "text_missing", "grid_overshoot", "slot", "html_agrees", "latex_length", "braces_balanced",
           "environments_balanced", "blocks_if_ink", "coverage")
MAX_OBSERVED = 20  # observed values kept per failed check and page


@dataclass(frozen=True)
class Issue:
    """A check a page failed: which, on which blocks (-1: the page itself), with what values."""

    check: str
    expectation: str
    blocks: tuple[int, ...]
    observed: tuple[str, ...]


def batch_rows(results: list[PageResult], inputs: dict[str, PageInput]) -> list[dict[str, Any]]:
    """The batch as rows of measures, one per page, block, cell, grid slot and formula."""
    rows: list[dict[str, Any]] = []
    for result in results:
        rows.append(_page_row(result, inputs.get(result.key)))
        for index, block in enumerate(result.blocks):
            rows.append(_block_row(result, index, block))
            if block.table is not None:
                rows.extend(_table_rows(result.key, index, block.table))
            if block.formula is not None:
                latex = block.formula.latex
                rows.append({"page": result.key, "block": index, "kind": "formula",
                             "confidence": block.formula.confidence, "latex_length": len(latex.strip()),
                             "braces_balanced": braces_balanced(latex),
                             "environments_balanced": environments_balanced(latex)})
    return rows


def _page_row(result: PageResult, page_input: PageInput | None) -> dict[str, Any]:
    layer = "".join(line.text for line in page_input.text_lines) if page_input is not None else ""
    inked = result.ink >= INK_MIN if result.ink is not None else bool(layer.strip())
    return {"page": result.key, "block": -1, "kind": "page", "blocks_if_ink": len(result.blocks) if inked else None,
            "coverage": text_coverage(layer, stored_text(result.blocks)) if result.text_layer and layer.strip()
            else None}


def _block_row(result: PageResult, index: int, block: Block) -> dict[str, Any]:
    x0, y0, x1, y1 = block.bbox
    count = len(result.blocks)
    return {"page": result.key, "block": index, "kind": "block", "type": block.type,
            "confidence": block.confidence,
            "overshoot": max(-x0, -y0, x1 - result.width, y1 - result.height),
            "min_side": min(x1 - x0, y1 - y0), "order_key": f"{result.key}#{block.order}",
            "order_room": min(block.order, count - 1 - block.order),
            "text_missing": not block.text.strip() if block.type in TEXT_TYPES else None}


def _table_rows(page: str, block: int, table: Table) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"page": page, "block": block, "kind": "table",
                                   "html_agrees": html_agrees(table)}]
    for cell in table.cells:
        rows.append({"page": page, "block": block, "kind": "cell",
                     "grid_overshoot": max(-cell.row, -cell.col, 1 - cell.row_span, 1 - cell.col_span,
                                           cell.row + cell.row_span - table.rows,
                                           cell.col + cell.col_span - table.cols)})
        rows.extend({"page": page, "block": block, "kind": "slot", "slot": f"{page}#{block}#{r},{c}"}
                    for r in range(cell.row, cell.row + max(cell.row_span, 1))
                    for c in range(cell.col, cell.col + max(cell.col_span, 1)))
    return rows


def stored_text(blocks: list[Block]) -> str:
    """Everything the page's blocks store as text: block text and table cells."""
    parts = [block.text for block in blocks]
    parts += [cell.text for block in blocks if block.table is not None for cell in block.table.cells]
    return " ".join(parts)


def text_coverage(layer: str, stored: str) -> float:
    """The share of the text layer's characters (without spaces and hyphens) found in the stored text."""
    wanted, found = _characters(layer), _characters(stored)
    total = sum(wanted.values())
    return round(sum((wanted & found).values()) / total, 4) if total else 1.0


def _characters(text: str) -> Counter:
    return Counter(ch for ch in unicodedata.normalize("NFKC", text) if not ch.isspace() and ch not in "-\u00ad")


_ESCAPED_BRACE = re.compile(r"\\[{}]")
_ENVIRONMENT = re.compile(r"\\(begin|end)\s*\{([^}]*)\}")


def braces_balanced(latex: str) -> bool:
    """Every unescaped { closed by a later }, and no } without its {."""
    depth = 0
    for ch in _ESCAPED_BRACE.sub("", latex):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def environments_balanced(latex: str) -> bool:
    r"""Every \begin{x} closed by its \end{x}, properly nested."""
    stack: list[str] = []
    for kind, name in _ENVIRONMENT.findall(latex):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


class _HtmlCells(HTMLParser):
    """The cells of a table's HTML, row by row: (header, row span, column span, text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[tuple[bool, int, int, str]]] = []
        self._cell: list[Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            spans = dict(attrs)
            self._cell = [tag == "th", int(spans.get("rowspan") or 1), int(spans.get("colspan") or 1), ""]

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[3] += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(tuple(self._cell))
            self._cell = None


def html_agrees(table: Table) -> bool:
    """Whether the table's HTML holds exactly its cells, row by row, with their spans, headers and text."""
    parser = _HtmlCells()
    try:
        parser.feed(table.html)
        parser.close()
    except (ValueError, AssertionError):
        return False
    expected = [[(cell.header, cell.row_span, cell.col_span, cell.text)
                 for cell in sorted(table.cells, key=lambda c: c.col) if cell.row == row]
                for row in range(table.rows)]
    found = [[(header, rows, cols, html.unescape(text)) for header, rows, cols, text in cells]
             for cells in parser.rows]
    return found == expected


class Validator:
    """Great Expectations set up once per process: an ephemeral context, a data frame asset, the suite."""

    def __init__(self) -> None:
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context = gx.get_context(mode="ephemeral")
        context.variables.progress_bars = ProgressBarsConfig(globally=False)
        asset = context.data_sources.add_pandas("folio").add_dataframe_asset("engine_output")
        self._batches = asset.add_batch_definition_whole_dataframe("batch")
        self._suite = context.suites.add(gx.ExpectationSuite(name="engine_output", expectations=[
            getattr(gx.expectations, expectation)(**arguments, meta={"check": name})
            for name, expectation, arguments in CHECKS
        ]))
        self._lock = threading.Lock()  # a context is not safe to share between threads

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, list[Issue]]:
        import pandas as pd

        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        with self._lock:  # a clean batch needs only the verdict (3x faster); a failing one is run again for rows
            batch = self._batches.get_batch(batch_parameters={"dataframe": frame})
            if batch.validate(self._suite, result_format="BOOLEAN_ONLY").success:
                return {}
            outcome = batch.validate(self._suite, result_format={
                "result_format": "COMPLETE", "unexpected_index_column_names": ["page", "block"]})
        issues: dict[str, list[Issue]] = {}
        for result in outcome.results:
            if result.success:
                continue
            config = result.expectation_config
            column = config.kwargs.get("column")
            failures = result.result.get("unexpected_index_list") or []
            if not failures:  # the expectation itself could not run: every page of the batch is suspect
                failures = [{"page": key, "block": -1, column: "check failed to run"} for key in frame["page"].unique()]
            by_page: dict[str, list[dict[str, Any]]] = {}
            for failure in failures:
                by_page.setdefault(failure["page"], []).append(failure)
            for page, found in by_page.items():
                issues.setdefault(page, []).append(Issue(
                    check=config.meta["check"], expectation=config.type,
                    blocks=tuple(int(item["block"]) for item in found),
                    observed=tuple(str(item.get(column)) for item in found[:MAX_OBSERVED])))
        return issues


@lru_cache(maxsize=1)
def get_validator() -> Validator:
    return Validator()


def validate_results(results: list[PageResult], inputs: dict[str, PageInput]) -> dict[str, list[Issue]]:
    """The issues of each page that fails a check, by page key; pages that pass are not listed."""
    if not results:
        return {}
    return get_validator()(batch_rows(results, inputs))
