"""The VLM engine against the tests' OpenAI-compatible server: requests, answers, errors, concurrency, turns."""

import re
from pathlib import Path

import pytest

from engine import ENGINE_VERSION
from engine.config import VlmConfig
from engine.types import PageInput
from engine.vlm import VlmEngine, build_vlm_engine, vlm_identity
from engine.vlm.client import ServerBusy, ServerTimeout, ServerUnreachable
from sources.failures import is_transient
from tests.vlm_pages import (
    ASKS_TO_TURN,
    LEDGER_MARKDOWN,
    LETTER_MARKDOWN,
    LINES,
    ledger_layout_json,
    ledger_pdf,
    page_inputs,
    text_markdown,
    text_pdf,
    turned_scan_pdf,
)
from tests.vlm_server import Reply, VlmServer, image_size, vlm_server

KEY = "sk-folio-unit-5e1d"


def engine_for(server: VlmServer, **settings) -> VlmEngine:
    config = VlmConfig(url=server.url, model=server.model, api_key=server.api_key, device="cpu",
                       **{"timeout": 5.0, **settings})
    return build_vlm_engine(config)


def text_pages(folder: Path, widths: list[float]) -> tuple[list[PageInput], list[tuple[int, int]]]:
    """One born-digital page per width (so the server tells them apart) and their image sizes."""
    inputs, sizes = [], []
    for number, width in enumerate(widths, 1):
        pdf = text_pdf(folder / f"page-{number}.pdf", width, LINES)
        inputs += page_inputs(pdf, number)
        sizes.append(image_size(str(pdf)))
    return inputs, sizes


def test_a_page_is_sent_as_a_png_with_the_formats_prompt_and_read_into_blocks(tmp_path: Path):
    pdf = ledger_pdf(tmp_path / "ledger.pdf")
    with vlm_server(api_key=KEY) as server:
        server.script(image_size(str(pdf)), Reply(LEDGER_MARKDOWN))
        engine = engine_for(server)
        (result,) = engine(page_inputs(pdf))
    (request,) = server.requests
    assert request.authorization == f"Bearer {KEY}" and "front matter" in request.prompt
    assert result.error is None and result.text_layer and result.ink > 0
    assert result.engine_version == engine.version == vlm_identity(engine.config).version
    assert re.fullmatch(rf"vlm:{server.model}:markdown:{re.escape(ENGINE_VERSION)}\+[0-9a-f]{{12}}", engine.version)
    assert [block.type for block in result.blocks] == ["title", "title", "text", "list_item", "list_item", "table",
                                                       "formula", "text"]
    assert [block.order for block in result.blocks] == list(range(8))
    assert all(block.placed for block in result.blocks)
    title, heading, _, _, _, table, formula, last = result.blocks
    assert title.bbox[1] < heading.bbox[1] < table.bbox[1] < formula.bbox[1] < last.bbox[1]
    assert 45 < title.bbox[1] < 60 and title.bbox[3] < 80  # on the title's line, not the whole page
    assert table.table.cells[1].col_span == 2 and table.table.cells[0].row_span == 2
    assert 70 <= table.bbox[0] and table.bbox[3] < 285
    assert formula.formula.latex == "a^{2} + b^{2} = c^{2}" and formula.text == "a2 + b2 = c2"


def test_layout_json_keeps_the_models_boxes(tmp_path: Path):
    pdf = ledger_pdf(tmp_path / "ledger.pdf")
    size = image_size(str(pdf))
    with vlm_server() as server:
        server.script(size, Reply(ledger_layout_json(size)))
        (result,) = engine_for(server, format="layout-json")(page_inputs(pdf))
    (request,) = server.requests
    assert "Layout Categories" in request.prompt
    assert [block.type for block in result.blocks] == ["title", "title", "text", "list_item", "list_item", "table",
                                                       "formula", "text"]
    assert result.blocks[0].bbox == pytest.approx((58, 54, 270, 75), abs=1.0)
    assert result.blocks[5].table.rows == 4 and result.blocks[6].formula.latex == "a^{2} + b^{2} = c^{2}"
    assert result.engine_version.startswith(f"vlm:{server.model}:layout-json:")


def test_an_unreadable_answer_fails_its_page_only(tmp_path: Path):
    inputs, sizes = text_pages(tmp_path, [500, 520, 540])
    with vlm_server() as server:
        server.script(sizes[0], Reply("---\nprimary_language: en\nis_rotation_valid: True\nThe page, never closed"))
        server.script(sizes[1], Reply(text_markdown(LINES)))
        server.script(sizes[2], Reply(text_markdown(LINES), finish_reason="length"))
        broken, good, cut = engine_for(server)(inputs)
    assert broken.error == "vlm: unreadable markdown answer: front matter opened with --- but never closed"
    assert broken.blocks == []
    assert good.error is None and [block.type for block in good.blocks] == ["text"]
    assert cut.error == "vlm: the answer was cut off at the server's token limit"


