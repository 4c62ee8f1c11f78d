"""Whether a render holds ink, judged on a sample of its rows and columns as the OCR stage does, and how much."""

import numpy as np
import pymupdf
import pytest

from engine.ink import INK_CONTRAST, blank, grey_percentile, ink_share
from engine.render import render_page
from engine.stages.ocr import BLANK_STRIDE


def rendered(draw=None) -> np.ndarray:
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    if draw:
        draw(page)
    return render_page(page, 150 / 72)


@pytest.mark.parametrize("draw", [
    lambda page: page.draw_line((72, 400), (540, 400), width=0.5),  # a hairline rule
    lambda page: page.insert_text((72, 72), "Received 3 May 1921", fontsize=8),
])
def test_a_page_with_little_ink_is_not_blank(draw):
    assert not blank(rendered(draw)) and not blank(rendered(draw), BLANK_STRIDE)


def test_white_or_evenly_grey_pages_are_blank():
    assert blank(rendered(), BLANK_STRIDE)
    grey = np.full((1650, 1275, 3), 200, dtype=np.uint8)
    grey += np.random.default_rng(0).integers(0, 3, grey.shape, dtype=np.uint8)  # paper grain
    assert blank(grey, BLANK_STRIDE)


@pytest.mark.parametrize("levels", [None, (0, 17, 200, 255), (250, 251)])
def test_grey_percentiles_from_counts_are_numpys(levels):
    rng = np.random.default_rng(5)
    for size in (1, 2, 7, 100, 1001):
        grey = (rng.integers(0, 256, size) if levels is None else rng.choice(levels, size)).astype(np.uint8)
        cumulative = np.cumsum(np.bincount(grey, minlength=256))
        for q in (0, 1, 50, 75, 90, 100):
            assert grey_percentile(cumulative, q) == pytest.approx(float(np.percentile(grey, q)), abs=1e-9)


def test_ink_share_counts_pixels_darker_than_the_paper_by_the_contrast():
    image = np.full((100, 100, 3), 240, np.uint8)
    image[:10, :30] = 240 - INK_CONTRAST  # not darker than paper - contrast
    image[50:60, :20] = 240 - INK_CONTRAST - 1
    assert ink_share(image) == pytest.approx(200 / 10_000)
