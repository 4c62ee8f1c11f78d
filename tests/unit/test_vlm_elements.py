"""PaddleOCR-VL's element mode (engine/vlm/elements.py) on the ledger page, against the tests' OpenAI-compatible
server, and its OTSL tables (engine/vlm/otsl.py)."""

from pathlib import Path

import pytest

from engine.config import VlmConfig
from engine.vlm import build_vlm_engine, vlm_identity
from engine.vlm.answer import UnreadableAnswer
from engine.vlm.otsl import otsl_table
from tests.vlm_pages import ledger_pdf, page_inputs, turned_scan_pdf
from tests.vlm_server import Reply, Request, VlmServer, vlm_server

OTSL = "<fcel>Series<fcel>Volumes<lcel><nl><ucel><fcel>Boxes<fcel>Pages<nl><fcel>Ledgers<fcel>112<fcel>38,400<nl>"


def test_otsl_spans_headers_and_short_rows():
    table = otsl_table(OTSL)
    assert (table.rows, table.cols) == (3, 3)
    assert [(c.row, c.col, c.text, c.row_span, c.col_span) for c in table.cells][:2] == [
        (0, 0, "Series", 2, 1), (0, 1, "Volumes", 1, 2)]
    assert table.html.startswith('<table><tr><td rowspan="2">Series</td><td colspan="2">Volumes</td></tr>')
    block = otsl_table("<ched>Year<ched>Total<nl><fcel>A<lcel><ecel><nl><ucel><xcel><fcel>9<nl><fcel>x<nl>")
    assert (block.rows, block.cols) == (4, 3)  # the last row, one cell long, filled with empty cells
    cells = {(c.row, c.col): c for c in block.cells}
    assert cells[0, 0].header and cells[0, 1].header and not cells[1, 0].header
    assert (cells[1, 0].text, cells[1, 0].row_span, cells[1, 0].col_span) == ("A", 2, 2)
    assert [(c.row, c.col, c.text) for c in block.cells[-3:]] == [(3, 0, "x"), (3, 1, ""), (3, 2, "")]


@pytest.mark.parametrize(("answer", "reason"), [
    ("Series | Volumes", "no OTSL cell token"),
    ("<lcel>Volumes<nl>", "row 1, cell 1: <lcel> continues no cell"),
    ("<fcel>a<nl><xcel><nl>", "row 2, cell 1: <xcel> continues no cell"),
])
def test_otsl_that_describes_no_table_is_unreadable(answer: str, reason: str):
    with pytest.raises(UnreadableAnswer, match=reason):
        otsl_table(answer)


def engine_for(server: VlmServer, **settings):
    return build_vlm_engine(VlmConfig(url=server.url, model=server.model, device="cpu", timeout=5.0,
                                      format="paddleocr-vl", **settings))


def by_prompt(table: Reply):
    """The table's reply to table prompts; "Read" to every other region."""
    def choose(request: Request) -> Reply:
        return table if request.prompt == "Table Recognition:" else Reply("Read")
    return choose


@pytest.mark.parametrize(("table", "reason"), [
    (Reply("a table of ships"), "vlm: unreadable paddleocr-vl answer for the table at (80, 215, 348, 277): no OTSL"),
    (Reply(OTSL, finish_reason="length"), "vlm: the answer for the table at (80, 215, 348, 277) was cut off"),
    (Reply(status=400, text="image too small"), "vlm: "),
])
def test_a_region_whose_answer_cannot_be_used_fails_its_page(tmp_path: Path, table: Reply, reason: str):
    pdf = ledger_pdf(tmp_path / "ledger.pdf")
    with vlm_server() as server:
        server.answer_by(by_prompt(table))
        (result,) = engine_for(server)(page_inputs(pdf))
    assert result.error.startswith(reason) and result.blocks == []
    if table.status == 400:
        assert "answered 400" in result.error and "image too small" in result.error


def test_text_regions_of_a_born_digital_page_are_read_only_when_asked(tmp_path: Path):
    pdf = ledger_pdf(tmp_path / "ledger.pdf")
    with vlm_server() as server:
        server.answer_by(by_prompt(Reply(OTSL)))
        layer = engine_for(server)
        (kept,) = layer(page_inputs(pdf))
        asked = len(server.requests)
        every = engine_for(server, text="all")
        (read,) = every(page_inputs(pdf))
    assert asked == 1 and kept.blocks[0].text == "Harbour Office Accounts" and kept.blocks[0].lines
    assert [block.text for block in read.blocks if block.type != "table"] == ["Read"] * 7
    assert all(block.lines == [] for block in read.blocks)  # the pipeline's lines no longer match the text
    assert len(server.requests) == asked + 8
    assert layer.version != every.version == vlm_identity(every.config).version


def test_regions_of_a_scan_lying_on_its_side_are_sent_upright(tmp_path: Path):
    pdf = turned_scan_pdf(tmp_path / "letter.pdf")
    with vlm_server() as server:
        server.answer_by(by_prompt(Reply(OTSL)))
        (result,) = engine_for(server)(page_inputs(pdf))
    assert result.error is None and result.turn in (90, 270)
    sizes = [request.image_size for request in server.requests]  # a title and paragraphs: wider than tall upright
    assert len(sizes) == len(result.blocks) and all(width > height for width, height in sizes)
