"""The text layer's trust: the cheap measures on every page, and the OCR check of suspect layers on real pages
(a Type3 font without ToUnicode that shows words but gives MuPDF glyph soup) with the real PP-OCR recognizer."""

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from engine.layer_trust import LayerTrust, Verdict, agreement, garbled, measure_layer
from engine.ocr.models import find_ocr_models
from engine.ocr.recognizer import TextRecognizer
from engine.page_source import PageRenderer, PageSource
from engine.runtime import OnnxModel
from engine.stages.layer_check import LayerCheckStage, sampled_lines
from engine.stages.text_layer import TextLayerStage
from engine.types import Line, PageState, Span
from pages.pdf import page_input, read_text_layer
from tests.pdfs import type3_text_pdf

PROSE = ["The harbour ledgers were scanned in spring", "and listed box by box for the archive.",
         "Each box holds the minutes of one year,", "bound in cloth and kept in the reading room."]


def lines_of(texts: list[str], font: str = "Times-Roman", unmapped: bool = False) -> list[Line]:
    lines = []
    for index, text in enumerate(texts):
        box = (60, 100 + 14 * index, 60 + 5 * len(text), 112 + 14 * index)
        lines.append(Line(text, box, 10, spans=[Span(text, box, 10, font, False, unmapped=unmapped)]))
    return lines


def test_prose_is_trusted_without_a_check():
    trust = measure_layer(lines_of(PROSE))
    assert trust.verdict is Verdict.TRUSTED
    assert trust.reasons == []
    assert trust.record()["verdict"] == "trusted"


def test_no_layer_and_glyph_codes_are_untrusted_without_a_check():
    assert measure_layer(lines_of(["  "])).verdict is Verdict.UNTRUSTED
    assert measure_layer(lines_of(["".join(chr(0xE000 + i) for i in range(80))])).verdict is Verdict.UNTRUSTED
    assert measure_layer(lines_of(["\ufffd" * 40])).reasons == ["100% of its characters are glyph codes"]


@pytest.mark.parametrize("texts, unmapped, reason", [
    (["(++()+*+(()*+) (+*)(+ ()*++( )+(*"], False, "letters or digits"),  # punctuation runs
    (PROSE, True, "fonts without a character map"),  # readable, but set in a font MuPDF cannot map
    (["Xqzt bvkf Rmpw ghtk fRgT wqpzl " * 4], False, "shaped like words"),  # letters in a private order
])
def test_soup_makes_a_layer_suspect(texts, unmapped, reason):
    trust = measure_layer(lines_of(texts, unmapped=unmapped))
    assert trust.verdict is Verdict.SUSPECT
    assert any(reason in found for found in trust.reasons)


def test_leaders_numbers_and_acronyms_are_not_suspect():
    toc = [f"Chapter {n} of the minutes {'.' * 60} {n * 7}" for n in range(1, 9)]
    table = ["1,204.50  (3,117.25)  12.5%  —  4,003", "  880.00  (1,212.00)   3.1%  —    917"] * 4
    names = ["The UNESCO and NATO records of the IMF, kept by the BBC in London"] * 3
    for texts in (toc, table, names):
        assert measure_layer(lines_of(texts)).verdict is Verdict.TRUSTED, texts


def test_the_check_decides_a_suspect_layer():
    suspect = measure_layer(lines_of(PROSE, unmapped=True))
    assert suspect.checked(0.92).verdict is Verdict.TRUSTED
    contradicted = suspect.checked(0.08)
    assert contradicted.verdict is Verdict.UNTRUSTED
    assert "agrees 8%" in contradicted.describe()


def test_agreement_weighs_lines_by_length_and_ignores_case_and_spaces():
    assert agreement(["The Harbour", "x"], ["the harbour", "y"]) == pytest.approx(10 / 11)
    assert agreement(["¢+đO+µ1∂/41O"], ["The harbour"]) < 0.2
    assert agreement([], []) == 0.0


