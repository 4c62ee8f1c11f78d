"""The validation gate: each batch's engine output checked with Great Expectations before it is stored.

The batch becomes one long data frame (a row per page, block, table cell, grid slot and formula,
each with the measures its checks read, null where a measure does not apply), so a batch costs
one validation. Great Expectations is imported on the first batch of a worker, not before.

Most checks judge one block: a block that fails one is repaired or demoted by `repair_block`
(clipped, widened, kept as text, dropped when it holds nothing) and the page keeps its other
blocks. A broken reading order is renumbered. Only the page-level checks (a page with ink but no
blocks, stored text far short of the text layer) quarantine a page, and so does a page whose
every block had to be dropped: then nothing on it can be trusted. `repair_page` decides, with
what was done recorded on each issue.
"""

import html
import math
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any, get_args

from engine.layer_trust import garbled
from engine.table_grid import table_html
from engine.types import TEXT_TYPES, Block, BlockType, PageInput, PageResult, Table

# Thresholds, measured on the dev split (see benchmarks/validation_gate.py):
BOX_TOLERANCE = 2.0  # points a box may reach past the page edge (glyph overhang, rounding); beyond: broken
MIN_SIDE = 0.5  # points: a box thinner than this is a point or a line, not a region
COVERAGE_MIN = 0.85  # share of the text layer's characters that must be in the stored text
INK_MIN = 0.002  # share of a rendered page's pixels that are ink for it to need a block (specks stay below)

# What a failed check puts in doubt: one block (repaired or demoted), the page's reading order
# (renumbered), or the page as a whole (quarantined).
BLOCK, ORDER, PAGE = "block", "order", "page"

TYPE_CHECK = "block type in the vocabulary"
CONFIDENCE_CHECK = "confidence within [0, 1]"
INSIDE_CHECK = "box inside the page"
SIDE_CHECK = "box not degenerate"
TEXT_CHECK = "text block has text"
GRID_CHECKS = ("table cell inside its grid", "one cell per grid slot")
HTML_CHECK = "table HTML agrees with its cells"
LATEX_CHECKS = ("formula LaTeX not empty", "formula braces balanced", "formula environments balanced")
INK_CHECK = "page with ink has blocks"
PLACED_CHECK = "block placed on the page"  # the VLM engine found no box for it (engine/vlm/align.py)

CHECKS: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    # (name, Great Expectations expectation, its arguments, what a failure puts in doubt)
    (TYPE_CHECK, "ExpectColumnValuesToBeInSet", {"column": "type", "value_set": list(get_args(BlockType))}, BLOCK),
    (CONFIDENCE_CHECK, "ExpectColumnValuesToBeBetween", {"column": "confidence", "min_value": 0, "max_value": 1},
     BLOCK),
    (INSIDE_CHECK, "ExpectColumnValuesToBeBetween", {"column": "overshoot", "max_value": BOX_TOLERANCE}, BLOCK),
    (SIDE_CHECK, "ExpectColumnValuesToBeBetween", {"column": "min_side", "min_value": MIN_SIDE}, BLOCK),
    ("reading order without repeats", "ExpectColumnValuesToBeUnique", {"column": "order_key"}, ORDER),
    ("reading order within 0..n-1", "ExpectColumnValuesToBeBetween", {"column": "order_room", "min_value": 0},
     ORDER),
    (TEXT_CHECK, "ExpectColumnValuesToBeInSet", {"column": "text_missing", "value_set": [False]}, BLOCK),
    (GRID_CHECKS[0], "ExpectColumnValuesToBeBetween", {"column": "grid_overshoot", "max_value": 0}, BLOCK),
    (GRID_CHECKS[1], "ExpectColumnValuesToBeUnique", {"column": "slot"}, BLOCK),
    (HTML_CHECK, "ExpectColumnValuesToBeInSet", {"column": "html_agrees", "value_set": [True]}, BLOCK),
    (LATEX_CHECKS[0], "ExpectColumnValuesToBeBetween", {"column": "latex_length", "min_value": 1}, BLOCK),
    (LATEX_CHECKS[1], "ExpectColumnValuesToBeInSet", {"column": "braces_balanced", "value_set": [True]}, BLOCK),
    (LATEX_CHECKS[2], "ExpectColumnValuesToBeInSet", {"column": "environments_balanced", "value_set": [True]},
     BLOCK),
    (PLACED_CHECK, "ExpectColumnValuesToBeInSet", {"column": "unplaced", "value_set": [False]}, BLOCK),
    (INK_CHECK, "ExpectColumnValuesToBeBetween", {"column": "blocks_if_ink", "min_value": 1}, PAGE),
    ("stored text covers the text layer", "ExpectColumnValuesToBeBetween", {"column": "coverage",
                                                                            "min_value": COVERAGE_MIN}, PAGE),
)
SCOPES = {name: scope for name, _, _, scope in CHECKS}
COLUMNS = ("page", "block", "kind", "type", "confidence", "overshoot", "min_side", "order_key", "order_room",
           "text_missing", "grid_overshoot", "slot", "html_agrees", "latex_length", "braces_balanced",
           "environments_balanced", "unplaced", "blocks_if_ink", "coverage")
