from engine.stages.figures import FigureStage
from engine.types import PageInput, PageState


def page(images, text_layer=True) -> PageState:
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=600, height=800, text_lines=[],
                                      image_boxes=images))
    state.use_text_layer = text_layer
    return state


def test_sizeable_images_on_text_pages_become_figures():
    [result] = FigureStage()([page([(100, 100, 400, 300), (10, 10, 20, 20), (0, 0, 600, 800)])])
    assert [(b.type, b.bbox) for b in result.blocks] == [("figure", (100, 100, 400, 300))]


def test_scanned_pages_are_not_figures():
    [result] = FigureStage()([page([(0, 0, 600, 800), (100, 100, 400, 300)], text_layer=False)])
    assert result.blocks == []