def test_sampled_lines_spread_over_the_page_and_prefer_prose():
    lines = lines_of([f"line number {n}" for n in range(40)])
    sample = sampled_lines(lines)
    assert len(sample) == 12 and sample[0] is lines[0] and sample[-1].bbox[1] > lines[30].bbox[1]
    for line in lines[:30]:
        line.math = 0.9
    assert all(line.math == 0.0 for line in sampled_lines(lines))


def test_type3_fonts_without_tounicode_are_marked_unmapped(tmp_path: Path):
    soup = type3_text_pdf(tmp_path / "soup.pdf", PROSE)
    layer = read_text_layer(pymupdf.open(soup)[0])
    assert all(span.unmapped for line in layer.lines for span in line.spans)
    ordinary = pymupdf.open()
    ordinary.new_page().insert_text((72, 72), PROSE[0])
    assert not any(span.unmapped for line in read_text_layer(ordinary[0]).lines for span in line.spans)


@pytest.fixture(scope="module")
def check_stages():
    recognizer = TextRecognizer(OnnxModel(find_ocr_models().rec, "cpu"))
    return TextLayerStage(), LayerCheckStage(PageRenderer(150, 25_000_000), recognizer)


def checked_page(pdf: Path, stages, source: PageSource) -> PageState:
    page = PageState(input=page_input(source.document(str(pdf))[0], "p", pdf), source=source)
    for stage in stages:
        [page] = stage([page])
    return page


def test_ocr_contradicts_glyph_soup_and_the_page_is_read_as_a_scan(tmp_path: Path, check_stages,
                                                                   page_source: PageSource):
    page = checked_page(type3_text_pdf(tmp_path / "soup.pdf", PROSE), check_stages, page_source)
    assert not page.use_text_layer
    assert page.lines == [] and page.ocr_regions == [(0.0, 0.0, page.input.width, page.input.height)]
    assert page.layer_trust.verdict is Verdict.UNTRUSTED and page.layer_trust.agreement < 0.5
    rendered = page.image  # the OCR stage reads the check's render, not a second one: it is what a render gives
    PageRenderer(150, 25_000_000)([page])
    assert page.image is rendered
    fresh = PageState(input=page.input, source=page_source)
    PageRenderer(150, 25_000_000)([fresh])
    assert np.array_equal(rendered, fresh.image)


def test_ocr_confirms_a_type3_layer_that_reads_right(tmp_path: Path, check_stages, page_source: PageSource):
    page = checked_page(type3_text_pdf(tmp_path / "named.pdf", PROSE, standard_names=True), check_stages, page_source)
    assert page.use_text_layer
    assert page.layer_trust.verdict is Verdict.TRUSTED and page.layer_trust.agreement > 0.8
    assert page.lines[0].text == PROSE[0]


def test_a_layer_of_symbols_is_kept_when_ocr_reads_the_same(tmp_path: Path, check_stages, page_source: PageSource):
    pdf = tmp_path / "symbols.pdf"
    document = pymupdf.open()
    page = document.new_page()
    for row in range(20):
        text = f"(x{row} - m)^2 / s^2 <= [f(t) + {row}] * (e - 1); {{a, b}}"
        page.insert_text((40, 60 + 20 * row), text, fontsize=11)
    document.save(pdf)
    checked = checked_page(pdf, check_stages, page_source)
    assert isinstance(checked.layer_trust, LayerTrust) and checked.layer_trust.agreement is not None
    assert checked.use_text_layer and checked.layer_trust.verdict is Verdict.TRUSTED


def test_a_line_of_mojibake_is_told_from_text_with_many_accents():
    for mojibake in ("]üìÜüéê •ìê °ê£ë†£ûÜüéê †ë ∞†¶£", "•ì£†¶íì û†èê£üî±Ü•î†ü †ë èÜ•ÜáÜ§ê Üüè", "Ü°°óîéÜ•î†ü§"):
        assert garbled(mojibake), mojibake
    for text in ("Đây là một bài kiểm tra tiếng Việt có dấu", "Größenordnung über Äpfel und Öl",
                 "Ça a été très étonnant à côté", "Παράδειγμα κειμένου στα ελληνικά", "ÉTÉ", "x = ∑ y"):
        assert not garbled(text), text
