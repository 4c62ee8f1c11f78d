"""What goes into the engine (PageInput), what stages enrich (PageState), what comes out (PageResult)."""

from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
import pymupdf

BlockType = Literal[
    "title", "text", "list_item", "table", "formula", "figure",
    "caption", "header", "footer", "footnote", "page_number",
]
BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, origin top-left
TEXT_TYPES: tuple[BlockType, ...] = ("title", "text", "list_item", "caption", "footnote")


@dataclass(slots=True)
class Span:
    """A run of text in one font, from the PDF's text layer."""

    text: str
    bbox: BBox
    size: float
    font: str
    bold: bool
    unmapped: bool = False  # its font has no map from glyphs to characters (Type3 or CID without ToUnicode)


@dataclass(slots=True)
class Word:
    """A word of a line and where it stands: from the text layer's characters, or from the ink of an OCR line."""

    text: str
    bbox: BBox


@dataclass(slots=True)
class Line:
    """One line of text, from the text layer (with spans) or from OCR (with a confidence)."""

    text: str
    bbox: BBox
    size: float  # font size in points (OCR: estimated from the line height)
    bold: bool = False
    math: float = 0.0  # share of the line's characters set in math fonts or math symbols
    confidence: float | None = None
    spans: list[Span] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)  # the words of `text`, each with its box (engine/words.py)

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


@dataclass(slots=True)
class TableCell:
    row: int
    col: int
    text: str
    row_span: int = 1
    col_span: int = 1
    header: bool = False
    bbox: BBox | None = None  # where the cell lies on the page, when the table was found there (not stored)


@dataclass(slots=True)
class Table:
    rows: int
    cols: int
    cells: list[TableCell]
    html: str


@dataclass(slots=True)
class Region:
    """A region a layout model found on a page, typed in folio's vocabulary."""

    type: BlockType
    bbox: BBox
    score: float


@dataclass(slots=True)
class FoundTable:
    """A table a PDF table finder found on the page's text layer, with its cells read from that layer."""

    bbox: BBox
    table: Table


@dataclass(slots=True)
class PageInput:
    """A page as the tasks hand it to the engine: where to render it from and its text layer.

    Every box is in the displayed page's coordinates (PDF points, origin top-left, /Rotate applied);
    `width` and `height` are the displayed page's. Lines keep their reading direction: on a page whose
    text runs sideways (`turn` != 0) they are taller than wide (engine/orientation.py).
    """

    key: str  # unique within a batch
    pdf_path: str
    page_index: int  # 0-based index in the PDF
    width: float
    height: float
    text_lines: list[Line]  # the text layer, [] when the page has none
    image_boxes: list[BBox] = field(default_factory=list)  # where raster images are drawn
    image_dpi: float | None = None  # pixels per inch of its largest raster image (a scan's); None without one
    drawing_boxes: list[BBox] = field(default_factory=list)  # boxes of drawn lines and rectangles
    layout_regions: list[Region] = field(default_factory=list)  # PyMuPDF's layout model (text layer only)
    found_tables: list[FoundTable] = field(default_factory=list)  # PyMuPDF's table finder (text layer only)
    # text running across the reading direction (a margin stamp, a sideways label): kept out of the body flow
    side_lines: list[Line] = field(default_factory=list)
    turn: int = 0  # clockwise degrees (0/90/180/270) that turn the displayed page so its text layer reads upright


@dataclass(slots=True)
class Formula:
    latex: str
    display: bool = True
    confidence: float | None = None


@dataclass(slots=True)
class Block:
    """A typed region of a page; stages fill `lines` and `text`, the order stage sets `order`."""

    type: BlockType
    bbox: BBox
    lines: list[Line] = field(default_factory=list)
    text: str = ""
    confidence: float | None = None
    order: int = -1
    table: Table | None = None
    formula: Formula | None = None
    placed: bool = True  # False: the engine could not find where it is, and gave it the whole page as its box

    @property
    def size(self) -> float:
        """The median font size of the block's characters (0 when it has none): a bullet or checkbox glyph set
        larger than its item's text does not make the item large."""
        weighted = sorted((line.size, max(1, len(line.text.strip()))) for line in self.lines)
        half, seen = sum(count for _, count in weighted) / 2, 0
        for size, count in weighted:
            seen += count
            if seen >= half:
                return size
        return 0.0


class PdfPages(Protocol):
    """Where stages take a page's PDF page (to render it, or to read its glyphs): engine/page_source.py's PageSource,
    the batch's documents, each opened once."""

    def page(self, page: PageInput) -> pymupdf.Page: ...

    def clip_page(self, page: PageInput) -> pymupdf.Page: ...


class TrustRecord(Protocol):
    """A text layer's measures and the verdict they give: engine/layer_trust.py's LayerTrust."""

    @property
    def verdict(self) -> str: ...

    def checked(self, agreement: float) -> "TrustRecord": ...

    def describe(self) -> str: ...

    def record(self) -> dict[str, object]: ...


@dataclass
class PageState:
    """A page on its way through the pipeline; each stage reads and enriches it."""

    input: PageInput
    use_text_layer: bool = True
    ocr_regions: list[BBox] = field(default_factory=list)  # where OCR must read: the page, or images on it
    image: np.ndarray | None = None  # RGB render, when a stage needed pixels
    image_scale: float = 0.0  # pixels per point of `image`
    skew: float | None = None  # degrees that level the rows of text of `image` (a scan), once measured
    lines: list[Line] = field(default_factory=list)
    side_lines: list[Line] = field(default_factory=list)  # text across the reading direction (see PageInput)
    turn: int = 0  # clockwise degrees from the displayed page to the upright frame the stages work in
    regions: list[Region] = field(default_factory=list)  # from the layout model, on rendered pages
    blocks: list[Block] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # time per stage
    untrusted: str | None = None  # why OCR's text of the page cannot be trusted, when no reader could read it
    fallback_ocr: str | None = None  # the language the fallback OCR read the page in, where PP-OCR's was untrusted
    layer_trust: TrustRecord | None = None  # the text layer's measures and verdict (engine/layer_trust.py)
    source: PdfPages | None = None  # the batch's PDFs, where stages take the page's pixels (set by the pipeline)


@dataclass(slots=True)
class PageResult:
    """The engine's answer for one page: blocks in reading order."""

    key: str
    width: float
    height: float
    text_layer: bool
    blocks: list[Block]
    engine_version: str
    stage_seconds: dict[str, float]  # this page's share of each stage's time
    ink: float | None = None  # share of a rendered page's pixels that are ink; None when not rendered
    untrusted: str | None = None  # why the page's text could not be read (see PageState); it has no OCR text
    fallback_ocr: str | None = None  # see PageState
    layer_trust: dict[str, object] | None = None  # whether its text layer was used, why, and the measures
    error: str | None = None  # why the engine could not parse the page (an answer it cannot read); stored as failed
    turn: int = 0  # clockwise degrees that turn the displayed page so that its text reads upright (not stored)

    @property
    def seconds(self) -> float:
        return sum(self.stage_seconds.values())


class PageParser(Protocol):
    """What the tasks call to parse pages: the pipeline or the VLM engine."""

    version: str  # stored with each page; a page is reused only by a parser of the same version
    models: dict[str, object]  # by role, for `folio engine info` and the GPU slot
    missing: dict[str, str]  # role -> why that model is not loaded

    def __call__(self, inputs: list[PageInput], source: PdfPages | None = None) -> list[PageResult]:
        """Results of the pages, read from `source` (the batch's PDFs, left open) or from PDFs it opens once."""
