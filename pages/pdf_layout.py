"""PyMuPDF's layout analysis as engine input: the regions its layout model finds on a page's text layer, and
the tables its table finder builds there, with spans and headers.

`Page.find_tables(refine=True)` runs the layout model, gates ruled tables by its table regions, adds
the borderless tables it finds (cells from word alignment), splits rows and columns the ruling merged,
and resolves spans and header rows; the engine's table stage weighs these tables against its own.
The layout model's regions are kept from the same call (`Page.layout_information`).
"""

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import onnxruntime
import pymupdf

from engine.cores import cpu_cores
from engine.geometry import union
from engine.orientation import turn_box, turned_size
from engine.runtime.onnx import share_cores
from engine.stages.classify import CAPTION
from engine.table_grid import make_table
from engine.types import BBox, BlockType, FoundTable, Region, TableCell

MIN_FILLED = 2  # a "table" with fewer non-empty cells is a frame or a box around text
MAX_LINES = 3000  # above this many text-layer lines the finder is skipped: superlinear, 9 s at 4,000 lines
MAX_DRAWN = 2000  # nor above this many drawn items: its vector analysis (native code) takes 5-10 ms for each
_HYPHEN_BREAK = re.compile(r"(\w)-\n(?=[a-z])")
LAYOUT_TYPES: dict[str, BlockType] = {  # PyMuPDF layout classes in folio's vocabulary
    "text": "text", "title": "title", "section-header": "title", "list-item": "list_item", "caption": "caption",
    "footnote": "footnote", "formula": "formula", "table": "table", "picture": "figure",
    "page-header": "header", "page-footer": "footer",
}


_made_lock = threading.Lock()  # sessions are made one analyzer at a time (see _sessions_with_threads)
_threads: int | None = None  # intra-op threads of each analyzer's sessions, once set_layout_threads was called
_local = threading.local()  # this thread's analyzer: (its threads, the analyzer)


def set_layout_threads(threads: int) -> None:
    """Run PyMuPDF's layout analysis on an analyzer of each thread's own, whose ONNX Runtime sessions have `threads`
    intra-op threads (0: every core) that do not spin.

    PyMuPDF makes one analyzer on import, shared by every thread: its image feature extractor keeps the last
    page's features in itself, so two workers' pages at once could swap features. And its sessions take ONNX
    Runtime's default, a spinning thread per core: with several workers on the cores that costs much CPU time
    for nothing (on the bench's pages 580 ms a page against 335 ms with one thread)."""
    global _threads
    with _made_lock:
        if pymupdf._get_layout is not None:
            _threads = threads or cpu_cores()
            pymupdf._get_layout = _get_layout


def _get_layout(*args, **kwargs):
    return _analyzer().predict(*args, **kwargs)


def _analyzer():
    """This thread's layout analyzer, made on its first page (and again when the threads were set anew)."""
    made = getattr(_local, "analyzer", None)
    if made is None or made[0] != _threads:
        from pymupdf.layout import DocumentLayoutAnalyzer

        with _made_lock, _sessions_with_threads(_threads or cpu_cores()):
            made = _local.analyzer = (_threads, DocumentLayoutAnalyzer.get_model())  # as pymupdf makes its own
    return made[1]


@contextmanager
def _sessions_with_threads(threads: int) -> Iterator[None]:
    """ONNX Runtime sessions made meanwhile (the analyzer's modules make them by onnxruntime.InferenceSession)
    share the cores as the engine's do (engine.runtime.onnx.share_cores), their other options kept but one: a model
    whose inputs have a fixed size but for the batch (the page-image feature extractor, the table-grid model) gets
    ONNX Runtime's memory arena back, which PyMuPDF turns off for every model against the growth that inputs of
    ever new sizes cause; the feature extractor's 58 MB of outputs a page then cost 118 ms of CPU, not 176.
    Callers hold _made_lock: the class is swapped for the whole process."""
    made = onnxruntime.InferenceSession

    def session(path, sess_options=None, providers=None, **kwargs):
        options = share_cores(sess_options or onnxruntime.SessionOptions(), threads)
        made_session = made(path, sess_options=options, providers=providers, **kwargs)
        if options.enable_cpu_mem_arena or not _fixed_size(made_session):
            return made_session
        options.enable_cpu_mem_arena = True
        return made(path, sess_options=options, providers=providers, **kwargs)

    onnxruntime.InferenceSession = session
    try:
        yield
    finally:
        onnxruntime.InferenceSession = made


def _fixed_size(session: onnxruntime.InferenceSession) -> bool:
    """Whether every input's size is fixed but for its first dimension (the batch)."""
    return all(isinstance(size, int) for given in session.get_inputs() for size in given.shape[1:])


def layout_worth_it(lines: int, drawn: int) -> bool:
    """Whether a page with this many text-layer lines and drawn items goes through the finder: it has text,
    and not so much text or drawing that the finder would take long (the rules group such a page alone)."""
    return 0 < lines <= MAX_LINES and drawn <= MAX_DRAWN


