"""A batch's PDFs, each opened once for the whole batch (like Docling's page backend): the stages that need a page's
pixels or its PyMuPDF page (the layer check, OCR and through it layout, formulas) take them from the batch's source,
never from the file, and a page is rendered once at the pipeline's scale.

Clips rendered at their own scale (formula crops) come from a second handle of the PDF, opened when the first clip
is asked for: MuPDF keeps the images it decoded (for the page's whole render, or the image hashes taken when the
page was read) with their document, and a clip of a scan drawn from a whole decoded image is resampled otherwise
than one that decodes only its own part (a scan's formula crop differed in up to 82 grey levels); from a handle
that has drawn nothing else, a clip is what a freshly opened file gives.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

import pymupdf

from engine.orientation import turn_image
from engine.render import render_page, render_scale
from engine.types import PageInput, PageState


class PageSource:
    """The PDFs of one batch by path, each opened on first use (by `open_document`, PyMuPDF's own by default; a
    second time for clips) and closed with the source; a PDF that cannot be opened raises its error again for each
    of its pages, without being opened again."""

    def __init__(self, open_document: Callable[[str], pymupdf.Document] | None = None):
        self._open = open_document or pymupdf.open
        self._documents: dict[str, pymupdf.Document | Exception] = {}
        self._clip_documents: dict[str, pymupdf.Document | Exception] = {}  # the second handles, for clips

    def document(self, path: str) -> pymupdf.Document:
        return self._opened(self._documents, path)

    def page(self, page: PageInput) -> pymupdf.Page:
        """The PyMuPDF page the input was read from."""
        return self.document(page.pdf_path)[page.page_index]

    def clip_page(self, page: PageInput) -> pymupdf.Page:
        """The page from the second handle of its PDF, which renders clips as a freshly opened file does."""
        return self._opened(self._clip_documents, page.pdf_path)[page.page_index]

    def _opened(self, documents: dict[str, pymupdf.Document | Exception], path: str) -> pymupdf.Document:
        if path not in documents:
            try:
                documents[path] = self._open(path)
            except Exception as error:  # noqa: BLE001 - the file's failure, raised for each of its pages
                documents[path] = error
        document = documents[path]
        if isinstance(document, Exception):
            raise document
        return document

    def close(self) -> None:
        for documents in (self._documents, self._clip_documents):
            for document in documents.values():
                if isinstance(document, pymupdf.Document):
                    document.close()
            documents.clear()

    def __enter__(self) -> "PageSource":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


@contextmanager
def batch_source(source: PageSource | None) -> Iterator[PageSource]:
    """`source`, left open for whoever opened it; without one, a source of the engine's own, closed after the block."""
    if source is not None:
        yield source
        return
    with PageSource() as own:
        yield own


MIN_GROWTH = 1.1  # a render less than this much sharper than the page's image is not worth making


class PageRenderer:
    """Renders pages from their source within a pixel budget, once: a page rendered by an earlier stage (the layer
    check) keeps its image, which every turn of the page since has turned with it."""

    def __init__(self, dpi: int, max_pixels: int):
        self.dpi = dpi
        self.max_pixels = max_pixels

    def __call__(self, pages: list[PageState]) -> None:
        for page in pages:
            if page.image is None:
                page.image_scale = render_scale(page.input.width, page.input.height, self.dpi, self.max_pixels)
                page.image = turn_image(render_page(page.source.page(page.input), page.image_scale), page.turn)

    def sharpen(self, page: PageState, factor: float) -> bool:
        """The page's image rendered again `factor` times as sharp, within the pixel budget; whether it grew."""
        scale = render_scale(page.input.width, page.input.height, 72 * page.image_scale * factor, self.max_pixels)
        if scale <= MIN_GROWTH * page.image_scale:
            return False
        page.image_scale = scale
        page.image = turn_image(render_page(page.source.page(page.input), scale), page.turn)
        return True
