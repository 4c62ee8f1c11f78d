"""The validation gate on purpose-broken engine output: a broken block is repaired, kept as text or dropped with
its failed check recorded against it and the page keeps its other blocks; only pages on which nothing can be
trusted are quarantined."""

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
from sqlalchemy import Engine, text

from db.export import write_exports
from db.store import Selection
from engine.table_grid import make_table
from engine.types import Block, Formula, PageResult, TableCell
from flows.digitize import digitize
from flows.reprocess import reprocess
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from pages import parsing as page_parsing
from validation.gate import (
    CLIPPED,
    CONFIDENCE_REMOVED,
    DROPPED,
    HTML_REBUILT,
    KEPT_AS_TEXT,
    QUARANTINED,
    RENUMBERED,
    WIDENED,
)

RUN_ENGINE = page_parsing.run_engine


def table_block(result: PageResult, cells: list[TableCell] | None = None, rows: int = 2, cols: int = 2) -> Block:
    cells = cells or [TableCell(r, c, f"{r}{c}") for r in range(rows) for c in range(cols)]
    return Block(type="table", bbox=(72, 600, 300, 700), table=make_table(rows, cols, cells),
                 order=len(result.blocks))


def formula_block(result: PageResult, latex: str, glyphs: str = "x") -> Block:
    return Block(type="formula", bbox=(100, 620, 400, 660), text=glyphs, formula=Formula(latex, confidence=0.9),
                 order=len(result.blocks))


def with_block(result: PageResult, block: Block) -> PageResult:
    return replace(result, blocks=[*result.blocks, block])


def first_block(result: PageResult, **changes) -> PageResult:
    return replace(result, blocks=[replace(result.blocks[0], **changes), *result.blocks[1:]])


def overlapping_cells(result: PageResult) -> PageResult:
    block = table_block(result)
    block.table.cells.append(TableCell(0, 0, "again"))
    return with_block(result, block)


def html_disagrees(result: PageResult) -> PageResult:
    block = table_block(result)
    block.table.html = block.table.html.replace("<td>11</td>", "<td>eleven</td>")
    return with_block(result, block)


def cell_off_grid(result: PageResult) -> PageResult:
    block = table_block(result)
    block.table.cells[-1].row = 5
    return with_block(result, block)


def repeated_order(result: PageResult) -> PageResult:
    return replace(result, blocks=[*result.blocks[:-1], replace(result.blocks[-1], order=0)])


def half_the_text(result: PageResult) -> PageResult:
    return replace(result, blocks=result.blocks[:1])


LAST = -1  # the block a breakage added at the end of the page
# (check, breakage, the engine block it breaks, what is done about it, blocks stored relative to the engine's)
BLOCK_BREAKAGES: list[tuple[str, Callable[[PageResult], PageResult], int, str, int]] = [
    ("block type in the vocabulary", lambda r: first_block(r, type="banner"), 0, KEPT_AS_TEXT, 0),
    ("confidence within [0, 1]", lambda r: first_block(r, confidence=1.7), 0, CONFIDENCE_REMOVED, 0),
    ("box inside the page", lambda r: first_block(r, bbox=(72, 72, r.width + 40, 90)), 0, CLIPPED, 0),
    ("box not degenerate", lambda r: first_block(r, bbox=(72, 72, 300, 72.1)), 0, WIDENED, 0),
    ("text block has text", lambda r: first_block(r, type="text", text="  "), 0, DROPPED, -1),
    ("table cell inside its grid", cell_off_grid, LAST, KEPT_AS_TEXT, 1),
    ("one cell per grid slot", overlapping_cells, LAST, KEPT_AS_TEXT, 1),
    ("table HTML agrees with its cells", html_disagrees, LAST, HTML_REBUILT, 1),
    ("formula LaTeX not empty", lambda r: with_block(r, formula_block(r, " ")), LAST, KEPT_AS_TEXT, 1),
    ("formula braces balanced", lambda r: with_block(r, formula_block(r, r"\frac{a}{b")), LAST, KEPT_AS_TEXT, 1),
    ("formula environments balanced", lambda r: with_block(r, formula_block(
        r, r"\begin{matrix} a & b \end{array}")), LAST, KEPT_AS_TEXT, 1),
]
ORDER_BREAKAGES: list[tuple[str, Callable[[PageResult], PageResult]]] = [
    ("reading order without repeats", repeated_order),
    ("reading order within 0..n-1", lambda r: first_block(r, order=len(r.blocks) + 3)),
]
PAGE_BREAKAGES: list[tuple[str, Callable[[PageResult], PageResult]]] = [
    ("page with ink has blocks", lambda r: replace(r, blocks=[])),
    ("stored text covers the text layer", half_the_text),
]
BREAKAGES = [(check, breakage) for check, breakage, *_ in BLOCK_BREAKAGES] + ORDER_BREAKAGES + PAGE_BREAKAGES
GOOD_PAGES = 2


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """One page per breakage, and two good pages after them."""
    folder = tmp_path / "archive"
    folder.mkdir()
    pages = [PageSpec(title=f"Register {number}", paragraphs=PARAGRAPHS[number % 4:number % 4 + 2])
             for number in range(len(BREAKAGES) + GOOD_PAGES)]
    born_digital_pdf(folder / "registers.pdf", pages)
    return folder


