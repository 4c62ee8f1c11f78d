"""The OCR stage on scanned pages in a script PP-OCR cannot read: Tesseract reads them, or they say why.

Debian's tesseract-ocr with tesseract-ocr-kor is required (`make test` installs them).
"""

import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein

from engine.ocr.detector import TextDetector
from engine.ocr.fallback import ScriptFallback
from engine.ocr.models import find_ocr_models
from engine.ocr.recognizer import TextRecognizer
from engine.ocr.tesseract import TesseractReader
from engine.page_source import PageRenderer, PageSource
from engine.runtime import OnnxModel
from engine.stages.ocr import OcrStage
from engine.types import PageInput, PageState

KOREAN = ["보험회사에서 그동안 판매했거나 향후", "판매하게 될 보험상품의 입원 및 사망의",
          "재해 인정 여부에 대하여 보험실무상 혼선"]
ENGLISH = ["Harbour ledgers 1890-1935 of the port", "Building permits and board minutes kept",
           "Reading room closed in spring and summer"]


def scan(tmp_path, name, lines, fontname, source: PageSource) -> PageState:
    """A one-page PDF that is only an image of the lines, as a scanner makes it."""
    drawn = pymupdf.open()
    page = drawn.new_page(width=400, height=160)
    for i, text in enumerate(lines):
        page.insert_text((24, 44 + 40 * i), text, fontname=fontname, fontsize=14)
    pixmap = page.get_pixmap(dpi=200)
    scanned = pymupdf.open()
    scanned.new_page(width=400, height=160).insert_image(pymupdf.Rect(0, 0, 400, 160), pixmap=pixmap)
    path = tmp_path / f"{name}.pdf"
    scanned.save(path)
    return PageState(PageInput(name, str(path), 0, 400, 160, []), use_text_layer=False,
                     ocr_regions=[(0.0, 0.0, 400.0, 160.0)], source=source)


@pytest.fixture(scope="module")
def models():
    files = find_ocr_models()
    return TextDetector(OnnxModel(files.det, "cpu")), TextRecognizer(OnnxModel(files.rec, "cpu"))


class Refusing(ScriptFallback):
    """A fallback that must not be called."""

    def __init__(self):
        super().__init__(None)

    def __call__(self, image, dpi, trust, crops, boxes):
        raise AssertionError(f"fallback called on a readable page: {trust.describe()}")


def test_hangul_comes_out_through_tesseract(models, tmp_path, page_source: PageSource):
    reader = TesseractReader.find()
    assert reader is not None and "kor" in reader.languages, "needs Debian's tesseract-ocr and tesseract-ocr-kor"
    page = scan(tmp_path, "ko", KOREAN, "korea", page_source)
    OcrStage(PageRenderer(150, 25_000_000), *models, ScriptFallback(reader))([page])
    assert page.untrusted is None
    text = " ".join(line.text for line in sorted(page.lines, key=lambda line: line.bbox[1]))
    assert Levenshtein.normalized_distance(text, " ".join(KOREAN)) < 0.15, text
    assert all(0 <= line.bbox[0] < line.bbox[2] <= 400 and 0 <= line.bbox[1] < line.bbox[3] <= 160
               for line in page.lines)
    assert all(8 < line.size < 20 for line in page.lines)  # 14 pt text


def test_hangul_cells_side_by_side_stay_apart(models, tmp_path, page_source: PageSource):
    """Tesseract reads the detector's lines, so two cells of a table row do not run into one line."""
    drawn = pymupdf.open()
    page = drawn.new_page(width=400, height=160)
    for y, (left, right) in zip((44, 84, 124), (KOREAN[0].split(" ", 1), ("구분", "개정전"), ("분류", "1급 감염병"))):
        page.insert_text((24, y), left, fontname="korea", fontsize=14)
        page.insert_text((240, y), right, fontname="korea", fontsize=14)
    scanned = pymupdf.open()
    scanned.new_page(width=400, height=160).insert_image(page.rect, pixmap=page.get_pixmap(dpi=200))
    path = tmp_path / "cells.pdf"
    scanned.save(path)
    state = PageState(PageInput("cells", str(path), 0, 400, 160, []), use_text_layer=False,
                      ocr_regions=[(0.0, 0.0, 400.0, 160.0)], source=page_source)
    OcrStage(PageRenderer(150, 25_000_000), *models, ScriptFallback(TesseractReader.find()))([state])
    assert state.untrusted is None
    left = [line for line in state.lines if line.bbox[2] < 230]
    right = [line for line in state.lines if line.bbox[0] > 230]
    assert len(left) == 3 and len(right) == 3, [(line.text, line.bbox) for line in state.lines]
    assert Levenshtein.normalized_distance(" ".join(line.text for line in sorted(right, key=lambda x: x.bbox[1])),
                                           " ".join([KOREAN[0].split(" ", 1)[1], "개정전", "1급 감염병"])) < 0.2


def test_without_a_reader_the_page_says_why_and_keeps_no_text(models, tmp_path, page_source: PageSource):
    page = scan(tmp_path, "ko", KOREAN, "korea", page_source)
    OcrStage(PageRenderer(150, 25_000_000), *models, ScriptFallback(None))([page])
    assert page.lines == []
    assert page.untrusted.startswith("text not readable by the OCR model (")


def test_english_does_not_call_the_fallback(models, tmp_path, page_source: PageSource):
    page = scan(tmp_path, "en", ENGLISH, "Times-Roman", page_source)
    OcrStage(PageRenderer(150, 25_000_000), *models, Refusing())([page])
    assert page.untrusted is None and len(page.lines) == 3
