"""Layout regions from a model, on the pages that were rendered for OCR (where typography is unknown)."""

from engine.layout_model import CdlaLayout
from engine.types import PageState


class LayoutStage:
    """Adds the layout model's regions to each rendered page; a page read from its text layer keeps the regions
    PyMuPDF's layout model found on it (in its input).

    Measured on the dev split (benchmarks/layout_classes.py), the model beats folio's rules only for
    titles on scans, where font size and weight are unknown; ClassifyStage takes titles from it there.
    """

    def __init__(self, model: CdlaLayout | None):
        self.model = model

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            if page.use_text_layer:
                page.regions = page.input.layout_regions
            elif self.model is not None and page.image is not None:
                page.regions = self.model(page.image, page.image_scale)
        return pages
