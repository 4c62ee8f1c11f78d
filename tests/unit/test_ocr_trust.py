"""The OCR trust measure, line crops stacked for Tesseract and its TSV read back, and the fallback's reasons (no
models run)."""

import numpy as np

from engine.ocr.fallback import ScriptFallback
from engine.ocr.tesseract import (
    LINE_GAP,
    LINE_HEIGHT,
    ReadLine,
    TesseractReader,
    dark_on_white,
    lines_in_bands,
    parse_tsv,
    stack_lines,
)
from engine.ocr.trust import measure
from engine.types import PageResult

ENGLISH = [  # (text, confidence, box in pixels) as PP-OCR reads an English scan
    ("The harbour ledgers were kept from 1890", 0.99, (100, 100, 480, 124)),
    ("to 1935 by the board of the port authority.", 0.98, (100, 130, 520, 154)),
    ("Building permits and minutes of the board", 0.97, (100, 160, 500, 184)),
    ("1", 0.42, (400, 900, 410, 914)),  # a speck read as a digit
]
# What PP-OCR's Chinese/English dictionary makes of Hangul lines: nothing, punctuation, Latin fragments.
GIBBERISH = [
    ("", 0.0, (100, 100, 700, 124)),
    (".", 0.9, (100, 130, 760, 154)),
    ("-19(COVID-19,", 0.91, (100, 160, 720, 184)),
    ("", 0.59, (100, 190, 740, 214)),
    ("，，", 0.61, (100, 220, 500, 244)),
]


def test_english_is_trusted():
    trust = measure(ENGLISH)
    assert trust.trusted
    assert trust.chars_per_em > 1.5 and trust.unread == 0.25


def test_gibberish_is_not_trusted_and_says_why():
    trust = measure(GIBBERISH)
    assert not trust.trusted
    assert trust.chars_per_em < 0.4 and trust.unread == 0.4
    assert "characters read per em" in trust.describe() and "40% of 5 lines unread" in trust.describe()


def test_high_confidence_punctuation_is_not_trusted():
    """A Cyrillic page through PP-OCR: every line read as "." with confidence 0.9."""
    assert not measure([(".", 0.9, (100, 100 + 30 * i, 700, 124 + 30 * i)) for i in range(6)]).trusted


def test_too_little_text_is_not_judged():
    assert measure([("", 0.0, (100, 100, 300, 124))]).trusted
    assert measure([]).trusted


TSV = "\n".join([
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
    "1\t1\t0\t0\t0\t0\t0\t0\t1275\t1790\t-1\t",
    "4\t1\t1\t1\t1\t0\t100\t100\t200\t30\t-1\t",
    "5\t1\t1\t1\t1\t1\t100\t100\t30\t30\t90\t호",
    "5\t1\t1\t1\t1\t2\t131\t100\t30\t30\t80\t흡",
    "5\t1\t1\t1\t1\t3\t170\t101\t60\t29\t70\t기관",
    "5\t1\t1\t1\t2\t1\t100\t140\t80\t20\t95\tWHO",
    "5\t1\t1\t1\t2\t2\t190\t140\t80\t20\t-1\t",
    "5\t1\t1\t1\t2\t3\t600\t140\t40\t20\t90\t논점",
    "5\t1\t2\t1\t1\t1\t100\t200\t40\t20\t95\t ",
])


def test_tsv_lines_take_their_spacing_from_the_plain_text():
    lines = parse_tsv(TSV, "호흡 기관\nWHO      논점\n")
    assert [line.text for line in lines] == ["호흡 기관", "WHO 논점"]
    assert lines[0].box == (100, 100, 230, 130)
    assert abs(lines[0].confidence - (0.9 + 0.8 + 2 * 0.7) / 4) < 1e-9  # weighted by characters
    assert parse_tsv(TSV)[0].text == "호 흡 기관"  # no plain text: words joined with spaces


def test_stacked_crops_are_scaled_to_one_height_and_read_back_by_band():
    small, tall = np.zeros((12, 200, 3), np.uint8), np.zeros((96, 50, 3), np.uint8)
    image, bands = stack_lines([small, tall, small])
    assert [bottom - top for top, bottom in bands] == [LINE_HEIGHT, LINE_HEIGHT, LINE_HEIGHT]
    assert image.shape[1] == 4 * 200 + 2 * LINE_GAP  # 12 px enlarged 4 times at most
    assert all(bands[i][1] + LINE_GAP == bands[i + 1][0] for i in range(2))
    read = [ReadLine("이 줄", 0.9, (30, bands[0][0] + 2, 300, bands[0][1] - 2)),
            ReadLine("끝", 0.5, (700, bands[2][0], 760, bands[2][1])),
            ReadLine("a", 0.7, (30, bands[2][0], 90, bands[2][1] + 6))]
    assert lines_in_bands(read, bands) == [("이 줄", 0.9), ("", 0.0), ("a 끝", (0.7 + 0.5) / 2)]


def test_a_shaded_or_inverted_crop_comes_out_dark_text_on_white():
    shaded = np.full((20, 60, 3), 120, np.uint8)
    shaded[8:12, 10:50] = 20  # dark text on a grey band
    inverted = np.full((20, 60, 3), 30, np.uint8)
    inverted[8:12, 10:50] = 230  # light text on a dark band
    for crop in (shaded, inverted):
        grey = dark_on_white(crop)
        assert grey.ndim == 2 and grey[0, 0] == 255 and grey[10, 30] == 0


def test_without_tesseract_the_reason_says_what_to_install():
    reading = ScriptFallback(None)(None, 150, measure(GIBBERISH), [], [])
    assert reading.readings == [] and "not readable by the OCR model" in reading.reason
    assert "tesseract-ocr" in reading.reason


class StubReader(TesseractReader):
    """Tesseract's answers without the binary: OSD names Greek, every reading is gibberish."""

    def __init__(self):
        super().__init__("tesseract", "5.3.0", ("eng", "kor", "osd"))
        self.read_with: list[str] = []

    def script(self, image, dpi):
        return "Greek", 2.0

    def read_lines(self, crops, language):
        self.read_with.append(language)
        return [("", 0.0) for _ in crops]


def test_a_script_without_language_data_is_named_in_the_reason():
    reader = StubReader()
    boxes = [box for _, _, box in GIBBERISH]
    reading = ScriptFallback(reader)(None, 150, measure(GIBBERISH), [None] * len(boxes), boxes)
    assert reader.read_with == ["kor+eng"]  # the installed languages are tried all the same
    assert "script Greek" in reading.reason and "tesseract-ocr-ell" in reading.reason


def test_a_page_no_reader_could_read_is_stored_as_failed_with_the_reason():
    from pages.batch import fail_unread_pages

    read = PageResult("1:1", 612, 792, False, [], "0", {})
    unread = PageResult("1:2", 612, 792, False, [], "0", {}, untrusted="text not readable by the OCR model (...)")
    results = fail_unread_pages({"1:1": read, "1:2": unread, "1:3": "engine error: boom"})
    assert results == {"1:1": read, "1:2": "ocr: text not readable by the OCR model (...)",
                       "1:3": "engine error: boom"}
