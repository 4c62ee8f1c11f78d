from engine.stages.figures import FigureStage
from engine.types import Block, Line, PageInput, PageState, Region


def page(images, text_layer=True) -> PageState:
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=600, height=800, text_lines=[],
                                      image_boxes=images))
    state.use_text_layer = text_layer
    return state


def figures(images, lines: list[Line], regions: list[Region]) -> PageState:
    """A text page with these images, lines and layout regions, through the figure stage."""
    state = page(images)
    state.lines, state.regions = list(lines), list(regions)
    [result] = FigureStage()([state])
    return result


def test_sizeable_images_on_text_pages_become_figures():
    [result] = FigureStage()([page([(100, 100, 400, 300), (10, 10, 20, 20), (0, 0, 600, 800)])])
    assert [(b.type, b.bbox) for b in result.blocks] == [("figure", (100, 100, 400, 300))]


def test_scanned_pages_are_not_figures():
    [result] = FigureStage()([page([(0, 0, 600, 800), (100, 100, 400, 300)], text_layer=False)])
    assert result.blocks == []


def test_picture_regions_take_the_text_drawn_in_them():
    state = page([(120, 120, 300, 250)])
    label = Line(text="Names the row permission", bbox=(150, 130, 280, 140), size=8)
    body = Line(text="A column mask is a database object.", bbox=(100, 400, 500, 410), size=10)
    state.lines = [label, body]
    state.input.text_lines = [label, body]
    state.regions = [Region(type="figure", bbox=(100, 100, 400, 300), score=1.0)]
    [result] = FigureStage()([state])
    assert [(b.type, b.bbox, b.text) for b in result.blocks] == [("figure", (100, 100, 400, 300),
                                                                   "Names the row permission")]
    assert result.lines == [body]


def test_a_table_the_layout_model_calls_a_picture_stays_a_table():
    state = page([])
    state.blocks = [Block(type="table", bbox=(110, 110, 390, 290))]
    state.regions = [Region(type="figure", bbox=(100, 100, 400, 300), score=1.0)]
    [result] = FigureStage()([state])
    assert [b.type for b in result.blocks] == ["table"]


def test_text_over_an_image_that_is_no_picture_stays_in_the_body():
    box_text = Line(text="A summary set on a shaded background.", bbox=(110, 110, 390, 120), size=10)
    result = figures([(100, 100, 400, 300)], [box_text], [Region(type="text", bbox=(105, 105, 395, 125), score=1.0)])
    assert [(b.type, b.text) for b in result.blocks] == [("figure", "")]
    assert result.lines == [box_text]


def test_a_caption_inside_an_image_box_stays_a_caption():
    caption = Line(text="Figure 3-11 Selecting the table", bbox=(100, 305, 300, 315), size=8)
    result = figures([(100, 100, 400, 320)], [caption], [Region(type="figure", bbox=(100, 100, 400, 300), score=1.0),
                                                         Region(type="caption", bbox=(100, 304, 300, 316), score=1.0)])
    assert result.lines == [caption]


def test_labels_on_a_chart_image_outside_every_layout_region_belong_to_the_figure():
    label = Line(text="community park", bbox=(150, 250, 220, 260), size=8)
    body = Line(text="Lorem ipsum dolor sit amet.", bbox=(100, 400, 500, 410), size=10)
    result = figures([(100, 100, 400, 300)], [label, body], [Region(type="text", bbox=(95, 395, 505, 415), score=1.0)])
    assert [(b.type, b.text) for b in result.blocks] == [("figure", "community park")]
    assert result.lines == [body]


def test_without_layout_regions_text_over_an_image_stays_in_the_body():
    label = Line(text="community park", bbox=(150, 250, 220, 260), size=8)
    result = figures([(100, 100, 400, 300)], [label], [])
    assert result.lines == [label]


def test_on_a_scan_the_layout_models_confident_figure_regions_become_figures_with_their_labels():
    state = page([(0, 0, 600, 800)], text_layer=False)
    label = Line(text="Locking shoulder", bbox=(447, 555, 505, 563), size=8, confidence=0.9)
    body = Line(text="The elastic stop nut is a standard nut.", bbox=(320, 386, 558, 396), size=9, confidence=0.95)
    state.lines = [label, body]
    state.regions = [Region(type="figure", bbox=(321, 422, 559, 693), score=0.9),
                     Region(type="figure", bbox=(300, 380, 560, 400), score=0.3)]
    [result] = FigureStage()([state])
    assert [(b.type, b.bbox, b.text) for b in result.blocks] == [("figure", (321, 422, 559, 693), "Locking shoulder")]
    assert result.lines == [body]


def test_on_a_scan_prose_inside_a_figure_region_and_page_sized_regions_stay_body_text():
    state = page([], text_layer=False)
    label = Line(text="Nut case", bbox=(455, 433, 486, 442), size=8, confidence=0.9)
    prose = Line(text="The stainless steel self-locking nut may be spun on and off by hand", bbox=(330, 450, 550, 460),
                 size=9, confidence=0.95)
    state.lines = [label, prose]
    state.regions = [Region(type="figure", bbox=(321, 422, 559, 693), score=0.9),
                     Region(type="figure", bbox=(10, 10, 590, 790), score=0.8)]
    [result] = FigureStage()([state])
    assert [(b.bbox, b.text) for b in result.blocks] == [((321, 422, 559, 693), "Nut case")]
    assert result.lines == [prose]


def test_a_picture_region_holding_text_alone_is_text_and_one_over_a_drawing_a_figure():
    """PyMuPDF's layout model takes a large coloured title or a header band for a picture; with nothing but text
    drawn in it, it is text. The same region over a vector drawing (a chart's bars) is a figure."""
    title = Line(text="DB2 for i Center of Excellence", bbox=(280, 240, 460, 270), size=20)
    region = Region(type="figure", bbox=(278, 238, 464, 273), score=1.0)
    state = page([])
    state.lines, state.regions = [title], [region]
    state.input.drawing_boxes = [(60, 100, 540, 700)]  # a frame around the whole page is no drawing in the region
    [result] = FigureStage()([state])
    assert result.blocks == [] and result.lines == [title]
    state = page([])
    state.lines, state.regions = [title], [region]
    state.input.drawing_boxes = [(300, 250, 320, 270)]
    [result] = FigureStage()([state])
    assert [(b.type, b.text) for b in result.blocks] == [("figure", "DB2 for i Center of Excellence")]
