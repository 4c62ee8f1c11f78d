"""The batch's page source: each PDF opened once for a batch's reading and parsing, each page rendered once, and the
pixels (page renders, formula crops) what a freshly opened file gives."""

from collections import Counter
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from engine import page_source
from engine.formula.crops import formula_crop
from engine.page_source import PageRenderer, PageSource
from engine.pipeline import Pipeline
from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.formulas import FormulaStage
from engine.stages.layer_check import LayerCheckStage
from engine.stages.ocr import OcrStage
from engine.stages.text_layer import TextLayerStage
from engine.types import PageInput, PageState
from pages.budget import page_budget
from pages.parsing import PageJob, pdf_source, read_and_parse, read_pages
from pages.pdf import page_input
from tests import pdfs

PROSE = ["The harbour ledgers were scanned in spring", "and listed box by box for the archive.",
         "Each box holds the minutes of one year"]


class Unreadable:
    """A recognizer that reads nothing on any line: a suspect text layer is contradicted and read as a scan."""

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        return [("", 0.0) for _ in crops]


class NoLines:
    """A text detector that finds no line."""

    def __call__(self, images: list[np.ndarray]) -> list[list]:
        return [[] for _ in images]


class KeptCrops:
    """A formula model that keeps the crops it is shown."""

    def __init__(self):
        self.crops: list[np.ndarray] = []

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        self.crops += crops
        return [("x", 1.0) for _ in crops]


def stages(formulas: KeptCrops) -> list:
    """The stages that take pixels or PDF pages from the source: the layer check and OCR (both rendering the
    page of a suspect layer) and formulas, every one read by the model from a crop (none built from glyphs)."""
    renderer = PageRenderer(150, 25_000_000)
    return [TextLayerStage(), LayerCheckStage(renderer, Unreadable()), OcrStage(renderer, NoLines(), Unreadable()),
            BlockStage(), ClassifyStage(), FormulaStage(formulas, from_layer=False)]


@pytest.fixture
def batch(tmp_path: Path) -> list[PageJob]:
    """A suspect text layer, a two-page born-digital report with a table, a page with a display formula."""
    soup = pdfs.type3_text_pdf(tmp_path / "soup.pdf", PROSE)
    report, formula = pdfs.two_column_pdf(tmp_path), pdfs.formula_page_pdf(tmp_path)
    return [PageJob("soup", str(soup), 0), PageJob("r1", str(report), 0), PageJob("r2", str(report), 1),
            PageJob("f", str(formula), 0)]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each PDF is opened from here on."""
    counts: Counter[str] = Counter()
    real = pymupdf.open

    def counted(*args, **kwargs) -> pymupdf.Document:
        if args:
            counts[str(args[0])] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pymupdf, "open", counted)
    return counts


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, int]]:
    """How many times each page (PDF, 0-based page) is rendered whole from here on."""
    counts: Counter[tuple[str, int]] = Counter()
    real = page_source.render_page

    def counted(page: pymupdf.Page, scale: float) -> np.ndarray:
        counts[(page.parent.name, page.number)] += 1
        return real(page, scale)

    monkeypatch.setattr(page_source, "render_page", counted)
    return counts


def test_a_batch_opens_each_pdf_once_to_read_and_parse_its_pages_and_closes_it(
        batch: list[PageJob], opened: Counter[str], rendered: Counter[tuple[str, int]]):
    formulas = KeptCrops()
    with pdf_source() as source:
        parsed = read_and_parse(Pipeline(stages(formulas)), source, batch, page_budget())
        documents = [source.document(job.path) for job in batch]
    assert opened == {**{job.path: 1 for job in batch}, batch[3].path: 2}  # and a handle for the formula's clip
    assert all(document.is_closed for document in documents)
    assert sorted(parsed.results) == ["f", "r1", "r2", "soup"] and parsed.unread == {}
    assert not parsed.results["soup"].text_layer  # the check rendered it, then OCR read that render
    assert rendered == {(batch[0].path, 0): 1}
    assert formulas.crops


def test_a_pipeline_called_without_a_source_opens_each_pdf_once_for_the_batch(
        batch: list[PageJob], opened: Counter[str], rendered: Counter[tuple[str, int]]):
    with pdf_source() as source:
        inputs = list(read_pages(source, batch, page_budget()).inputs.values())
    opened.clear()
    Pipeline(stages(KeptCrops()))(inputs)
    assert opened == {batch[0].path: 1, batch[3].path: 1}  # the report's pages need neither pixels nor crops
    assert rendered == {(batch[0].path, 0): 1}


def test_a_pdf_that_cannot_be_opened_fails_its_pages_alone(tmp_path: Path, batch: list[PageJob]):
    broken = str(pdfs.random_bytes_pdf(tmp_path))
    jobs = [PageJob("bad1", broken, 0), batch[1], PageJob("bad2", broken, 1)]
    with pdf_source() as source:
        parsed = read_and_parse(Pipeline([TextLayerStage()]), source, jobs, page_budget())
    assert sorted(parsed.results) == ["r1"]
    assert parsed.unread["bad1"] == parsed.unread["bad2"]
    assert parsed.unread["bad1"].startswith(("corrupt: ", "not a PDF: "))


def test_a_pdf_that_cannot_be_opened_is_tried_once_per_batch():
    tried: list[str] = []

    def refuse(path: str) -> pymupdf.Document:
        tried.append(path)
        raise ValueError(f"cannot open {path}")

    with PageSource(refuse) as source:
        for _ in range(2):
            with pytest.raises(ValueError, match="cannot open a.pdf"):
                source.document("a.pdf")
    assert tried == ["a.pdf"]


def parsed_pixels(inputs: list[PageInput], source: PageSource) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The page renders and formula crops of the pages parsed from `source`."""
    formulas = KeptCrops()
    pages = [PageState(input=item, source=source) for item in inputs]
    for stage in stages(formulas):
        pages = stage(pages)
    PageRenderer(150, 25_000_000)(pages)
    return [page.image for page in pages], formulas.crops