MAX_OBSERVED = 20  # observed values kept per failed check and block (or page)

# What the gate did about an issue (page_issues.action):
QUARANTINED = "page quarantined"  # the page stored without blocks
KEPT_AS_TEXT = "kept as text"  # a formula without trustworthy LaTeX, a table whose cells collide, an unknown type
HTML_REBUILT = "table HTML rebuilt from its cells"
CONFIDENCE_REMOVED = "confidence removed"
CLIPPED = "box clipped to the page"
WIDENED = f"box widened to {MIN_SIDE} pt"  # a thin box that holds text: a rule-thin line of glyphs
CLIPPED_AND_WIDENED = f"box clipped to the page and widened to {MIN_SIDE} pt"
CORNERS_ORDERED = "box corners put in order"  # x1 < x0 or y1 < y0, of a box wide enough
DROPPED = "block dropped"  # it held nothing: no text, no table, no formula
RENUMBERED = "reading order renumbered"
PAGE_BOX = "kept with the page as its box"  # a block the engine could not place: its content is kept


@dataclass(frozen=True)
class Issue:
    """A check failed: which, on which blocks (-1: the page itself), with what values, and what was done.

    A block-level issue names one block (the engine's index); `position` is that block's index among
    the blocks stored for the page, None when it was dropped or the issue is about the page.
    """

    check: str
    expectation: str
    blocks: tuple[int, ...]
    observed: tuple[str, ...]
    scope: str = PAGE
    action: str = ""
    position: int | None = None


@dataclass(frozen=True)
class Verdict:
    """What the gate made of a page that failed checks: the result to store and its issues."""

    result: PageResult  # repaired; for a quarantined page the engine's result, of which no block is stored
    issues: tuple[Issue, ...]

    @property
    def quarantined(self) -> bool:
        return any(issue.action == QUARANTINED for issue in self.issues)

    @property
    def flagged_blocks(self) -> int:
        """How many of the engine's blocks failed a block-level check (0 for a quarantined page)."""
        return flagged_blocks(self.issues)


def flagged_blocks(issues: tuple[Issue, ...] | list[Issue]) -> int:
    """The blocks a page's issues flag, if the page was stored with its blocks."""
    if any(issue.action == QUARANTINED for issue in issues):
        return 0
    return len({issue.blocks[0] for issue in issues if issue.scope == BLOCK})


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
    layer = _layer(page_input)
    return {"page": result.key, "block": -1, "kind": "page",
            "blocks_if_ink": len(result.blocks) if needs_blocks(result, page_input) else None,
            "coverage": text_coverage(layer, stored_text(result.blocks)) if result.text_layer and layer.strip()
            else None}


def _layer(page_input: PageInput | None) -> str:
    """The text of the page's layer that the engine takes as text: lines of mojibake, which it reads by OCR
    instead, count for nothing."""
    if page_input is None:
        return ""
    return "".join(line.text for line in page_input.text_lines if not garbled(line.text))


def needs_blocks(result: PageResult, page_input: PageInput | None) -> bool:
    """Whether the page shows something (ink on its render, else text in its layer) that a block must hold."""
    return result.ink >= INK_MIN if result.ink is not None else bool(_layer(page_input).strip())


def _block_row(result: PageResult, index: int, block: Block) -> dict[str, Any]:
    x0, y0, x1, y1 = block.bbox
    count = len(result.blocks)
    return {"page": result.key, "block": index, "kind": "block", "type": block.type,
            "confidence": block.confidence,
            "overshoot": max(-x0, -y0, x1 - result.width, y1 - result.height),
            "min_side": min(x1 - x0, y1 - y0), "order_key": f"{result.key}#{block.order}",
            "order_room": min(block.order, count - 1 - block.order),
            "text_missing": not block.text.strip() if block.type in TEXT_TYPES else None,
            "unplaced": not block.placed}


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
    """The share of the text layer's characters (without spaces, hyphens and dot leaders: a table keeps no leaders
    in its cells) found in the stored text."""
    wanted, found = _characters(layer), _characters(stored)
    total = sum(wanted.values())
    return round(sum((wanted & found).values()) / total, 4) if total else 1.0