@pytest.mark.parametrize(("reply", "error"), [
    (Reply(status=429, text="slow down"), ServerBusy),
    (Reply(status=503, text="loading the model"), ServerBusy),
    (Reply(delay=3.0, text="late"), ServerTimeout),
])
def test_a_busy_or_silent_server_raises_a_transient_error(tmp_path: Path, reply: Reply, error: type):
    inputs, sizes = text_pages(tmp_path, [500, 520])
    with vlm_server() as server:
        server.script(sizes[0], Reply(text_markdown(LINES)))
        server.script(sizes[1], reply)
        with pytest.raises(error) as raised:
            engine_for(server, timeout=1.0)(inputs)
    assert is_transient(raised.value)  # the parse task's retry policy retries it


def test_an_unreachable_server_raises_a_transient_error(tmp_path: Path):
    inputs, _ = text_pages(tmp_path, [500])
    with vlm_server() as server:
        url, model = server.url, server.model
    engine = build_vlm_engine(VlmConfig(url=url, model=model, device="cpu", timeout=2.0))  # it may come up later
    with pytest.raises(ServerUnreachable) as raised:
        engine(inputs)
    assert is_transient(raised.value)


def test_a_refused_request_fails_the_page_with_the_servers_reason(tmp_path: Path):
    inputs, sizes = text_pages(tmp_path, [500])
    with vlm_server(api_key=KEY) as server:
        server.script(sizes[0], Reply(status=400, text="the prompt is too long", echo_authorization=True))
        (result,) = engine_for(server)(inputs)
    assert "answered 400 Bad Request" in result.error and "the prompt is too long" in result.error
    assert KEY not in result.error and "Bearer ***" in result.error


def test_the_api_key_is_kept_out_of_messages(tmp_path: Path):
    inputs, sizes = text_pages(tmp_path, [500])
    with vlm_server(api_key=KEY) as server:
        server.script(sizes[0], Reply(status=500, text="upstream failed", echo_authorization=True))
        engine = engine_for(server)
        with pytest.raises(ServerBusy) as raised:
            engine(inputs)
        shown = engine.describe()
    assert KEY not in str(raised.value) and "Bearer ***" in str(raised.value)
    assert ("API key", "set") in shown and KEY not in repr(shown) + repr(engine.config)


def test_a_model_the_server_does_not_serve_is_an_error():
    with vlm_server() as server, pytest.raises(ValueError, match="not other/model"):
        build_vlm_engine(VlmConfig(url=server.url, model="other/model", device="cpu"))


@pytest.mark.parametrize("concurrency", [2, 3])
def test_no_more_requests_in_flight_than_allowed(tmp_path: Path, concurrency: int):
    widths = [500 + 10 * number for number in range(6)]
    inputs, sizes = text_pages(tmp_path, widths)
    with vlm_server(gather=concurrency) as server:  # holds each request until `concurrency` are in flight
        for size in sizes:
            server.script(size, Reply(text_markdown(LINES)))
        results = engine_for(server, concurrency=concurrency)(inputs)
    assert all(result.error is None for result in results)
    assert server.most_in_flight == concurrency


def test_a_page_the_model_says_is_turned_is_sent_again_turned(tmp_path: Path):
    pdf = turned_scan_pdf(tmp_path / "letter.pdf")
    lying, upright = image_size(str(pdf)), image_size(str(pdf), turn=270)
    assert upright == (lying[1], lying[0])
    with vlm_server() as server:
        server.script(lying, Reply(ASKS_TO_TURN))
        server.script(upright, Reply(LETTER_MARKDOWN))
        (page,) = page_inputs(pdf)
        (result,) = engine_for(server)([page])
    assert [request.image_size for request in server.requests] == [lying, upright]
    assert result.error is None and not result.text_layer
    assert [block.type for block in result.blocks] == ["title", "text", "text"]
    assert all(block.placed for block in result.blocks)
    title, first, second = result.blocks
    # the letter's top lies at the page's right-hand edge: its title rightmost, its paragraphs further left
    assert page.width - 110 < title.bbox[0] and title.bbox[2] <= page.width
    assert first.bbox[2] < title.bbox[0] and second.bbox[2] < first.bbox[0]
    assert first.bbox[3] - first.bbox[1] > 300  # a paragraph runs down the turned page


def test_anchor_text_puts_the_text_layer_in_the_prompt(tmp_path: Path):
    inputs, sizes = text_pages(tmp_path, [500])
    with vlm_server() as server:
        server.script(sizes[0], Reply(text_markdown(LINES)))
        engine_for(server, anchor_text=True)(inputs)
    (request,) = server.requests
    assert "RAW_TEXT_START\nPage dimensions: 500.0x792.0\n[60x" in request.prompt and LINES[1] in request.prompt
