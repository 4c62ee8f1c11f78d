"""Figures: raster images drawn on born-digital pages become figure blocks."""

from engine.geometry import area
from engine.types import Block, PageState

MIN_AREA = 0.01  # share of the page: smaller images are logos, bullets or rules
MAX_AREA = 0.8  # share of the page: larger images are the page itself (a scan with a text layer)


class FigureStage:
    """Adds a figure block for each sizeable image on a page read from its text layer."""

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            if not page.use_text_layer:
                continue
            page_area = page.input.width * page.input.height
            for x0, y0, x1, y1 in page.input.image_boxes:
                box = (max(0.0, x0), max(0.0, y0), min(page.input.width, x1), min(page.input.height, y1))
                if MIN_AREA <= area(box) / page_area <= MAX_AREA:
                    page.blocks.append(Block(type="figure", bbox=box))
        return pages