def breaking_engine(breakages: dict[int, Callable[[PageResult], PageResult]], engine_blocks: dict[int, list[Block]]):
    """The real engine, with the output of some pages broken on purpose; the engine's own blocks kept per page."""
    def breaking(pipeline, inputs, budget, log):
        results = RUN_ENGINE(pipeline, inputs, budget, log)
        for key, result in results.items():
            page_no = int(key.split(":")[1])
            engine_blocks[page_no] = list(result.blocks)
            if page_no in breakages:
                results[key] = breakages[page_no](result)
        return results
    return breaking


def run_artifacts(flow_run_id) -> dict[str, list[dict]]:
    """The table artifacts of one flow run, by key."""
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(
            any_=[flow_run_id])))
    return {artifact.key: json.loads(artifact.data) for artifact in artifacts if artifact.type == "table"}


def test_broken_blocks_are_repaired_against_their_issue_and_only_untrustworthy_pages_quarantined(
        database: Engine, archive: Path, monkeypatch: pytest.MonkeyPatch):
    engine_blocks: dict[int, list[Block]] = {}
    monkeypatch.setattr(page_parsing, "run_engine", breaking_engine(
        {page_no: breakage for page_no, (_, breakage) in enumerate(BREAKAGES, 1)}, engine_blocks))
    state = digitize(source=str(archive), batch_size=len(BREAKAGES) + GOOD_PAGES,  # good and broken in one batch
                     return_state=True)
    summary = state.result()
    assert (summary.documents_quarantined, summary.pages_quarantined) == (1, len(PAGE_BREAKAGES))
    assert (summary.pages_flagged, summary.blocks_flagged) == (
        len(BLOCK_BREAKAGES) + len(ORDER_BREAKAGES), len(BLOCK_BREAKAGES))

    with database.connect() as connection:
        pages = {row.page_no: row for row in connection.execute(text(
            "SELECT p.page_no, p.status, p.width, count(b.id) AS blocks, array_agg(b.reading_order) AS orders "
            "FROM pages p LEFT JOIN blocks b ON b.page_id = p.id GROUP BY p.page_no, p.status, p.width"))}
        issues = connection.execute(text(
            "SELECT p.page_no, i.rule, i.expectation, i.blocks, i.observed, i.action, i.block_id, b.type, b.text, "
            "b.x0, b.y0, b.x1, b.y1, b.confidence, "
            "(SELECT count(*) FROM formulas f WHERE f.block_id = b.id) AS formulas, "
            "(SELECT t.html FROM tables t WHERE t.block_id = b.id) AS html "
            "FROM page_issues i JOIN pages p ON p.id = i.page_id LEFT JOIN blocks b ON b.id = i.block_id "
            "ORDER BY p.page_no, i.id")).all()
        status, error = connection.execute(text("SELECT status, error FROM documents")).one()

    for page_no, (check, _, broken, action, more) in enumerate(BLOCK_BREAKAGES, 1):
        engine = engine_blocks[page_no]
        assert (pages[page_no].status, pages[page_no].blocks) == ("done", len(engine) + more), check
        assert sorted(pages[page_no].orders) == list(range(len(engine) + more)), check
        found = [issue for issue in issues if issue.page_no == page_no]  # a block may fail more than one check
        (issue,) = [issue for issue in found if issue.rule == check]
        index = len(engine) if broken == LAST else broken
        assert (issue.blocks, issue.action) == ([index], action), check
        assert {(tuple(i.blocks), i.action, i.block_id) for i in found} == {((index,), action, issue.block_id)}, check
        assert (issue.block_id is None) == (action == DROPPED), check
    by_rule = {issue.rule: issue for issue in issues}
    first_text = engine_blocks[1][0].text
    assert (by_rule["block type in the vocabulary"].type, by_rule["block type in the vocabulary"].text) == (
        "text", first_text)
    confidence = by_rule["confidence within [0, 1]"]
    assert (confidence.expectation, confidence.observed, confidence.confidence) == (
        "expect_column_values_to_be_between", ["1.7"], None)
    assert by_rule["box inside the page"].x1 == pages[3].width
    assert by_rule["box not degenerate"].y1 - by_rule["box not degenerate"].y0 >= 0.5
    for check in ("table cell inside its grid", "one cell per grid slot"):
        assert (by_rule[check].type, by_rule[check].html) == ("text", None) and "00" in by_rule[check].text
    assert by_rule["table HTML agrees with its cells"].type == "table"
    assert "<td>11</td>" in by_rule["table HTML agrees with its cells"].html
    for check in ("formula LaTeX not empty", "formula braces balanced", "formula environments balanced"):
        assert (by_rule[check].type, by_rule[check].text, by_rule[check].formulas) == ("text", "x", 0), check

    for page_no, (check, _) in enumerate(ORDER_BREAKAGES, len(BLOCK_BREAKAGES) + 1):
        engine = engine_blocks[page_no]
        assert (pages[page_no].status, sorted(pages[page_no].orders)) == ("done", list(range(len(engine)))), check
        assert [(i.rule, i.action, i.block_id) for i in issues if i.page_no == page_no] == [(check, RENUMBERED, None)]

    for page_no, (check, _) in enumerate(PAGE_BREAKAGES, len(BLOCK_BREAKAGES) + len(ORDER_BREAKAGES) + 1):
        assert (pages[page_no].status, pages[page_no].blocks) == ("quarantined", 0), check
        found = [issue for issue in issues if issue.page_no == page_no]
        assert check in {issue.rule for issue in found}, check
        assert {(issue.action, issue.block_id) for issue in found} == {(QUARANTINED, None)}, check

    good = range(len(BREAKAGES) + 1, len(BREAKAGES) + GOOD_PAGES + 1)
    assert [(pages[page_no].status, pages[page_no].blocks > 0) for page_no in good] == [("done", True)] * GOOD_PAGES
    assert {issue.page_no for issue in issues} == set(range(1, len(BREAKAGES) + 1))
    assert (status, error) == ("quarantined", f"{len(PAGE_BREAKAGES)} of {len(BREAKAGES) + GOOD_PAGES} pages "
                                              "quarantined by validation")

    artifacts = run_artifacts(state.state_details.flow_run_id)
    [counts] = artifacts["run-summary"]
    assert (counts["pages quarantined"], counts["pages with flagged blocks"], counts["blocks flagged"]) == (
        len(PAGE_BREAKAGES), len(BLOCK_BREAKAGES) + len(ORDER_BREAKAGES), len(BLOCK_BREAKAGES))
    quarantined = artifacts["quarantined-pages"]
    assert [row["page"] for row in quarantined] == [
        len(BLOCK_BREAKAGES) + len(ORDER_BREAKAGES) + n for n in range(1, len(PAGE_BREAKAGES) + 1)]
    assert "page with ink has blocks" in quarantined[0]["failed checks"]
    flagged = artifacts["flagged-blocks"]
    assert [row["page"] for row in flagged] == list(range(1, len(BLOCK_BREAKAGES) + len(ORDER_BREAKAGES) + 1))
    assert {row["file"] for row in flagged} == {str(archive / "registers.pdf")}
    assert sum(row["blocks flagged"] for row in flagged) == len(BLOCK_BREAKAGES)
    assert "box inside the page" in flagged[2]["failed checks"]

    monkeypatch.setattr(page_parsing, "run_engine", RUN_ENGINE)  # an engine that no longer breaks them
    again = reprocess(Selection(statuses=("quarantined",)))
    assert (again.documents_done, again.pages_quarantined, again.blocks_flagged) == (1, 0, 0)
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM page_issues")).scalar() == 0
        assert connection.execute(text("SELECT DISTINCT status FROM pages")).scalars().all() == ["done"]


