"""Small type on scans (engine/stages/ocr.py `_small_text_sharper`): a page whose lines are mostly under 20 pixels
tall at 150 dpi is rendered again and read sharper; a page of ordinary type is read once."""

import logging
import random
from pathlib import Path

import pymupdf

from engine.page_source import PageRenderer, PageSource
from engine.types import PageState
from pages.pdf import page_input
from tests.parsed import cell_rows, only_table, parsed_pages
from tests.vlm_pages import scanned_copy

METHODS = ("ResNet-50", "Linear probe", "XGBoost", "GPT-2 small", "k-NN", "RoBERTa", "Baseline", "Ensemble")


def small_table_pdf(path: Path, size: float) -> tuple[Path, list[tuple[str, ...]]]:
    """A results table set in `size`-point Times (figures with decimal points), a caption in 10 points under it."""
    rng = random.Random(3)
    rows = [("Method", "COCO", "Reddit", "MNLI", "SST-2")] + [
        (name, *(f"{rng.uniform(0, 99):.1f}" if rng.random() < 0.6 else f"0.{rng.randint(100, 999)}"
                 for _ in range(4))) for name in METHODS]
    document = pymupdf.open()
    page = document.new_page()
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("tiro")
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            writer.append((72 + (0 if c == 0 else 40 + 28 * c) * size / 5, 100 + r * size * 1.4), text, font=font,
                          fontsize=size)
    writer.write_text(page)
    page.insert_text((72, 300), "Results of each method on four datasets, mean of five runs.", fontsize=10)
    document.save(path)
    return path, rows


def test_a_table_in_four_point_type_scanned_at_300_dpi_is_read_sharper_and_exactly(tmp_path, caplog):
    """At 150 dpi the recognizer reads "Linear peobe" and "72" for "77.2"; the page is read at about 300 dpi instead.
    A page of ten-point type in the same batch is read at 150 dpi, and so is the table scanned at 150 dpi: a larger
    render of it would show nothing more."""
    source, rows = small_table_pdf(tmp_path / "small.pdf", 4)
    small = scanned_copy(source, tmp_path / "small-scan.pdf", dpi=300)
    document = pymupdf.open()
    document.new_page().insert_textbox((72, 72, 540, 300), "The harbour board met on the first Monday. " * 12,
                                       fontsize=10)
    document.save(tmp_path / "prose.pdf")
    prose = scanned_copy(tmp_path / "prose.pdf", tmp_path / "prose-scan.pdf", dpi=300)
    coarse = scanned_copy(source, tmp_path / "small-150.pdf", dpi=150)
    with caplog.at_level(logging.INFO, logger="engine.stages.ocr"):
        small_result, prose_result, _ = parsed_pages([small, prose, coarse])
    assert cell_rows(only_table(small_result)) == [list(row) for row in rows]
    sharper = [record.getMessage() for record in caplog.records if "read at" in record.getMessage()]
    assert len(sharper) == 1 and sharper[0].startswith("page 0: ")
    assert 250 <= int(sharper[0].split("read at ")[1].split()[0]) <= 300  # its small lines made 28 pixels tall
    assert "harbour board met" in " ".join(block.text for block in prose_result.blocks)


def test_a_sharper_render_stays_within_the_pixel_budget(tmp_path, page_source: PageSource):
    source, _ = small_table_pdf(tmp_path / "small.pdf", 4)
    with pymupdf.open(source) as opened:
        single = page_input(opened[0], "p", source)
    page, at_300 = PageState(input=single, source=page_source), PageState(input=single, source=page_source)
    PageRenderer(150, 25_000_000)([page])
    PageRenderer(300, 25_000_000)([at_300])
    first = page.image.shape
    assert PageRenderer(150, 25_000_000).sharpen(page, 2.0)
    assert page.image_scale == 300 / 72 and page.image.shape == at_300.image.shape
    tight = PageState(input=single, source=page_source)
    budget = PageRenderer(150, first[0] * first[1] + 1000)  # hardly more pixels than the first render's
    budget([tight])
    assert not budget.sharpen(tight, 2.0) and tight.image.shape == first
