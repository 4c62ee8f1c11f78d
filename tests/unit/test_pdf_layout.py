"""PyMuPDF's layout analysis as the tasks run it: on a worker's share of the cores, an analyzer per thread."""

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import onnx
import onnxruntime
import pymupdf
import pytest
from onnx import TensorProto, helper

from pages import pdf_layout
from pages.pdf import page_input
from pages.pdf_layout import set_layout_threads

ROWS = [["Region", "Q1", "Q2"], ["North", "120", "135"], ["South", "98", "101"], ["East", "77", "80"]]


def _identity_model(path: Path, shape: list[int | str]) -> Path:
    given = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    made = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "identity", [given], [made])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.mark.parametrize(("shape", "arena"), [([2, "edges"], False), (["batch", 3, "width"], False),
                                             (["batch", 3, 9], True)])
def test_sessions_made_for_the_analyzer_get_the_threads_do_not_spin_and_an_arena_if_of_fixed_size(
        tmp_path: Path, shape: list[int | str], arena: bool):
    model = _identity_model(tmp_path / "identity.onnx", shape)
    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False  # as PyMuPDF makes them
    with pdf_layout._made_lock, pdf_layout._sessions_with_threads(1):
        session = onnxruntime.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
    made = session.get_session_options()
    assert made.intra_op_num_threads == 1 and made.enable_cpu_mem_arena == arena
    assert made.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert onnxruntime.InferenceSession.__name__ == "InferenceSession"  # the class is put back


def test_the_analyzers_made_for_workers_still_find_a_ruled_table(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(pymupdf, "_get_layout", pymupdf._get_layout)  # restored after the test
    monkeypatch.setattr(pdf_layout, "_threads", None)
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((60, 80), "Table 1: Landings by region", fontsize=12)
    columns = [60, 220, 340, 460]
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            page.insert_text((columns[c] + 5, 117 + 25 * r), cell, fontsize=11)
    for y in range(100, 201, 25):
        page.draw_line((60, y), (460, y))
    for x in columns:
        page.draw_line((x, 100), (x, 200))
    path = tmp_path / "table.pdf"
    document.save(path)

    set_layout_threads(1)
    with ThreadPoolExecutor(max_workers=2) as pool:  # each worker thread has an analyzer of its own
        first, second = pool.map(lambda _: (time.sleep(0.1), pdf_layout._analyzer())[1], range(2))
    assert first is not second and pdf_layout._analyzer() is pdf_layout._analyzer()
    with pymupdf.open(path) as opened:
        item = page_input(opened[0], "p", path)
    [found] = item.found_tables
    assert (found.table.rows, found.table.cols) == (4, 3)
    assert [cell.text for cell in found.table.cells] == [text for row in ROWS for text in row]