def test_a_page_whose_formula_fails_validation_keeps_its_text_blocks(
        database: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The issue's acceptance test: unbalanced LaTeX costs the formula its LaTeX, not the page its text."""
    folder = tmp_path / "archive"
    folder.mkdir()
    pdf = born_digital_pdf(folder / "minutes.pdf", [PageSpec(title="Minutes", paragraphs=PARAGRAPHS[:3]),
                                                     PageSpec(title="Accounts", paragraphs=PARAGRAPHS[1:3])])
    engine_blocks: dict[int, list[Block]] = {}
    monkeypatch.setattr(page_parsing, "run_engine", breaking_engine(
        {1: lambda r: with_block(r, formula_block(r, r"E = m c^{2", glyphs="E = mc2"))}, engine_blocks))
    summary = digitize(source=str(folder))
    assert (summary.documents_done, summary.documents_quarantined, summary.pages_quarantined) == (1, 0, 0)
    assert (summary.pages_flagged, summary.blocks_flagged) == (1, 1)

    with database.connect() as connection:
        status, error = connection.execute(text("SELECT status, error FROM documents")).one()
        page_status = connection.execute(text("SELECT status FROM pages WHERE page_no = 1")).scalar()
        stored = connection.execute(text(
            "SELECT b.id, b.reading_order, b.type, b.text FROM blocks b JOIN pages p ON p.id = b.page_id "
            "WHERE p.page_no = 1 ORDER BY b.reading_order")).all()
        (issue,) = connection.execute(text("SELECT rule, blocks, observed, action, block_id FROM page_issues")).all()
        formulas = connection.execute(text("SELECT count(*) FROM formulas")).scalar()
    engine = engine_blocks[1]
    assert (status, error, page_status) == ("done", None, "done")
    assert any(block.type == "text" for block in engine)
    assert [(row.type, row.text) for row in stored] == [(block.type, block.text) for block in engine] + [
        ("text", "E = mc2")]  # every text block of the engine's, then the formula's text-layer text
    assert [row.reading_order for row in stored] == list(range(len(engine) + 1))
    assert (issue.rule, issue.blocks, issue.observed, issue.action, issue.block_id) == (
        "formula braces balanced", [len(engine)], ["False"], KEPT_AS_TEXT, stored[-1].id)
    assert formulas == 0

    write_exports(database, tmp_path / "export")
    (export,) = [json.loads(path.read_text()) for path in (tmp_path / "export").glob("*.json")]
    first = export["pages"][0]
    assert (export["document"]["status"], first["status"]) == ("done", "done")
    assert [block["text"] for block in first["blocks"]][-1] == "E = mc2"
    assert all(isinstance(block.get("latex"), str) for page in export["pages"] for block in page["blocks"]
               if block["type"] == "formula")  # a formula block carries latex: one without it is text

    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "minutes-again.pdf").write_bytes(pdf.read_bytes() + b"% appended by a scanner station\n")
    again = digitize(source=str(copy))
    assert (again.documents_reused, again.pages_parsed) == (1, 0)
    with database.connect() as connection:
        copied = connection.execute(text(
            "SELECT i.rule, i.action, b.reading_order, b.text FROM page_issues i JOIN pages p ON p.id = i.page_id "
            "JOIN documents d ON d.id = p.document_id JOIN blocks b ON b.id = i.block_id "
            "WHERE d.first_source LIKE '%minutes-again.pdf'")).all()
    assert [tuple(row) for row in copied] == [("formula braces balanced", KEPT_AS_TEXT, len(engine), "E = mc2")]
