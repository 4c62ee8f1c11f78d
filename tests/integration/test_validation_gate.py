"""The validation gate on purpose-broken engine output: broken pages quarantined with their reasons, the rest stored."""

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from prefect import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey
from sqlalchemy import Engine, text

from engine.stages.tables import make_table
from engine.types import Block, Formula, PageResult, TableCell
from flows.digitize import digitize
from flows.reprocess import reprocess
from folio.samples import PARAGRAPHS, PageSpec, born_digital_pdf
from tasks import parse

RUN_ENGINE = parse._run_engine


def table_block(result: PageResult, cells: list[TableCell] | None = None, rows: int = 2, cols: int = 2) -> Block:
    cells = cells or [TableCell(r, c, f"{r}{c}") for r in range(rows) for c in range(cols)]
    return Block(type="table", bbox=(72, 600, 300, 700), table=make_table(rows, cols, cells),
                 order=len(result.blocks))


def formula_block(result: PageResult, latex: str) -> Block:
    return Block(type="formula", bbox=(100, 620, 400, 660), text="x", formula=Formula(latex, confidence=0.9),
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


BREAKAGES: list[tuple[str, Callable[[PageResult], PageResult]]] = [
    ("block type in the vocabulary", lambda r: first_block(r, type="banner")),
    ("confidence within [0, 1]", lambda r: first_block(r, confidence=1.7)),
    ("box inside the page", lambda r: first_block(r, bbox=(72, 72, r.width + 40, 90))),
    ("box not degenerate", lambda r: first_block(r, bbox=(72, 72, 300, 72.1))),
    ("reading order without repeats", repeated_order),
    ("reading order within 0..n-1", lambda r: first_block(r, order=len(r.blocks) + 3)),
    ("text block has text", lambda r: first_block(r, type="text", text="  ")),
    ("table cell inside its grid", cell_off_grid),
    ("one cell per grid slot", overlapping_cells),
    ("table HTML agrees with its cells", html_disagrees),
    ("formula LaTeX not empty", lambda r: with_block(r, formula_block(r, " "))),
    ("formula braces balanced", lambda r: with_block(r, formula_block(r, r"\frac{a}{b"))),
    ("formula environments balanced", lambda r: with_block(r, formula_block(
        r, r"\begin{matrix} a & b \end{array}"))),
    ("page with ink has blocks", lambda r: replace(r, blocks=[])),
    ("stored text covers the text layer", half_the_text),
]


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """One page per breakage, and two good pages after them."""
    folder = tmp_path / "archive"
    folder.mkdir()
    pages = [PageSpec(title=f"Register {number}", paragraphs=PARAGRAPHS[number % 4:number % 4 + 2])
             for number in range(len(BREAKAGES) + 2)]
    born_digital_pdf(folder / "registers.pdf", pages)
    return folder


def test_broken_pages_are_quarantined_with_their_reasons_and_the_rest_stored(
        database: Engine, archive: Path, monkeypatch: pytest.MonkeyPatch):
    def breaking(pipeline, inputs, log):
        results = RUN_ENGINE(pipeline, inputs, log)
        for key, result in results.items():
            page_no = int(key.split(":")[1])
            if page_no <= len(BREAKAGES):
                results[key] = BREAKAGES[page_no - 1][1](result)
        return results

    monkeypatch.setattr(parse, "_run_engine", breaking)
    summary = digitize(source=str(archive), batch_size=len(BREAKAGES) + 2)  # good and broken pages in one batch
    assert (summary.documents_quarantined, summary.pages_quarantined) == (1, len(BREAKAGES))

    with database.connect() as connection:
        pages = connection.execute(text(
            "SELECT p.page_no, p.status, count(b.id) AS blocks FROM pages p LEFT JOIN blocks b ON b.page_id = p.id "
            "GROUP BY p.page_no, p.status ORDER BY p.page_no")).all()
        issues = connection.execute(text(
            "SELECT p.page_no, i.rule, i.expectation, i.blocks, i.observed FROM page_issues i "
            "JOIN pages p ON p.id = i.page_id")).all()
        status, error = connection.execute(text("SELECT status, error FROM documents")).one()
    for page_no, (check, _) in enumerate(BREAKAGES, 1):
        assert pages[page_no - 1].status == "quarantined" and pages[page_no - 1].blocks == 0, check
        assert check in {issue.rule for issue in issues if issue.page_no == page_no}, check
    assert [(page.status, page.blocks > 0) for page in pages[len(BREAKAGES):]] == [("done", True), ("done", True)]
    assert {issue.page_no for issue in issues} == set(range(1, len(BREAKAGES) + 1))
    confidence = next(issue for issue in issues if issue.rule == "confidence within [0, 1]")
    assert (confidence.expectation, confidence.blocks, confidence.observed) == (
        "expect_column_values_to_be_between", [0], ["1.7"])
    assert (status, error) == ("quarantined", f"{len(BREAKAGES)} of {len(BREAKAGES) + 2} pages quarantined by "
                                              "validation")

    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
            "quarantined-pages"])))
    assert any("box inside the page" in str(artifact.data) and str(archive / "registers.pdf") in str(artifact.data)
               for artifact in artifacts)

    monkeypatch.setattr(parse, "_run_engine", RUN_ENGINE)  # an engine that no longer breaks them
    again = reprocess(statuses=["quarantined"])
    assert (again.documents_done, again.pages_quarantined) == (1, 0)
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM page_issues")).scalar() == 0
        assert connection.execute(text("SELECT DISTINCT status FROM pages")).scalars().all() == ["done"]