def _characters(text: str) -> Counter:
    text = _LEADERS.sub(" ", unicodedata.normalize("NFKC", text))
    return Counter(ch for ch in text if not ch.isspace() and ch not in "-\u00ad")


_LEADERS = re.compile(r"(?:\.\s*){3,}")  # dot leaders ("Alabama ........"; NFKC makes "…" three dots)


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
            for name, expectation, arguments, _ in CHECKS
        ]))
        self._lock = threading.Lock()  # a context is not safe to share between threads

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, list[Issue]]:
        """What failed, by page key: a block-level check once per failing block, others once per page."""
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
            check, column = config.meta["check"], config.kwargs.get("column")
            scope = SCOPES[check]
            failures = result.result.get("unexpected_index_list") or []
            if not failures:  # the expectation itself could not run: every page of the batch is suspect
                failures = [{"page": key, "block": -1, column: "check failed to run"} for key in frame["page"].unique()]
            groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
            for failure in failures:
                block = int(failure["block"])
                groups.setdefault((failure["page"], block if scope == BLOCK else -1), []).append(failure)
            for (page, block), found in groups.items():
                issues.setdefault(page, []).append(Issue(
                    check=check, expectation=config.type,
                    blocks=(block,) if scope == BLOCK else tuple(int(item["block"]) for item in found),
                    observed=tuple(str(item.get(column)) for item in found[:MAX_OBSERVED]),
                    scope=PAGE if block < 0 and scope == BLOCK else scope))
        return issues


_validator: Validator | None = None  # the process's, once made
_validator_made = threading.Lock()  # the first caller makes the validator, one waiting meanwhile takes it then


def get_validator() -> Validator:
    """The process's validator, made on first use."""
    global _validator
    with _validator_made:
        if _validator is None:
            _validator = Validator()
        return _validator


def prepare_validator() -> None:
    """Make the process's validator in a thread of its own, for a caller that waits on other processes meanwhile:
    Great Expectations takes 2-3 s to set up, which the first batch of a run would otherwise wait for."""
    if _validator is None:
        threading.Thread(target=get_validator, name="folio-validator", daemon=True).start()


def validate_results(results: list[PageResult], inputs: dict[str, PageInput]) -> dict[str, Verdict]:
    """For each page that fails a check, by page key: its repaired result and issues; pages that pass are not listed."""
    if not results:
        return {}
    found = get_validator()(batch_rows(results, inputs))
    return {result.key: repair_page(result, found[result.key], needs_blocks(result, inputs.get(result.key)))
            for result in results if result.key in found}


def repair_page(result: PageResult, issues: list[Issue], needs_blocks: bool = True) -> Verdict:
    """The page with each flagged block repaired, demoted or dropped and its reading order renumbered.

    The page is quarantined (its result kept as it is, to store none of its blocks) when a page-level
    check failed, or when blocks were flagged but none is left while the page shows something.
    Every issue comes back with what was done about it; the engine's result is not changed.
    """
    if any(issue.scope == PAGE or issue.blocks[0] >= len(result.blocks) for issue in issues):
        return _quarantine(result, issues)
    by_block: dict[int, set[str]] = {}
    for issue in issues:
        if issue.scope == BLOCK:
            by_block.setdefault(issue.blocks[0], set()).add(issue.check)
    blocks: list[Block | None] = list(result.blocks)
    actions: dict[tuple[int, str], str] = {}
    for index, checks in by_block.items():
        blocks[index], done = repair_block(result.blocks[index], checks, result.width, result.height)
        actions.update(((index, check), action) for check, action in done.items())
    kept = [(index, block) for index, block in enumerate(blocks) if block is not None]
    if not kept and needs_blocks:
        return _quarantine(result, [*issues, Issue(
            check=INK_CHECK, expectation="expect_column_values_to_be_between", blocks=(-1,),
            observed=(f"0 of {len(result.blocks)} blocks left after repair",))])
    # the engine lists blocks in reading order; where its order numbers are broken, that list is the order
    renumber = any(issue.scope == ORDER for issue in issues)
    ranked = sorted(range(len(kept)), key=lambda i: i if renumber else (kept[i][1].order, i))
    order = {i: rank for rank, i in enumerate(ranked)}
    stored = [replace(block, order=order[i]) if block.order != order[i] else block
              for i, (_, block) in enumerate(kept)]
    position = {index: i for i, (index, _) in enumerate(kept)}
    repaired = [replace(issue, action=RENUMBERED) if issue.scope == ORDER else
                replace(issue, action=actions[issue.blocks[0], issue.check], position=position.get(issue.blocks[0]))
                for issue in issues]
    return Verdict(replace(result, blocks=stored), tuple(repaired))


