"""Spaces put back at word gaps, on lines set by PyMuPDF in real fonts, rendered as OCR renders pages and cut out by
the real text detector: the characters come with the centres of their glyphs, as a CTC recognizer's steps place
them."""

import numpy as np
import pymupdf
import pytest

from engine.config import PIPELINE_DEFAULTS
from engine.ocr.detector import TextDetector, crop_line
from engine.ocr.models import find_ocr_models
from engine.ocr.word_gaps import spaced
from engine.render import render_page
from engine.runtime import OnnxModel

SCALE = PIPELINE_DEFAULTS.ocr_dpi / 72


@pytest.fixture(scope="module")
def detector() -> TextDetector:
    return TextDetector(OnnxModel(find_ocr_models().det, "cpu"))


@pytest.fixture(scope="module")
def line(detector: TextDetector):
    def set_line(text: str, fontname: str = "helv", fontsize: float = 11) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The characters of `text` set on one line, the centres of their glyphs on the detected line's crop (in its
        pixels), and the crop."""
        document = pymupdf.open()
        page = document.new_page(width=500, height=60)
        page.insert_text((20, 35), text, fontname=fontname, fontsize=fontsize)
        chars = [char for block in page.get_text("rawdict")["blocks"] for row in block["lines"]
                 for span in row["spans"] for char in span["chars"]]
        image = render_page(page, SCALE)
        (found,) = detector([image])[0]
        centres = np.array([(char["bbox"][0] + char["bbox"][2]) / 2 * SCALE - found.quad[0][0] for char in chars])
        return [char["c"] for char in chars], centres, crop_line(image, found.quad)
    return set_line


def without_spaces(chars: list[str], centres: np.ndarray) -> tuple[list[str], np.ndarray]:
    keep = [index for index, char in enumerate(chars) if char != " "]
    return [chars[index] for index in keep], centres[keep]


@pytest.mark.parametrize("fontsize", [8, 12])
@pytest.mark.parametrize("fontname", ["helv", "tiro"])
@pytest.mark.parametrize("text", ["Letter to the Harbour Board", "1.1 Security fundamentals", "In addition, Mono",
                                  "(iv) Certain licenses apply", "the Valley Airport station"])
def test_spaces_the_recognizer_dropped_come_back(line, text: str, fontname: str, fontsize: float):
    chars, centres, crop = line(text, fontname, fontsize)
    assert spaced(*without_spaces(chars, centres), crop) == text


@pytest.mark.parametrize("text", ["untilit reaches", "131,726 and 6,201.2", "n(n+1) = (1)", "Package.You"])
def test_no_space_where_the_ink_has_no_word_gap(line, text: str):
    chars, centres, crop = line(text)
    assert spaced(chars, centres, crop) == text


@pytest.mark.parametrize("text", ["console.log(add(3, 5));", "WHEN VERIFY_GROUP (SESSION_USER, 'MGR') = 1"])
def test_monospaced_letters_stand_apart_without_a_space(line, text: str):
    chars, centres, crop = line(text, "cour")
    assert spaced(chars, centres, crop) == text


def test_spaces_that_were_read_are_kept_and_a_blank_crop_changes_nothing(line):
    chars, centres, crop = line("Harbour ledgers 1890-1935")
    assert spaced(chars, centres, crop) == "Harbour ledgers 1890-1935"
    assert spaced(chars, centres, np.full_like(crop, 255)) == "Harbour ledgers 1890-1935"
    assert spaced([" ", "a", " "], np.array([1.0, 5.0, 9.0]), crop) == " a "


@pytest.mark.parametrize("fontname", ["helv", "tiro"])
def test_figures_as_far_apart_as_two_table_cells_are_two_figures(line, fontname: str):
    """The detector runs two neighbouring cells' figures into one line; the gap between them is a table's, not a
    narrow "1"'s, and parts them (a thousands group set after a thin space does not part)."""
    chars, centres, crop = line("16.1     718,631", fontname)
    assert spaced(*without_spaces(chars, centres), crop) == "16.1 718,631"
    chars, centres, crop = line("1 234 and 131,726", fontname)
    assert spaced(*without_spaces(chars, centres), crop).startswith("1234")