def analyse_layout(page: pymupdf.Page, turn: int = 0) -> tuple[list[Region], list[FoundTable]]:
    """The layout model's regions and the tables found on the page, in the displayed page's coordinates; none
    of either when PyMuPDF fails on it (the engine's own rules remain).

    The finder derotates a page with /Rotate itself (its boxes are the displayed page's) but keeps the layout
    model's answer on the derotated page it made. Text that reads sideways on the displayed page (`turn`, see
    engine/orientation.py) is shown to the finder upright: the page is given the rotation that turns it so
    for the call, and the boxes are turned back.
    """
    rotation = page.rotation
    width, height = turned_size(page.rect.width, page.rect.height, turn)
    try:
        if turn:
            page.set_rotation((rotation + turn) % 360)
        finder = page.find_tables(refine=True)
        tables = finder.tables
        layout = getattr(finder, "page", page).layout_information or ()
    except Exception:  # noqa: BLE001 - MuPDF and the layout model raise many types; the rules still run
        return [], []
    finally:
        if page.rotation != rotation:
            page.set_rotation(rotation)
    regions = [Region(type=LAYOUT_TYPES[item[4]], bbox=as_box(item[:4]), score=1.0)
               for item in layout if item[4] in LAYOUT_TYPES]
    found = _kept(tables)
    if turn:
        back = (360 - turn) % 360
        regions = [Region(type=r.type, bbox=turn_box(r.bbox, back, width, height), score=r.score) for r in regions]
        found = [FoundTable(bbox=turn_box(t.bbox, back, width, height), table=t.table) for t in found]
    return regions, found


def _kept(tables: list["pymupdf.table.Table"]) -> list[FoundTable]:
    found = []
    for table in tables:
        cells = _without_caption_rows(_cells(table))
        rows = max((cell.row + cell.row_span for cell in cells), default=0)
        cols = max((cell.col + cell.col_span for cell in cells), default=0)
        if rows < 2 or cols < 2 or sum(1 for cell in cells if cell.text) < MIN_FILLED:
            continue
        boxes = [cell.bbox for cell in cells if cell.bbox is not None]
        bbox = union(boxes) if len(boxes) == len(cells) else as_box(table.bbox)
        found.append(FoundTable(bbox=bbox, table=make_table(rows, cols, cells)))
    return found


def _cells(table: "pymupdf.table.Table") -> list[TableCell]:
    """Cells with their slots and boxes: placements list, row by row, the cells that start in the row (HTML's
    rule)."""
    if table.placements is None:
        header = 0 if table.header.external else 1
        return [TableCell(row=r, col=c, text=cell_text(_without_caption_line(text or "") if r == 0 else text or ""),
                          header=r < header)
                for r, row in enumerate(table.extract()) for c, text in enumerate(row)]
    cells: list[TableCell] = []
    covered: set[tuple[int, int]] = set()
    for r, row in enumerate(table.placements):
        c = 0
        for placement in row:
            if placement is None:
                continue
            while (r, c) in covered:
                c += 1
            rows, cols = max(1, placement.rowspan), max(1, placement.colspan)
            covered.update((r + i, c + j) for i in range(rows) for j in range(cols))
            text = placement.text or ""
            cells.append(TableCell(row=r, col=c, text=cell_text(_without_caption_line(text) if r == 0 else text),
                                   row_span=rows, col_span=cols,
                                   header=placement.tag == "th",
                                   bbox=as_box(placement.bbox) if placement.bbox is not None else None))
            c += cols
    return cells


def _without_caption_line(text: str) -> str:
    """A first row's cell text without a caption line over the cell's own ("Table 3: ...", centred over the column
    whose heading lies under it)."""
    first, _, rest = text.partition("\n")
    return rest if rest.strip() and CAPTION.match(first.strip()) else text


def _without_caption_rows(cells: list[TableCell]) -> list[TableCell]:
    """The cells without a first or last row that holds a caption ("Table 2: ..."), which the finder can take
    into a table it finds by the alignment of words; later rows move up."""
    def text_of(row: int) -> str:
        return " ".join(cell.text for cell in sorted(cells, key=lambda c: c.col) if cell.row == row and cell.text)

    last = max((cell.row for cell in cells), default=0)
    for row in (last, 0):
        if last > 0 and CAPTION.match(text_of(row)) and all(cell.row_span == 1 for cell in cells if cell.row == row):
            cells = [cell for cell in cells if cell.row != row]
            for cell in cells:
                if cell.row > row:
                    cell.row -= 1
            last -= 1
    return cells


def cell_text(text: str) -> str:
    """A cell's lines as one line; a word hyphenated at a line end is joined again."""
    return " ".join(_HYPHEN_BREAK.sub(r"\1", text).split())


def as_box(rect: "pymupdf.Rect | tuple[float, float, float, float]") -> BBox:
    """A box of plain floats from a PyMuPDF rectangle or a 4-tuple."""
    x0, y0, x1, y1 = rect
    return float(x0), float(y0), float(x1), float(y1)