def _quarantine(result: PageResult, issues: list[Issue]) -> Verdict:
    return Verdict(result, tuple(replace(issue, action=QUARANTINED, position=None) for issue in issues))


def repair_block(block: Block, checks: set[str], width: float, height: float) -> tuple[Block | None, dict[str, str]]:
    """The block repaired for the checks it failed (None: dropped, as it holds nothing) and what was done per check.

    An unknown type, colliding table cells or untrustworthy LaTeX demote it to a text block that keeps
    its text; a table whose cells are sound gets its HTML rebuilt from them; a confidence out of range
    is removed; a box past the page is clipped to it; a box thinner than MIN_SIDE is widened to it; a
    block the engine could not place keeps the page as its box.
    """
    block = replace(block)  # the engine's block stays as it was
    done: dict[str, str] = {}
    if TYPE_CHECK in checks:
        if not block.text.strip() and block.table is not None:
            block.text = table_text(block.table)
        block.type, block.table, block.formula = "text", None, None
        done[TYPE_CHECK] = KEPT_AS_TEXT
    if CONFIDENCE_CHECK in checks:
        if not _in_unit_range(block.confidence):
            block.confidence = None
        if block.formula is not None and not _in_unit_range(block.formula.confidence):
            block.formula = replace(block.formula, confidence=None)
        done[CONFIDENCE_CHECK] = CONFIDENCE_REMOVED
    table_checks = checks & {*GRID_CHECKS, HTML_CHECK}
    if table_checks and block.table is not None:
        if checks & set(GRID_CHECKS):
            block.text = block.text if block.text.strip() else table_text(block.table)
            block.type, block.table = "text", None
        else:
            block.table = replace(block.table, html=table_html(block.table.rows, block.table.cells))
    done.update((check, HTML_REBUILT if block.table is not None else KEPT_AS_TEXT) for check in table_checks)
    latex_checks = checks & set(LATEX_CHECKS)
    if latex_checks:
        block.formula = None
        block.type = "text" if block.type == "formula" else block.type
        done.update((check, KEPT_AS_TEXT) for check in latex_checks)
    if TEXT_CHECK in checks:
        done[TEXT_CHECK] = DROPPED  # a text block without text: nothing to keep but its box
    if PLACED_CHECK in checks:
        done[PLACED_CHECK] = PAGE_BOX
    if checks & {INSIDE_CHECK, SIDE_CHECK}:
        block.bbox, widened = _fitted(block.bbox, width, height)
        if INSIDE_CHECK in checks:
            done[INSIDE_CHECK] = CLIPPED_AND_WIDENED if widened else CLIPPED
        if SIDE_CHECK in checks:
            done[SIDE_CHECK] = WIDENED if widened else CORNERS_ORDERED
    holds_something = bool(block.text.strip()) or block.table is not None or block.formula is not None
    if not holds_something or TEXT_CHECK in checks:
        return None, dict.fromkeys(done, DROPPED)
    return block, done


def _in_unit_range(value: float | None) -> bool:
    return value is None or 0 <= value <= 1  # NaN is not


def _fitted(bbox: tuple[float, float, float, float], width: float, height: float) -> tuple[tuple[float, ...], bool]:
    """The box with its corners in order, clipped to the page, each side at least MIN_SIDE; and whether it widened."""
    x0, x1, wide_x = _fitted_side(bbox[0], bbox[2], width)
    y0, y1, wide_y = _fitted_side(bbox[1], bbox[3], height)
    return (x0, y0, x1, y1), wide_x or wide_y


def _fitted_side(low: float, high: float, extent: float) -> tuple[float, float, bool]:
    low, high = sorted((min(max(low, 0.0), extent), min(max(high, 0.0), extent)))
    if high - low >= MIN_SIDE:
        return low, high, False
    middle = (low + high) / 2  # rounded outwards to hundredths of a point, as stored, and kept on the page
    low = max(0.0, math.floor((middle - MIN_SIDE / 2) * 100) / 100)
    high = min(extent, math.ceil((middle + MIN_SIDE / 2) * 100) / 100)
    if high - low < MIN_SIDE:  # against an edge
        low, high = (0.0, MIN_SIDE) if low == 0.0 else (extent - MIN_SIDE, extent)
    return low, high, True


def table_text(table: Table) -> str:
    """A table's cell text row by row, as a text block holds it."""
    return "\n".join(" ".join(cell.text for cell in sorted(table.cells, key=lambda c: c.col) if cell.row == row)
                     for row in sorted({cell.row for cell in table.cells})).strip()
