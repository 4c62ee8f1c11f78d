"""Whether a render holds ink, judged on a sample of its rows and columns as the OCR stage does."""

import numpy as np
import pymupdf
import pytest

from engine.ink import blank
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