def test_pixels_from_a_document_its_pages_were_read_from_are_those_of_a_fresh_file(tmp_path: Path):
    """Reading a page (PyMuPDF's layout analysis derotates a page with /Rotate while it looks) leaves its render and
    its formula crops as a freshly opened file gives them, as each stage had them when it opened the file itself."""
    formula = pdfs.formula_page_pdf(tmp_path)
    with pymupdf.open(formula) as document, pymupdf.open(formula) as again:
        document.insert_pdf(again)
        document[1].set_rotation(90)
        document.save(tmp_path / "turned.pdf")
    path = tmp_path / "turned.pdf"
    with pdf_source() as source:
        inputs = [page_input(source.document(str(path))[index], str(index), path) for index in (0, 1)]
        assert all(item.found_tables for item in inputs)  # the layout analysis ran on both
        images, crops = parsed_pixels(inputs, source)
    with PageSource() as fresh:
        fresh_images, fresh_crops = parsed_pixels(inputs, fresh)
    assert len(crops) == len(fresh_crops) >= 2
    assert all(np.array_equal(ours, theirs) for ours, theirs in zip(images + crops, fresh_images + fresh_crops))


def test_a_clip_of_a_scan_read_and_rendered_whole_is_what_a_fresh_file_gives(tmp_path: Path):
    """MuPDF keeps the scan it decoded to hash the page's images and to render it whole; a clip drawn from that is
    resampled otherwise, so clips come from the source's second handle."""
    path = pdfs.scan_pdf(tmp_path)
    box = (90.0, 150.0, 240.0, 185.0)
    with pdf_source() as source:
        item = page_input(source.document(str(path))[0], "scan", path)
        PageRenderer(150, 25_000_000)([PageState(input=item, source=source)])
        ours = formula_crop(source.clip_page(item), box, 10.0, scanned=True)
        drawn_before = formula_crop(source.page(item), box, 10.0, scanned=True)
    with pymupdf.open(path) as fresh:
        theirs = formula_crop(fresh[0], box, 10.0, scanned=True)
    assert np.array_equal(ours, theirs)
    assert not np.array_equal(drawn_before, theirs)  # what the clip would be from the handle that read and rendered
