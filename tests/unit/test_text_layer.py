from engine.stages.text_layer import TextLayerStage
from engine.types import Line, PageInput, PageState, Span


def page_with(text: str, font: str = "Times-Roman") -> PageState:
    span = Span(text=text, bbox=(60, 100, 500, 112), size=10, font=font, bold=False)
    line = Line(text=text, bbox=span.bbox, size=10, spans=[span])
    return PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=842, text_lines=[line]))


def test_readable_text_layer_is_used():
    page = TextLayerStage()([page_with("The harbour ledgers were scanned in spring.")])[0]
    assert page.use_text_layer
    assert page.lines[0].text.startswith("The harbour")


def test_glyph_soup_and_empty_layers_go_to_ocr():
    soup = "".join(chr(0xE000 + i % 200) for i in range(80))
    assert not TextLayerStage()([page_with(soup)])[0].use_text_layer
    assert not TextLayerStage()([page_with("  ")])[0].use_text_layer


def test_math_share_counts_math_fonts_and_symbols():
    spans = [Span("x", (0, 0, 5, 10), 10, "CMMI10", False), Span(" = ", (5, 0, 15, 10), 10, "CMR10", False),
             Span("∑ y", (15, 0, 30, 10), 10, "CMSY10", False)]
    body = Span("Plain words in the body font of this page.", (0, 20, 300, 30), 10, "Times-Roman", False)
    lines = [Line("x = ∑ y", (0, 0, 30, 10), 10, spans=spans), Line(body.text, body.bbox, 10, spans=[body])]
    page = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=595, height=842, text_lines=lines))
    formula, prose = TextLayerStage()([page])[0].lines
    assert formula.math == 1.0
    assert prose.math == 0.0


def test_an_image_without_text_over_it_is_read_by_ocr():
    page = page_with("The harbour ledgers were scanned in spring and listed box by box.")
    page.input.image_boxes = [(50, 300, 550, 700), (60, 95, 200, 115), (50, 750, 60, 760)]
    [result] = TextLayerStage()([page])
    assert result.use_text_layer
    assert result.ocr_regions == [(50, 300, 550, 700)]  # the one under text and the tiny one are skipped


def test_pages_without_a_text_layer_are_read_whole():
    [result] = TextLayerStage()([page_with("")])
    assert result.ocr_regions == [(0.0, 0.0, 595, 842)]
