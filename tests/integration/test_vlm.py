"""`folio run` with FOLIO_ENGINE=vlm against the tests' OpenAI-compatible server, into the real PostgreSQL: what
is stored and exported, retries of a busy or silent server, concurrency, the API key, reuse and reprocess."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import psycopg
import pymupdf
import pytest
from sqlalchemy import Engine

from db.server import libpq_url
from engine import ENGINE_VERSION
from engine.types import Block, Formula, PageResult, Table, TableCell
from tests import vlm_pages
from tests.integration.contract import assert_export_contract
from tests.integration.folio_process import FolioProcess, FolioRun, folio_env
from tests.vlm_server import Reply, Request, VlmServer, image_size, vlm_server
from validation.gate import validate_results

KEY = "sk-folio-secret-0c4e9a71"


def vlm_settings(server: VlmServer, **more: str) -> dict[str, str]:
    return {"FOLIO_ENGINE": "vlm", "FOLIO_VLM_URL": server.url, "FOLIO_VLM_MODEL": server.model,
            "FOLIO_DEVICE": "cpu", "FOLIO_RETRY_DELAY_SECONDS": "0", **more}


def folio(database_url: str, home: Path, *args: str, **settings: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "folio.cli", *args], env=folio_env(database_url, home, **settings),
                          capture_output=True, text=True, timeout=600)


def rows(database_url: str, query: str) -> list[tuple]:
    with psycopg.connect(libpq_url(database_url)) as connection:
        return connection.execute(query).fetchall()


def exported(database_url: str, home: Path, out: Path, **settings: str) -> dict[str, dict]:
    """`folio export` into `out`, by the file each document was first seen as."""
    done = folio(database_url, home, "export", "--out", str(out), **settings)
    assert done.returncode == 0, done.stdout + done.stderr
    exports = [json.loads(path.read_text()) for path in out.glob("*.json")]
    for export in exports:
        assert_export_contract(export)
    return {Path(export["document"]["source"]).name: export for export in exports}


def gate_issues(export: dict, pdf: Path) -> dict[str, list[str]]:
    """The validation gate run again over the exported pages (with their PDF's text layer): failed checks by page."""
    inputs = {f"{number}": page for number, page in enumerate(vlm_pages.page_inputs(pdf), 1)}
    results = []
    for page in export["pages"]:
        if page["status"] != "done":
            continue
        key = str(page["page_no"])
        inputs[key].key = key
        blocks = [Block(type=b["type"], bbox=tuple(b["bbox"]), text=b["text"], order=b["order"],
                        confidence=b.get("confidence"),
                        table=Table(rows=b["table"]["rows"], cols=b["table"]["cols"], html=b["table"]["html"],
                                    cells=[TableCell(**cell) for cell in b["table"]["cells"]]) if "table" in b
                        else None,
                        formula=Formula(latex=b["latex"]) if b["type"] == "formula" else None)
                  for b in page["blocks"]]
        results.append(PageResult(key=key, width=page["width"], height=page["height"],
                                  text_layer=page["text_layer"], blocks=blocks, engine_version="", stage_seconds={}))
    verdicts = validate_results(results, inputs)
    return {key: [issue.check for issue in verdict.issues] for key, verdict in verdicts.items()}


@pytest.fixture
def archive(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "archive"
    folder.mkdir()
    lines = vlm_pages.LINES
    return {"ledger": vlm_pages.ledger_pdf(folder / "ledger.pdf"),
            "letter": vlm_pages.turned_scan_pdf(folder / "letter-scan.pdf"),
            "malformed": vlm_pages.text_pdf(folder / "malformed.pdf", 500, lines),
            "busy": vlm_pages.text_pdf(folder / "busy.pdf", 520, lines),
            "slow": vlm_pages.text_pdf(folder / "slow.pdf", 540, lines)}


def test_folio_run_with_a_vlm_server(database: Engine, empty_database: str, archive: dict[str, Path],
                                     tmp_path: Path):
    sizes = {name: image_size(str(pdf)) for name, pdf in archive.items()}
    upright_letter = image_size(str(archive["letter"]), turn=270)
    assert len({*sizes.values(), upright_letter}) == 6  # the server tells the pages apart by their image's size
    with vlm_server(api_key=KEY, gather=3) as server:
        server.script(sizes["ledger"], Reply(vlm_pages.LEDGER_MARKDOWN))
        server.script(sizes["letter"], Reply(vlm_pages.ASKS_TO_TURN))
        server.script(upright_letter, Reply(vlm_pages.LETTER_MARKDOWN))
        server.script(sizes["malformed"], Reply("---\nprimary_language: en\nThe board met on Tuesday"))
        server.script(sizes["busy"], Reply(status=429, text="rate limited", echo_authorization=True),
                      Reply(vlm_pages.text_markdown(vlm_pages.LINES)))
        answer = vlm_pages.text_markdown(vlm_pages.LINES)
        server.script(sizes["slow"], Reply(delay=6, text=answer), Reply(answer))
        settings = vlm_settings(server, FOLIO_VLM_API_KEY=KEY, FOLIO_VLM_CONCURRENCY="3",
                                FOLIO_VLM_TIMEOUT_SECONDS="3", FOLIO_BATCH_SIZE="8")
        run = FolioRun(archive["ledger"].parent, empty_database, tmp_path / "home", **settings)
        code = run.finish()
        output = "".join(run.lines)
        assert code == 0, output[-4000:]
        info = folio(empty_database, tmp_path / "home", "engine", "info", **settings)
    exports = exported(empty_database, tmp_path / "home", tmp_path / "export", **settings)

    # concurrency honoured: the server held requests until three were in flight, and never saw more
    assert server.most_in_flight == 3
    # the 429 and the timeout were retried by the task's retry policy until the pages were read
    assert len(server.requests_for(sizes["busy"])) >= 2 and len(server.requests_for(sizes["slow"])) >= 2
    assert exports["busy.pdf"]["document"]["status"] == exports["slow.pdf"]["document"]["status"] == "done"
    # an answer that cannot be read fails its page with the reason
    malformed = exports["malformed.pdf"]
    assert malformed["document"]["status"] == "failed"
    assert malformed["pages"][0]["error"] == \
        "vlm: unreadable markdown answer: front matter opened with --- but never closed"
    # the ledger: headings, paragraphs, list items, a table with spans and <th>, a formula, in reading order
    ledger = exports["ledger.pdf"]["pages"][0]
    assert [(b["type"], b["text"][:24]) for b in ledger["blocks"]] == [
        ("title", "Harbour Office Accounts"), ("title", "Receipts for 1901"),
        ("text", "The harbour office kept "), ("list_item", "Dues from shipping and p"),
        ("list_item", "Rents of the quays and w"), ("table", "Series Volumes Boxes Pag"), ("formula", "a2 + b2 = c2"),
        ("text", "The accounts were audite")]
    table = ledger["blocks"][5]["table"]
    assert table["html"].startswith('<table><tr><th rowspan="2">Series</th><th colspan="2">Volumes</th></tr>')
    assert (table["rows"], table["cols"]) == (4, 3)
    assert ledger["blocks"][6]["latex"] == "a^{2} + b^{2} = c^{2}"
    assert all(b["bbox"] != [0, 0, ledger["width"], ledger["height"]] for b in ledger["blocks"])
    # the scan lying on its side: asked again turned, its blocks placed on the displayed page
    letter = exports["letter-scan.pdf"]["pages"][0]
    assert server.requests_for(upright_letter)
    assert [b["type"] for b in letter["blocks"]] == ["title", "text", "text"]
    assert letter["blocks"][0]["bbox"][0] > letter["width"] - 110  # the letter's top is the page's right edge
    # what was stored passes the validation gate, and nothing was flagged or quarantined on the way in
    for name in ("ledger", "letter", "busy", "slow"):
        assert gate_issues(exports[f"{archive[name].name}"], archive[name]) == {}
    assert rows(empty_database, "SELECT count(*) FROM page_issues") == [(0,)]
    versions = rows(empty_database, "SELECT DISTINCT engine_version FROM pages WHERE status = 'done'")
    assert [version.split("+")[0] for version, in versions] == [f"vlm:{server.model}:markdown:{ENGINE_VERSION}"]
    # the API key is nowhere: not in the run's output, the engine info, the database or the exports
    key_row = next(line for line in info.stdout.splitlines() if "API key" in line)
    assert "set" in key_row and "not set" not in key_row and "yes, serving" in info.stdout
    stored = rows(empty_database, "SELECT string_agg(coalesce(error, ''), ' ') FROM pages")[0][0] + \
        rows(empty_database, "SELECT string_agg(coalesce(error, ''), ' ') FROM documents")[0][0]
    files = "".join(path.read_text() for path in (tmp_path / "export").glob("*.json"))
    for text in (output, info.stdout + info.stderr, stored, files):
        assert KEY not in text


def test_layout_json_reuse_and_reprocess(database: Engine, empty_database: str, tmp_path: Path):
    folder = tmp_path / "archive"
    folder.mkdir()
    ledger = vlm_pages.ledger_pdf(folder / "ledger.pdf")
    size = image_size(str(ledger))
    home = tmp_path / "home"
    first = FolioRun(folder, empty_database, home)  # today's pipeline
    assert first.finish() == 0, "".join(first.lines)[-3000:]
    [(pipeline_version,)] = rows(empty_database, "SELECT engine_version FROM pages")
    assert pipeline_version.startswith(f"{ENGINE_VERSION}+")
    with vlm_server() as server:
        server.script(size, Reply(vlm_pages.ledger_layout_json(size)))
        settings = vlm_settings(server, FOLIO_VLM_FORMAT="layout-json")
        # documents parsed by the pipeline are parsed again with the VLM
        again = FolioProcess(["reprocess", "--engine-version"], empty_database, home, **settings)
        assert again.finish() == 0, "".join(again.lines)[-3000:]
        assert len(server.requests) == 1
        [(version,)] = rows(empty_database, "SELECT engine_version FROM pages")
        assert version.startswith(f"vlm:{server.model}:layout-json:{ENGINE_VERSION}+")
        # a re-saved copy of the page is reused by the same model and format, without a request
        copy = tmp_path / "copy"
        copy.mkdir()
        shutil.copy(ledger, copy / "ledger-copy.pdf")
        with open(copy / "ledger-copy.pdf", "ab") as handle:
            handle.write(b"% appended by a scanner station\n")
        reused = FolioRun(copy, empty_database, home, **settings)
        assert reused.finish() == 0 and len(server.requests) == 1
        # ...but not by another answer format, whose pages are another engine's
        (other := tmp_path / "other").mkdir()
        shutil.copy(copy / "ledger-copy.pdf", other / "ledger-other.pdf")
        with open(other / "ledger-other.pdf", "ab") as handle:
            handle.write(b"% and once more\n")
        server.script(size, Reply(vlm_pages.LEDGER_MARKDOWN))
        markdown = FolioRun(other, empty_database, home, **vlm_settings(server))
        assert markdown.finish() == 0 and len(server.requests) == 2
    exports = exported(empty_database, home, tmp_path / "export")
    blocks = exports["ledger.pdf"]["pages"][0]["blocks"]
    assert [b["type"] for b in blocks] == ["title", "title", "text", "list_item", "list_item", "table", "formula",
                                           "text"]
    assert blocks[0]["bbox"] == pytest.approx([58, 54, 270, 75], abs=1.0)  # the model's own box
    assert blocks[5]["table"]["cells"][1]["col_span"] == 2
    assert gate_issues(exports["ledger.pdf"], ledger) == {}
    reused_blocks = exports["ledger-copy.pdf"]["pages"][0]["blocks"]
    assert [(b["type"], b["text"]) for b in reused_blocks] == [(b["type"], b["text"]) for b in blocks]


def test_deepseek_ocr_grounded_markdown_on_a_born_digital_and_a_scanned_page(empty_database: str, tmp_path: Path):
    folder = tmp_path / "archive"
    folder.mkdir()
    ledger = vlm_pages.ledger_pdf(folder / "ledger.pdf")
    scan = vlm_pages.scanned_copy(vlm_pages.ledger_pdf(tmp_path / "wider.pdf", width=600), folder / "scan.pdf")
    malformed = vlm_pages.text_pdf(folder / "malformed.pdf", 500, vlm_pages.LINES)
    sizes = {name: image_size(str(pdf)) for name, pdf in (("ledger", ledger), ("scan", scan), ("bad", malformed))}
    with vlm_server() as server:
        server.script(sizes["ledger"], Reply(vlm_pages.ledger_grounded_markdown()))
        server.script(sizes["scan"], Reply(vlm_pages.ledger_grounded_markdown(width=600)))
        server.script(sizes["bad"], Reply("The board met on Tuesday."))  # no grounding: not this format
        settings = vlm_settings(server, FOLIO_VLM_FORMAT="deepseek-ocr")
        run = FolioRun(folder, empty_database, tmp_path / "home", **settings)
        assert run.finish() == 0, "".join(run.lines)[-3000:]
    assert {request.prompt for request in server.requests} == {"<|grounding|>Convert the document to markdown."}
    exports = exported(empty_database, tmp_path / "home", tmp_path / "export")
    assert exports["malformed.pdf"]["pages"][0]["error"] == \
        "vlm: unreadable deepseek-ocr answer: no <|ref|>…<|/ref|><|det|>…<|/det|> element in the answer"
    for name in ("ledger.pdf", "scan.pdf"):
        page = exports[name]["pages"][0]
        blocks = page["blocks"]
        assert page["text_layer"] is (name == "ledger.pdf")
        assert [(b["type"], b["text"][:24]) for b in blocks] == [
            ("title", "Harbour Office Accounts"), ("title", "Receipts for 1901"),
            ("text", "The harbour office kept "), ("list_item", "Dues from shipping and p"),
            ("list_item", "Rents of the quays and w"), ("table", "Series Volumes Boxes Pag"),
            ("formula", "a^{2} + b^{2} = c^{2}"), ("text", "The accounts were audite")], name
        for block, box in zip(blocks, vlm_pages.LEDGER_BOXES):  # the model's boxes, from 0-999 back to points
            assert block["bbox"] == pytest.approx(list(box), abs=1.5), (name, block["type"])
        cells = blocks[5]["table"]["cells"]
        assert (cells[0]["text"], cells[0]["row_span"], cells[1]["text"], cells[1]["col_span"]) == \
            ("Series", 2, "Volumes", 2)
        assert blocks[6]["latex"] == "a^{2} + b^{2} = c^{2}"
    versions = rows(empty_database, "SELECT DISTINCT engine_version FROM pages WHERE status = 'done'")
    assert [version.split("+")[0] for version, in versions] == [f"vlm:{server.model}:deepseek-ocr:{ENGINE_VERSION}"]


LEDGER_OTSL = ("<fcel>Series<fcel>Volumes<lcel><nl><ucel><fcel>Boxes<fcel>Pages<nl><fcel>Ledgers<fcel>112"
               "<fcel>38,400<nl><fcel>Letters<fcel>64<fcel>21,950<nl>")


def element_answer(request: Request) -> Reply:
    """PaddleOCR-VL's answer to a region, by its task prompt; a text region's answer names the crop's size."""
    if request.prompt == "Table Recognition:":
        return Reply(LEDGER_OTSL)
    if request.prompt == "Formula Recognition:":
        return Reply("$$a^{2} + b^{2} = c^{2}$$")
    if request.prompt == "OCR:":
        return Reply("Read {}x{}".format(*request.image_size))
    return Reply(status=400, text=f"no task prompt: {request.prompt!r}")


def test_paddleocr_vl_reads_each_region_folio_finds(empty_database: str, tmp_path: Path):
    folder = tmp_path / "archive"
    folder.mkdir()
    ledger = vlm_pages.ledger_pdf(tmp_path / "ledger.pdf")
    picture = np.tile(np.linspace(40, 220, 120, dtype=np.uint8), (100, 1))  # a grey gradient
    with pymupdf.open(ledger) as document:  # and a picture, which is not sent
        document[0].insert_image(pymupdf.Rect(420, 420, 540, 520), pixmap=pymupdf.Pixmap(
            pymupdf.csGRAY, picture.shape[1], picture.shape[0], picture.tobytes(), False))
        document.save(folder / "ledger.pdf")
    vlm_pages.scanned_copy(vlm_pages.ledger_pdf(tmp_path / "wider.pdf", width=600), folder / "scan.pdf")
    with vlm_server(gather=4) as server:
        server.answer_by(element_answer)
        settings = vlm_settings(server, FOLIO_VLM_FORMAT="paddleocr-vl", FOLIO_VLM_CONCURRENCY="4")
        run = FolioRun(folder, empty_database, tmp_path / "home", **settings)
        assert run.finish() == 0, "".join(run.lines)[-3000:]
        info = folio(empty_database, tmp_path / "home", "engine", "info", **settings)
    assert info.returncode == 0, info.stdout + info.stderr
    assert "paddleocr-vl" in info.stdout and "folio's pipeline" in info.stdout and "layout" in info.stdout
    exports = exported(empty_database, tmp_path / "home", tmp_path / "export")
    born, scanned = exports["ledger.pdf"]["pages"][0], exports["scan.pdf"]["pages"][0]
    # the born-digital page: its text regions keep the text layer's text; the table goes to the model
    assert [b["type"] for b in born["blocks"]][:6] == ["title", "title", "text", "list_item", "list_item", "table"]
    assert born["blocks"][0]["text"] == "Harbour Office Accounts" and "figure" in [b["type"] for b in born["blocks"]]
    # the scan: every region read by the model, in the pipeline's reading order
    assert [b["type"] for b in scanned["blocks"]] == ["title", "text", "text", "list_item", "list_item", "table",
                                                      "formula", "text"]
    read = [b for b in scanned["blocks"] if b["type"] not in ("table", "formula")]
    for block in read:  # the answer for its own crop: the box and the margin around it at 200 dpi
        width, height = map(int, block["text"].removeprefix("Read ").split("x"))
        x0, y0, x1, y1 = block["bbox"]
        assert (width, height) == pytest.approx(((x1 - x0 + 6) * 200 / 72, (y1 - y0 + 6) * 200 / 72), abs=2)
    for page in (born, scanned):
        table = next(b for b in page["blocks"] if b["type"] == "table")["table"]
        assert (table["rows"], table["cols"]) == (4, 3)
        assert [(c["text"], c["row_span"], c["col_span"]) for c in table["cells"][:2]] == \
            [("Series", 2, 1), ("Volumes", 1, 2)]
    assert next(b for b in scanned["blocks"] if b["type"] == "formula")["latex"] == "a^{2} + b^{2} = c^{2}"
    # one request a region of the kinds read, none for the picture or the layer's text; four in flight at once
    prompts = sorted(request.prompt for request in server.requests)
    assert prompts == sorted(["Table Recognition:"] * 2 + ["Formula Recognition:"] + ["OCR:"] * len(read))
    assert server.most_in_flight == 4
    versions = rows(empty_database, "SELECT DISTINCT engine_version FROM pages WHERE status = 'done'")
    assert [version.split("+")[0] for version, in versions] == [f"vlm:{server.model}:paddleocr-vl:{ENGINE_VERSION}"]


def test_engine_info_without_a_server(empty_database: str, tmp_path: Path):
    with vlm_server() as server:
        settings = vlm_settings(server, FOLIO_VLM_API_KEY=KEY)
    info = folio(empty_database, tmp_path / "home", "engine", "info", **settings)  # the server has stopped
    assert info.returncode == 0, info.stdout + info.stderr
    assert "no:" in info.stdout and "API key" in info.stdout and KEY not in info.stdout + info.stderr
    unnamed = folio(empty_database, tmp_path / "home", "engine", "info", FOLIO_ENGINE="vlm")
    assert unnamed.returncode == 2 and "FOLIO_VLM_URL" in unnamed.stderr
