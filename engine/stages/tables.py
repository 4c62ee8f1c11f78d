"""Tables: folio's ruled regions (structure from the ruling grid or from text alignment) and a finder's tables
(PyMuPDF's on text-layer pages, the layout model's regions on rendered pages), one kept per region."""

import re
from bisect import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby, pairwise
from operator import itemgetter
from statistics import median

import cv2
import numpy as np

from engine.figure_runs import (
    body_figure,
    cut_figure_runs,
    figure_or_mark,
    figure_words,
    figures_apart,
    two_figures,
)
from engine.geometry import Row, area, center_inside, mean_confidence, merged_spans, overlaps, text_rows, union
from engine.lone_letters import lone_letters_cased
from engine.marks import MARKS, mark_lines
from engine.missing_marks import missing_marks
from engine.rules import Rule, rules_from_boxes, rules_from_image
from engine.skew import MIN_SKEW, level, levelled_box, scan_skew
from engine.stages.blocks import join_lines
from engine.stages.classify import CAPTION, CAPTION_NUMBER
from engine.stages.figures import MAX_AREA, MAX_SCAN_PICTURE
from engine.stages.justified import justified_lines
from engine.stages.spaced_columns import spaced_apart
from engine.stages.table_shape import join_wrapped_rows, reshaped
from engine.stages.text_tables import MAX_WORDS, aligned_regions, beside_first
from engine.stages.turned_heads import turned_heads
from engine.table_grid import make_table
from engine.types import BBox, Block, FoundTable, Line, PageState, Region, Table, TableCell, Word
from engine.words import piece_of

EDGE = 3.0  # points of slack when comparing rule ends and table edges
MAX_RULE_GAP = 300.0  # points: rules further apart than this do not frame one table
MIN_LAYOUT_SCORE = 0.5  # layout-model table regions scored lower are too often figures or text
MIN_COLUMN_ROWS = 0.3  # share of a layout table region's rows that must hold two or more pieces of text
COVERAGE_STEP = 0.05  # shares of the text held that differ by less are as good as equal
COLUMN_OVERLAP = 1.0  # points two pieces must overlap by to stand in one column
MIN_PIECE = 3.0  # points: no glyph is narrower; a piece of text that is, is a sliver of ink
GUTTER = 1.2  # line heights: a blank band this wide from a table's top to its foot parts two columns
MIN_SPAN_OVERLAP = 0.15  # share of a fragment's height inside a neighbouring row that makes it span that row
FIGURE_CAPTION = re.compile(r"^(figure|fig\.|chart|graph|plate|map|exhibit|photo)\s*[0-9ivxlc]", re.IGNORECASE)
TABLE_CAPTION = re.compile(r"^(table|tab\.|tableau|tabelle|tabla|tabel|tabela|tabella)" + CAPTION_NUMBER, re.IGNORECASE)
CAPTION_GAP = 2.0  # line heights between a picture and its caption, at most
MIN_FIGURE_SHARE = 0.5  # of the pieces beside a row's first: an aligned table in a picture region holds figures
MIN_ROWS_BEYOND = 2  # rows outside a ruled table that make an aligned table overlapping it its rival
MAX_ALIGNED_LINES = 3000  # a text-layer page with more lines is not searched by alignment (nor by PyMuPDF's finder):
# cells built from tens of thousands of pieces cost minutes


class TableStage:
    """Finds tables, builds their cells, and takes their lines out of the page's text flow.

    folio's ruled-table rules propose tables, and so does a finder: on a page read from its text layer
    PyMuPDF's table finder (given in the input), on a rendered page the layout model's table regions,
    structured by `layout_tables`; where two overlap, `choose_tables` keeps one of them. A caption a table's box
    took in stays the page's text.
    """

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        for page in pages:
            frame = TableFrame.of(page)
            own, found = table_candidates(page, frame)
            for region, table in (part for chosen in choose_tables(own, found, frame.lines, frame.rules)
                                  for part in reshaped(*chosen)):
                held = {id(line): line for line in _inside(frame.lines, region) if not CAPTION.match(line.text)}
                inside = frame.on_page(list(held.values()))
                taken = {id(line) for line in inside}
                page.lines = [line for line in page.lines if id(line) not in taken]
                frame.lines = [line for line in frame.lines if id(line) not in held]
                text = " ".join(cell.text for cell in table.cells if cell.text)
                page.blocks.append(Block(type="table", bbox=frame.page_box(region), lines=inside, text=text,
                                         table=table, confidence=mean_confidence(inside)))
        return pages


@dataclass
class TableFrame:
    """Where a page's tables are looked for: its lines, rules and layout regions, levelled when the page is a scan
    turned by a little (rows of a table at 1.5 degrees drift by a row across it, and rows run into each other),
    with the check boxes of a scan and the dashes and dots OCR's detector passed over as lines of their own
    (engine/marks.py, engine/missing_marks.py), a letter read alone in the case its ink shows
    (engine/lone_letters.py), its OCR lines as wide as their ink
    (`inked`) and a turned column head's lines as one (`turned_heads`); a text-layer line typed in a monospaced
    font in its cells (`spaced_apart`), one that runs on across a gutter beside a figure cut there
    (`figures_apart`), and the words of a justified line the text layer holds apart joined (`justified_lines`).
    Tables are found and built in this frame; their boxes and lines go back to the page."""

    lines: list[Line]
    rules: list[Rule]
    regions: list[Region]
    angle: float = 0.0  # degrees the page was turned to level it
    centre: tuple[float, float] = (0.0, 0.0)
    # by id: a levelled line's page line; a check box's page line where OCR read the box as a character
    originals: dict[int, Line] = field(default_factory=dict)
    # by id: the lines a piece was joined from (a turned head's, `turned_heads`; a justified line's, `justified_lines`)
    parts: dict[int, list[Line]] = field(default_factory=dict)

    @classmethod
    def of(cls, page: PageState) -> "TableFrame":
        if page.use_text_layer:
            pieces = {id(line): [piece for part in spaced_apart(line) for piece in figures_apart(part)]
                      for line in page.lines}
            lines = [piece for line in page.lines for piece in pieces[id(line)]]
            justified = justified_lines(lines)
            taken = {id(line) for _, parts in justified for line in parts}
            return cls([line for line in lines if id(line) not in taken] + [line for line, _ in justified],
                       rules_from_boxes(page.input.drawing_boxes), page.regions,
                       originals={id(piece): line for line in page.lines for piece in pieces[id(line)]},
                       parts={id(line): parts for line, parts in justified})
        if page.image is None:
            return cls(page.lines, [], page.regions)
        grey = cv2.cvtColor(page.image, cv2.COLOR_RGB2GRAY) if page.image.ndim == 3 else page.image
        lines, regions = [inked(line) for line in page.lines], page.regions
        originals = {id(tight): line for tight, line in zip(lines, page.lines)}
        angle, centre = scan_skew(page), (page.input.width / 2, page.input.height / 2)
        if abs(angle) >= MIN_SKEW:
            grey = level(grey, angle)
            levelled = [replace(line, bbox=levelled_box(line.bbox, angle, centre), words=[
                replace(word, bbox=levelled_box(word.bbox, angle, centre)) for word in line.words]) for line in lines]
            regions = [replace(region, bbox=levelled_box(region.bbox, angle, centre)) for region in page.regions]
            originals = {id(new): originals[id(old)] for new, old in zip(levelled, lines)}
            lines = levelled
        else:
            angle = 0.0
        marks = mark_lines(grey, page.image_scale, lines)
        read = {id(reading) for _, reading in marks if reading is not None}
        originals |= {id(mark): originals.get(id(reading), reading) for mark, reading in marks if reading is not None}
        lines = [line for line in lines if id(line) not in read] + [mark for mark, _ in marks]
        cased = lone_letters_cased(grey, page.image_scale, lines)
        originals |= {id(letter): originals.get(id(line), line) for line in lines if (letter := cased.get(id(line)))}
        lines = [cased.get(id(line), line) for line in lines]
        lines += missing_marks(grey, page.image_scale, lines,
                               [r.bbox for r in regions if r.type == "table"] + aligned_regions(lines))
        cut = cut_figure_runs(lines, grey, page.image_scale)
        cut = {id(line): cut.get(id(line)) or figures_apart(line) for line in lines}
        originals |= {id(piece): originals.get(id(line), line) for line in lines for piece in cut[id(line)]}
        lines = [piece for line in lines for piece in cut[id(line)]]
        heads = turned_heads(lines)
        taken = {id(line) for _, parts in heads for line in parts}
        return cls([line for line in lines if id(line) not in taken] + [head for head, _ in heads],
                   rules_from_image(grey, page.image_scale), regions, angle, centre, originals,
                   parts={id(head): parts for head, parts in heads})

    def on_page(self, lines: list[Line]) -> list[Line]:
        """The page's own lines for lines of this frame (a line cut into pieces once, the lines a piece was joined
        from)."""
        parts = [part for line in lines for part in self.parts.get(id(line), [line])]
        return list({id(original): original for original in (self.originals.get(id(line), line)
                                                             for line in parts)}.values())

    def page_box(self, box: BBox) -> BBox:
        """A box of this frame on the page: the box around its corners turned back."""
        if not self.angle:
            return box
        corners = [levelled_box((x, y, x, y), -self.angle, self.centre) for x in (box[0], box[2])
                   for y in (box[1], box[3])]
        return union(corners)


def inked(line: Line) -> Line:
    """An OCR line as wide as its words' ink: the detector's box reaches a few points past it on either side, and
    the boxes of two right-aligned figures a narrow gutter apart overlap (their columns would merge)."""
    if not line.words:
        return line
    left, right = min(word.bbox[0] for word in line.words), max(word.bbox[2] for word in line.words)
    return replace(line, bbox=(max(line.bbox[0], left), line.bbox[1], min(line.bbox[2], right), line.bbox[3]))


Candidate = tuple[BBox, Table]


def table_candidates(page: PageState, frame: TableFrame) -> tuple[list[Candidate], list[Candidate]]:
    """folio's ruled tables and the finder's, in the frame's terms. On a text-layer page a ruled "table" inside a
    picture region of PyMuPDF's layout model is a drawing's lines (the finder, gated by that model, saw no table
    there), and a table the alignment of the text shows is folio's too: a rival where it overlaps the finder's
    table or a layout table region (the finder merges the rows beside a label set between them), and where neither
    saw one when it holds figures (a paper's table scaled down to fit its column), and a layout table region none of
    folio's overlaps is structured as on a rendered page, a rival to the finder's table there (a description table
    set without rules: its wrapped text lines up as no aligned table's pieces may, and the finder left out its
    header); on a rendered page the finder is the layout model's table regions, and the alignment of the text where
    neither found one (a picture region over half the page is the page taken for a picture, as for figures).
    No table lies in a picture or image captioned as a figure: a screenshot's or a chart's text lines up too; a
    picture or text region captioned as a table that no other candidate overlaps is structured as a table region
    (a small table without rules, its descriptions wrapped, looks like a picture or a paragraph; structured, a
    paragraph shows no columns)."""
    lines, rules, regions = frame.lines, frame.rules, frame.regions
    captioned = [replace(r, type="table") for r in regions if r.type in ("figure", "text")
                 and _captioned(r.bbox, lines, TABLE_CAPTION)]
    own = [(region, table) for region, region_rules in find_table_regions(rules, lines)
           if (table := build_table(region, _inside(lines, region), region_rules)) is not None]
    page_area = page.input.width * page.input.height
    if page.use_text_layer:
        pictures = [r.bbox for r in regions if r.type == "figure"]
        own = _outside(own, pictures)
        found = _text_boxed(page.input.found_tables, lines)
        supported = [box for box, _ in found] + [r.bbox for r in regions if r.type == "table"]
        if len(lines) <= MAX_ALIGNED_LINES:
            own += aligned_tables(lines, rules, [r for r, _ in own], pictures, supported)
        own += layout_tables(_unclaimed(regions, own), lines, rules)
        own += layout_tables(_unclaimed(captioned, own + found), lines, rules)
        pictures += [box for box in page.input.image_boxes if area(box) <= MAX_AREA * page_area]
    else:
        found = layout_tables(regions, lines, rules)
        pictures = [r.bbox for r in regions if r.type == "figure" and r.score >= MIN_LAYOUT_SCORE
                    and area(r.bbox) <= MAX_SCAN_PICTURE * page_area]
        found += aligned_tables(lines, rules, [region for region, _ in found], pictures, rivals=[r for r, _ in own])
        found += layout_tables(_unclaimed(captioned, own + found), lines, rules)
    figures = [box for box in pictures if _captioned(box, lines, FIGURE_CAPTION)]
    return _wrapped_rows_joined(_outside(own, figures)), _wrapped_rows_joined(_outside(found, figures))


def _text_boxed(tables: list[FoundTable], lines: list[Line]) -> list[Candidate]:
    """The finder's tables with each body cell of one slot boxed by the words it holds, as folio's own cells are: the
    finder boxes a cell by its slot in the grid (a group's label set between two rows, \\multirow's, lies in one slot,
    and its slot's box says nothing of where between them it stands). Header cells and cells the finder found
    spanning keep their slots (the header's shape is read from them: a group heading set flush right over the
    columns it heads)."""
    boxes = np.array([word.bbox for line in lines for word in line.words], dtype=float).reshape(-1, 4)
    middles = (boxes[:, :2] + boxes[:, 2:]) / 2

    def boxed(cell: TableCell) -> TableCell:
        if cell.bbox is None or not cell.text or cell.header or cell.row_span != 1 or cell.col_span != 1:
            return cell
        x0, y0, x1, y1 = cell.bbox
        inside = boxes[(middles[:, 0] >= x0) & (middles[:, 0] <= x1) & (middles[:, 1] >= y0) & (middles[:, 1] <= y1)]
        if not len(inside):
            return cell
        return replace(cell, bbox=(float(inside[:, 0].min()), float(inside[:, 1].min()), float(inside[:, 2].max()),
                                   float(inside[:, 3].max())))

    return [(item.bbox, replace(item.table, cells=[boxed(cell) for cell in item.table.cells])) for item in tables]


def _wrapped_rows_joined(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates with their wrapped lines joined into the rows they continue, so that rivals are judged by
    the rows a reader sees."""
    return [(region, join_wrapped_rows(table)) for region, table in candidates]


def _unclaimed(regions: list[Region], candidates: list[Candidate]) -> list[Region]:
    """The regions no candidate overlaps."""
    return [region for region in regions if not any(overlaps(region.bbox, box) for box, _ in candidates)]


def _outside(candidates: list[Candidate], boxes: list[BBox]) -> list[Candidate]:
    return [(region, table) for region, table in candidates if not any(center_inside(region, b) for b in boxes)]


def _captioned(box: BBox, lines: list[Line], caption: re.Pattern[str]) -> bool:
    """A caption of the kind ("Figure 3-10 ...", "Chart 2"; "Table 3: ...") right under or over the box, across
    part of it, or its first or last line (a layout model's region may take its caption in)."""
    return any(caption.match(line.text) and min(line.bbox[2], box[2]) > max(line.bbox[0], box[0])
               and (-1.5 <= (line.bbox[1] - box[3]) / max(line.height, 1.0) <= CAPTION_GAP
                    or -1.5 <= (box[1] - line.bbox[3]) / max(line.height, 1.0) <= CAPTION_GAP) for line in lines)


def layout_tables(regions: list[Region], lines: list[Line], rules: list[Rule]) -> list[Candidate]:
    """Tables in the layout model's table regions of a rendered page: cells from the rules detected in the
    region and the alignment of the OCR'd lines, the box drawn tight around them (a caption, and prose above or
    below the rows, left out); a region whose text does not look tabular (a figure the model took for a table)
    gives none. A region over two or more tables that line up apart (tables stacked under their captions) gives
    each of them."""
    found: list[Candidate] = []
    aligned = aligned_regions(lines)
    for region in sorted((r for r in regions if r.type == "table" and r.score >= MIN_LAYOUT_SCORE),
                         key=lambda r: -r.score):
        parts = [box for box in aligned if center_inside(box, region.bbox)]
        for part in parts if len(parts) >= 2 else [region.bbox]:
            if not any(overlaps(part, other) for other, _ in found):
                found += _layout_table(part, lines, rules)
    return found


def _layout_table(region: BBox, lines: list[Line], rules: list[Rule]) -> list[Candidate]:
    """The table of the region's lines (captions and prose at its ends left out) and of the rules among them or a
    line's height above or below them (a rule OCR's image found under a note left out is not the table's)."""
    inside = _without_prose_ends([line for line in _inside(lines, region) if not CAPTION.match(line.text)])
    if not inside or not _has_columns(inside):
        return []
    height = median(line.height for line in inside)
    top, bottom = min(line.bbox[1] for line in inside) - height, max(line.bbox[3] for line in inside) + height
    members = [rule for rule in rules if center_inside(_widened(rule), region) and rule.y0 <= bottom and rule.y1 >= top]
    box = tuple(float(v) for v in union([line.bbox for line in inside] + [(r.x0, r.y0, r.x1, r.y1) for r in members]))
    table = build_table(box, inside, members)
    return [] if table is None else [(box, table)]


def _without_prose_ends(lines: list[Line]) -> list[Line]:
    """The lines but the rows of one piece of prose above the first row of two or more pieces and below the last,
    set from the rows' left edge (a paragraph, a note or a source the layout model's table region took in; a
    cell's text wrapped under the last row stands in its column)."""
    rows = text_rows(lines)
    split = [index for index, row in enumerate(rows) if len(row.lines) >= 2]
    if not split:
        return lines
    left = min(line.bbox[0] for index in split for line in rows[index].lines)
    height = median(line.height for line in lines)
    prose = {index for index, row in enumerate(rows) if (index < split[0] or index > split[-1])
             and len(row.lines[0].text.split()) > MAX_WORDS and row.lines[0].bbox[0] <= left + height}
    return [line for index, row in enumerate(rows) if index not in prose for line in row.lines]


def aligned_tables(lines: list[Line], rules: list[Rule], taken: list[BBox], pictures: Sequence[BBox] = (),
                   supported: Sequence[BBox] | None = None, rivals: Sequence[BBox] = ()) -> list[Candidate]:
    """Tables that only the alignment of their text shows (engine/stages/text_tables.py), where no other candidate
    lies, or overlapping `rivals` where they hold MIN_ROWS_BEYOND rows of the table outside them (a header boxed
    by rules over an open body: the rules frame the header alone), for `choose_tables` to judge. In a picture
    region of the layout model only a table of figures or check boxes counts (a statistical table or a
    questionnaire's grid the model took for a picture; a screenshot's menus line up too, in words), and so, where
    `supported` is given, it does outside those boxes (on a text-layer page: the finder's tables and the layout
    model's table regions); a table captioned as one ("Table 3: ...") counts wherever it lies."""
    found: list[Candidate] = []
    for region in aligned_regions(lines):
        inside = _inside(lines, region)
        if any(overlaps(region, other) for other in taken) or not _has_columns(inside):
            continue
        near = [box for box in rivals if overlaps(region, box)]
        if near and _rows_beyond(inside, near) < MIN_ROWS_BEYOND:
            continue
        figures_only = any(overlaps(region, picture) for picture in pictures) or (
            supported is not None and not any(overlaps(region, box) for box in supported))
        if figures_only and _figure_share(inside) < MIN_FIGURE_SHARE and not _captioned(region, lines, TABLE_CAPTION):
            continue
        table = build_table(region, inside, [rule for rule in rules if center_inside(_widened(rule), region)])
        if table is not None:
            found.append((region, table))
    return found


def _rows_beyond(lines: list[Line], boxes: list[BBox]) -> int:
    """The rows of two or more pieces that the lines set outside the boxes."""
    return _split_rows([line for line in lines if not any(_center_inside(line.bbox, box) for box in boxes)])


def _figure_share(lines: list[Line]) -> float:
    """The share of the pieces beside each row's first that are figures (or missing-value marks) or check boxes."""
    beside = [line for row in text_rows(lines) for line in beside_first(row)]
    return sum(1 for line in beside if figure_or_mark(line.text) or line.text in MARKS) / len(
        beside) if beside else 0.0


def choose_tables(own: list[Candidate], found: list[Candidate], lines: list[Line],
                  rules: list[Rule]) -> list[Candidate]:
    """The finder's tables and folio's, one per region. Of two that overlap, the one whose cells hold clearly
    more of the text in both regions (captions aside: no table's content) wins; else the one nearer the rows the
    page shows (`shown_rows`); else the one whose header spans agree with the partial rules drawn under header
    cells; else the finder's. A finder's table over two or more of folio's (tables set side by side or stacked,
    each framed by its own rules: folio's never overlap one another) gives way to them when together they hold as
    much of the text."""
    chosen = []
    for region, table in found:
        rivals = [(r, t) for r, t in own if overlaps(r, region)]
        if rivals:
            joint = union([region, *(r for r, _ in rivals)])
            where = [line for line in lines if _center_inside(line.bbox, joint) and not CAPTION.match(line.text)]
            near = [rule for rule in rules if overlaps(_widened(rule), joint)]
            shown = shown_rows(where, near), _header_span_rules(joint, near), _gutters(where)
            best = max(rivals, key=lambda rival: _rank(rival[1], where, shown))
            if _rank(best[1], where, shown) > _rank(table, where, shown):
                continue
            if len(rivals) >= 2 and round(table_coverage([t for _, t in rivals], where) / COVERAGE_STEP) >= round(
                    table_coverage([table], where) / COVERAGE_STEP):
                continue
        chosen.append((region, table))
    chosen += [(r, t) for r, t in own if not any(overlaps(r, region) for region, _ in chosen)]
    return chosen


def shown_rows(lines: list[Line], rules: list[Rule]) -> int:
    """How many rows a table region shows: in a grid (`_gridded`) the bands between its horizontal rules, since
    the ruling draws the cells; else the rows of text set in two or more columns (text wrapped inside a cell adds
    no row, lines stacked across several columns are rows)."""
    if _gridded(rules):
        return max(1, len(_boundaries([rule.position for rule in rules if rule.horizontal])) - 1)
    return _split_rows(lines)


def _split_rows(lines: list[Line]) -> int:
    """How many rows of text the lines set in two or more pieces."""
    return sum(1 for row in text_rows(lines) if len(row.lines) >= 2)


def _header_span_rules(region: BBox, rules: list[Rule]) -> int:
    """Partial rules above the first full-width inner rule: each underlines a header cell spanning columns."""
    horizontal = [r for r in rules if r.horizontal and region[1] + EDGE < r.position < region[3] - EDGE]
    full = [r.position for r in horizontal if r.x0 <= region[0] + EDGE and r.x1 >= region[2] - EDGE]
    if not full:
        return 0
    return sum(1 for r in horizontal if r.position < min(full) and (r.x0 > region[0] + EDGE or r.x1 < region[2] - EDGE))


def _rank(table: Table, lines: list[Line], shown: tuple[int, int, list[tuple[float, float]]]
          ) -> tuple[int, int, int, int]:
    """Higher is better: text held (in steps of COVERAGE_STEP; a cell holding two figures side by side, or text
    either side of a gutter, holds it in the wrong place: two columns merged), nearness to the rows shown, then to
    the header spans the rules show, then fewer rows whose key starts late."""
    rows, spans, gutters = shown
    spanning = sum(1 for cell in table.cells if cell.header and cell.col_span > 1)
    held = [cell for cell in table.cells if not any(two_figures(a, b) for a, b in pairwise(cell.text.split()))
            and not _across_gutter(cell, lines, gutters)]
    return (round(cells_coverage(held, lines) / COVERAGE_STEP), -abs(table.rows - rows), -abs(spanning - spans),
            -_late_keys(table, lines))


def _late_keys(table: Table, lines: list[Line]) -> int:
    """The rows whose first column's text starts half a line or more below another of their cells' text: a row
    begins where its key does, and a cell's text above that is the row before's, wrapped (a finder cut the rows
    mid-way through it)."""
    tops: dict[int, dict[int, Line]] = {}
    for cell in table.cells:
        if cell.row_span > 1 or not cell.text or cell.bbox is None:
            continue  # a label spanning rows is set in their middle
        inside = [line for line in lines if _center_inside(line.bbox, cell.bbox)]
        if inside:
            tops.setdefault(cell.row, {})[cell.col] = min(inside, key=lambda line: line.bbox[1])
    return sum(1 for firsts in tops.values() if 0 in firsts and len(firsts) >= 2 and firsts[0].bbox[1] - min(
        line.bbox[1] for line in firsts.values()) >= 0.5 * firsts[0].height)


def _widened(rule: Rule) -> BBox:
    """A rule's box, given EDGE points of thickness so that it can overlap a region."""
    return rule.x0 - EDGE, rule.y0 - EDGE, rule.x1 + EDGE, rule.y1 + EDGE


def table_coverage(tables: list[Table], lines: list[Line]) -> float:
    """The share of the lines' characters (spaces aside) that the tables' cells hold."""
    return cells_coverage([cell for table in tables for cell in table.cells], lines)


def _gutters(lines: list[Line]) -> list[tuple[float, float]]:
    """The blank bands between the lines' pieces that run from the top of the lines to their foot, GUTTER line
    heights wide or wider: where one column ends and the next begins."""
    if not lines:
        return []
    spans = merged_spans([(line.bbox[0], line.bbox[2]) for line in lines], 0.0)
    least = GUTTER * median(line.height for line in lines)
    return [(end, start) for (_, end), (start, _) in pairwise(spans) if start - end >= least]


def _across_gutter(cell: TableCell, lines: list[Line], gutters: list[tuple[float, float]]) -> bool:
    """Whether the cell holds lines either side of a gutter: the text of two columns."""
    crossed = [(left, right) for left, right in gutters
               if cell.bbox is not None and cell.bbox[0] < left and right < cell.bbox[2]]
    if not crossed:
        return False
    inside = [line.bbox for line in lines if _center_inside(line.bbox, cell.bbox)]
    return any(any(box[2] <= left for box in inside) and any(box[0] >= right for box in inside)
               for left, right in crossed)


def cells_coverage(cells: list[TableCell], lines: list[Line]) -> float:
    """The share of the lines' characters (spaces aside) that the cells hold."""
    wanted = Counter(ch for line in lines for ch in line.text if not ch.isspace())
    held = Counter(ch for cell in cells for ch in cell.text if not ch.isspace())
    total = sum(wanted.values())
    return sum((wanted & held).values()) / total if total else 1.0


def _inside(lines: list[Line], region: BBox) -> list[Line]:
    return [line for line in lines if _center_inside(line.bbox, region)]


def _center_inside(box: BBox, region: BBox) -> bool:
    return center_inside(box, region, slack_x=EDGE)


# -- regions


def find_table_regions(rules: list[Rule], lines: list[Line]) -> list[tuple[BBox, list[Rule]]]:
    """Boxes between two or more horizontal rules of the same width with tabular text between them."""
    horizontal = sorted((r for r in rules if r.horizontal), key=lambda r: r.position)
    regions: list[tuple[BBox, list[Rule]]] = []
    for frame in _same_width_runs(horizontal, lines):
        left, right = frame[0].x0, frame[0].x1
        region = (left, frame[0].position, right, frame[-1].position)
        if any(overlaps(region, other) for other, _ in regions):
            continue
        inside = [line for line in lines if _center_inside(line.bbox, region)]
        members = [r for r in rules if left - EDGE <= r.x0 and r.x1 <= right + EDGE
                   and region[1] - EDGE <= r.y0 and r.y1 <= region[3] + EDGE]
        if _looks_tabular(inside, region, members):
            regions.append((region, members))
    return regions


def _same_width_runs(horizontal: list[Rule], lines: list[Line]) -> list[list[Rule]]:
    """Runs of rules with the same left and right ends, split where prose or a long gap comes between."""
    by_extent: list[list[Rule]] = []
    for rule in horizontal:
        same = next((g for g in by_extent if abs(g[0].x0 - rule.x0) <= EDGE and abs(g[0].x1 - rule.x1) <= EDGE), None)
        if same is None:
            by_extent.append([rule])
        else:
            same.append(rule)
    runs = []
    for group in by_extent:
        run = [group[0]]
        for rule in group[1:]:
            if rule.position - run[-1].position <= MAX_RULE_GAP and not _prose_between(run[-1], rule, lines):
                run.append(rule)
            else:
                runs.append(run)
                run = [rule]
        runs.append(run)
    return sorted((run for run in runs if len(run) >= 2), key=lambda run: run[-1].position - run[0].position,
                  reverse=True)


def _prose_between(upper: Rule, lower: Rule, lines: list[Line]) -> bool:
    """A line between the two rules, under them, reaches past their ends (running text, not table content) or is
    a caption (the title of the next table)."""
    for line in lines:
        middle = (line.bbox[1] + line.bbox[3]) / 2
        under = line.bbox[2] > upper.x0 and line.bbox[0] < upper.x1
        if under and upper.position < middle < lower.position and (
            line.bbox[0] < upper.x0 - EDGE or line.bbox[2] > upper.x1 + EDGE or CAPTION.match(line.text)
        ):
            return True
    return False


def _looks_tabular(lines: list[Line], region: BBox, rules: list[Rule]) -> bool:
    """Two or more rows, at least half of them with text in two or more columns, few lines as wide as prose. In a
    ruled grid (`_gridded`) the rows are the bands between its horizontal rules (a cell's text wrapped over lines is
    one row) and the columns those between its vertical rules (`columns`: how many of them each row fills); else
    they are the logical rows (`_key_rows`: a description wrapped over lines in a narrow column is one row) and
    the columns their pieces stand in."""
    if _gridded(rules):
        ys = _boundaries([rule.position for rule in rules if rule.horizontal])
        xs = _boundaries([rule.position for rule in rules if not rule.horizontal])
        bands = [[line for line in lines if top < (line.bbox[1] + line.bbox[3]) / 2 < bottom]
                 for top, bottom in zip(ys, ys[1:])]
        columns = [len({bisect(xs, (line.bbox[0] + line.bbox[2]) / 2) for line in band}) for band in bands if band]
    else:
        columns = [len(merged_spans([(line.bbox[0], line.bbox[2]) for line in row], 0.0)) for row in _key_rows(lines)]
    if len(columns) < 2:
        return False
    multi = sum(1 for count in columns if count >= 2)
    wide = sum(1 for line in lines if line.width > 0.7 * (region[2] - region[0]))
    return multi >= 0.5 * len(columns) and wide <= 1


def _key_rows(lines: list[Line]) -> list[list[Line]]:
    """The lines as the logical rows of a table: a row starts on each line of text with a piece at the region's
    left edge (its key column); the lines under it without one (a cell's text wrapped) continue it."""
    rows = text_rows(lines)
    if not rows:
        return []
    left = min(line.bbox[0] for line in lines)
    height = median(line.height for line in lines)
    logical: list[list[Line]] = []
    for row in rows:
        if not logical or min(line.bbox[0] for line in row.lines) <= left + height:
            logical.append([])
        logical[-1].extend(row.lines)
    return logical


def _has_columns(lines: list[Line]) -> bool:
    """Two or more rows of text in two or more columns, and at least MIN_COLUMN_ROWS of the other rows: beside
    figures, rows whose one short piece lies left of every second column (a row label wrapped over lines, a section
    label) are no other rows. The rest may be text wrapped inside cells."""
    rows = text_rows(lines)
    multi = [row for row in rows if len(row.lines) >= 2]
    second = min((line.bbox[0] for row in multi for line in beside_first(row)), default=0.0)
    labels = sum(1 for row in rows if len(row.lines) == 1 and row.lines[0].bbox[2] <= second
                 and len(row.lines[0].text.split()) <= MAX_WORDS) if _figure_share(lines) >= MIN_FIGURE_SHARE else 0
    return len(multi) >= 2 and len(multi) >= MIN_COLUMN_ROWS * (len(rows) - labels)


# -- structure


def build_table(region: BBox, lines: list[Line], rules: list[Rule]) -> Table | None:
    """Cells from the ruling grid when the table is fully ruled, else from the alignment of its text."""
    if not lines:
        return None
    if _gridded(rules):
        grid = _grid_cells(region, lines, rules)
        if grid is not None:
            return grid
    return _aligned_cells(region, lines, rules)


def _gridded(rules: list[Rule]) -> bool:
    """Whether the rules draw a grid: two or more vertical rules down to the lowest horizontal one (a header boxed
    over an open body, as census tables set it, draws only its header's cells)."""
    bottom = max((rule.position for rule in rules if rule.horizontal), default=None)
    return bottom is not None and sum(1 for rule in rules if not rule.horizontal and rule.end >= bottom - EDGE) >= 2


def _boundaries(positions: list[float], tolerance: float = 2.0) -> list[float]:
    values: list[float] = []
    for position in sorted(positions):
        if not values or position - values[-1] > tolerance:
            values.append(position)
    return values


def _grid_cells(region: BBox, lines: list[Line], rules: list[Rule]) -> Table | None:
    """Cells of a ruled table: slots of the rule grid (two or more column rules; the outer sides may be open),
    merged where a rule is missing."""
    xs = _boundaries([r.position for r in rules if not r.horizontal])
    ys = _boundaries([r.position for r in rules if r.horizontal])
    if len(xs) < 2 or len(ys) < 3:
        return None
    centers = [(line.bbox[0] + line.bbox[2]) / 2 for line in lines]
    if xs[0] > region[0] + EDGE and any(c < xs[0] for c in centers):  # open sides: text beyond the outer
        xs.insert(0, region[0])                                        # column rules is a column to the edge
    if xs[-1] < region[2] - EDGE and any(c > xs[-1] for c in centers):
        xs.append(region[2])
    n_rows, n_cols = len(ys) - 1, len(xs) - 1
    parent = list(range(n_rows * n_cols))

    def find(slot: int) -> int:
        while parent[slot] != slot:
            parent[slot] = parent[parent[slot]]
            slot = parent[slot]
        return slot

    def ruled(horizontal: bool, position: float, start: float, end: float) -> bool:
        middle = (start + end) / 2
        return any(r.horizontal == horizontal and abs(r.position - position) <= 2.0
                   and r.start <= middle <= r.end for r in rules)

    for row in range(n_rows):
        for col in range(n_cols):
            slot = row * n_cols + col
            if col + 1 < n_cols and not ruled(False, xs[col + 1], ys[row], ys[row + 1]):
                parent[find(slot + 1)] = find(slot)
            if row + 1 < n_rows and not ruled(True, ys[row + 1], xs[col], xs[col + 1]):
                parent[find(slot + n_cols)] = find(slot)
    members: dict[int, list[tuple[int, int]]] = {}
    for row in range(n_rows):
        for col in range(n_cols):
            members.setdefault(find(row * n_cols + col), []).append((row, col))
    cells = []
    for slots in members.values():
        rows_of = sorted({r for r, _ in slots})
        cols_of = sorted({c for _, c in slots})
        if len(slots) != len(rows_of) * len(cols_of):
            return None  # not a rectangle: the rules do not describe cells
        box = (xs[cols_of[0]], ys[rows_of[0]], xs[cols_of[-1] + 1], ys[rows_of[-1] + 1])
        text = _join([line for line in lines if _center_inside(line.bbox, box)])
        cells.append(TableCell(row=rows_of[0], col=cols_of[0], text=text, row_span=len(rows_of),
                               col_span=len(cols_of), bbox=box))
    header_rows = _header_rows(cells, lines, ys)
    for cell in cells:
        cell.header = cell.row < header_rows
    return make_table(n_rows, n_cols, cells)


def _aligned_cells(region: BBox, lines: list[Line], rules: list[Rule]) -> Table | None:
    """Cells of a table ruled only horizontally: rows from text baselines, columns from alignment. The header is
    the rows above the first full-width inner rule, unless a row of figures lies above that rule (it parts groups of
    the body: the rule over the header was not seen), else those above a rule underlining the column headings
    (`_underlined_header`), else the rows before the first row of figures down to the last that holds a column
    heading (`_headings_end`)."""
    rows, placed = _row_assignments(lines)
    inner = sorted((r for r in rules if r.horizontal and region[1] + EDGE < r.position < region[3] - EDGE),
                   key=lambda r: r.position)
    full_inner = [r for r in inner if r.x0 <= region[0] + EDGE and r.x1 >= region[2] - EDGE]
    ruled = sum(1 for row in rows if full_inner and row.center < full_inner[0].position)
    figures = _first_figure_row(rows)
    if not ruled and figures:
        ruled = _underlined_header(rows, inner, region, figures)
    header_rows = ruled if ruled and (figures is None or ruled <= figures) else (_headings_end(rows, figures)
                                                                                 if figures else 1)
    header_rows = min(header_rows, max(1, len(rows) - 1))
    columns = _columns([line for line, row, _ in placed if row >= header_rows])
    if len(columns) < 2:
        return None
    found: dict[tuple[int, int], list[Line]] = {}
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    partial = [r for r in inner if r not in full_inner]
    covered = [_columns_of(line, columns, _own_rules(line, row, placed, partial) if row < header_rows else [])
               for line, row, _ in placed]
    leaves = _leaf_headings([cols for (_, row, _), cols in zip(placed, covered) if row == header_rows - 1])
    for (line, row, row_span), cols in zip(placed, covered):
        for piece, piece_cols in _parted(line, cols, columns, leaves and row == header_rows - 1):
            key = (row, piece_cols[0])
            found.setdefault(key, []).append(piece)
            spans[key] = (max(row_span, spans.get(key, (1, 1))[0]), max(len(piece_cols), spans.get(key, (1, 1))[1]))
    cells = [
        TableCell(row=row, col=col, text=_join(pieces), row_span=spans[(row, col)][0],
                  col_span=spans[(row, col)][1], header=row < header_rows, bbox=union([p.bbox for p in pieces]))
        for (row, col), pieces in sorted(found.items())
    ]
    return make_table(len(rows), len(columns), cells)


def _headings_end(rows: list[Row], figures: int) -> int:
    """The rows above the first row of figures down to the last one reaching into the figures' columns: under it,
    rows of the stub's column alone (a section label, a label's first line wrapped over its figures) are the
    body's."""
    start = _figures_start(rows[figures])
    return 1 + max((index for index in range(figures) if any(line.bbox[2] > start for line in rows[index].lines)),
                   default=figures - 1)


def _figures_start(row: Row) -> float:
    """Where the first row of figures' pieces beside its label begin: the figures' columns."""
    return min(line.bbox[0] for line in beside_first(row))


def _underlined_header(rows: list[Row], inner: list[Rule], region: BBox, figures: int) -> int:
    """The rows above the lowest rule over the first row of figures that runs from its first figure's column to the
    table's right edge: the column headings underlined, the stub's not (a section label under that rule, above the
    figures, is the body's first row)."""
    start = _figures_start(rows[figures])
    under = [rule.position for rule in inner if rule.x0 <= start + EDGE and rule.x1 >= region[2] - EDGE
             and rule.position < rows[figures].top]
    return sum(1 for row in rows if under and row.center < max(under))


def _own_rules(line: Line, row: int, placed: list[tuple[Line, int, int]], partial: list[Rule]) -> list[Rule]:
    """The partial rules under a header piece that can be its own: no text between them and it (the next row's,
    a rule under every row), none under another piece of its row (two groups' rules run together on a scan)."""
    below = min((other.bbox[1] for other, _, _ in placed if other.bbox[1] >= line.bbox[3]
                 and min(other.bbox[2], line.bbox[2]) > max(other.bbox[0], line.bbox[0])), default=float("inf"))
    beside = [(other.bbox[0] + other.bbox[2]) / 2 for other, other_row, _ in placed if other_row == row
              and other is not line]
    return [rule for rule in partial if line.bbox[3] < rule.position <= below + EDGE
            and not any(rule.x0 <= centre <= rule.x1 for centre in beside)]


def _first_figure_row(rows: list[Row]) -> int | None:
    """The first row holding a figure (a year aside) beside its first piece, among pieces half of them figures or
    missing-value marks at least: the rows above it are a statistical table's header, wrapped over lines (a
    heading's line among words may hold a figure: "Rate per / 1,000 / inhabitants")."""
    return next((index for index, row in enumerate(rows) if _figures_row(beside_first(row))), None)


def _figures_row(pieces: list[Line]) -> bool:
    """Whether pieces beside a row's first hold a figure, half of them figures or marks at least."""
    return any(body_figure(line.text) for line in pieces) and len(pieces) <= 2 * sum(
        figure_or_mark(line.text) for line in pieces)


def _row_assignments(lines: list[Line]) -> tuple[list[Row], list[tuple[Line, int, int]]]:
    """Rows, and each line's (row index, row span): a line set between two rows spans both."""
    clusters = text_rows(lines)
    kept: list[Row] = []
    placed: list[tuple[Line, int, int]] = []
    for index, row in enumerate(clusters):
        above = kept[-1] if kept else None
        below = clusters[index + 1] if index + 1 < len(clusters) else None
        if above is not None and below is not None and _between(row, above, below):
            placed.extend((line, len(kept) - 1, 2) for line in row.lines)
            continue
        kept.append(row)
        placed.extend((line, len(kept) - 1, 1) for line in row.lines)
    return kept, placed


def _between(row: Row, above: Row, below: Row) -> bool:
    """A row of labels set between two rows, in columns both leave empty (a full row set tightly is a row
    of its own)."""
    if any(min(line.bbox[2], other.bbox[2]) > max(line.bbox[0], other.bbox[0])
           for line in row.lines for other in above.lines + below.lines):
        return False
    height = row.bottom - row.top
    into_above = above.bottom - row.top
    into_below = row.bottom - below.top
    return height > 0 and into_above >= MIN_SPAN_OVERLAP * height and into_below >= MIN_SPAN_OVERLAP * height


def _columns(lines: list[Line]) -> list[tuple[float, float]]:
    """x-intervals of the columns: the body's text pieces merged where they overlap by more than COLUMN_OVERLAP
    (OCR's boxes of neighbouring cells may touch), as the rows with the most common number of pieces set them
    (camelot's stream mode reads columns off those rows); a piece that runs across two of their columns (a spanning
    cell, or two cells OCR read as one line), or a piece with a figure in one of those rows across two pieces of
    another (two cells OCR read as one line in a row that lacks a cell; words across several, a justified cell's
    stretched line, do set it), sets none."""
    rows = [row for row in text_rows(lines) if len(row.lines) >= 2]
    counts = Counter(len(row.lines) for row in rows)
    if not counts:
        return merged_spans([_span(line) for line in lines], -COLUMN_OVERLAP)
    common = max(counts, key=lambda count: (counts[count], count))
    regular_rows = [row for row in rows if len(row.lines) == common]
    regular = [line for row in regular_rows for line in row.lines
               if not any(body_figure(word) for word in line.text.split())
               or not any(_across(line, other) for other in regular_rows if other is not row)]
    base = merged_spans([_span(line) for line in regular], -COLUMN_OVERLAP)
    setting = [line for line in lines if sum(1 for a, b in base if min(b, line.bbox[2]) > max(a, line.bbox[0])) < 2]
    return merged_spans([_span(line) for line in setting], -COLUMN_OVERLAP)


def _span(line: Line) -> tuple[float, float]:
    """A piece's x-interval, widened about its middle to MIN_PIECE where narrower (a sliver of a neighbour's ink
    OCR read twice could otherwise join no column)."""
    middle = (line.bbox[0] + line.bbox[2]) / 2
    return min(line.bbox[0], middle - MIN_PIECE / 2), max(line.bbox[2], middle + MIN_PIECE / 2)


def _parted(line: Line, cols: list[int], columns: list[tuple[float, float]], leaf: bool = False
            ) -> list[tuple[Line, list[int]]]:
    """A piece across two or more columns that holds a cell of each, one piece a column: its words, by where they
    stand, in runs over them, each run beside the first a figure (a row's label and its first figure, or two
    figures, a narrow gutter apart: the text layer or OCR ran them into one line: `_word_runs`), or, in a row of
    headings of a column each (`leaf`), a run over each column (`_headings_run_together`); or, where its words do not
    show that, as many figures as columns (two cells whose ink did not show them apart: figure_runs), each boxed
    where its column crosses the line. Any other piece whole, over its columns."""
    if len(cols) < 2:
        return [(line, cols)]
    runs = _word_runs(line, cols, columns) or (_headings_run_together(line, cols, columns) if leaf else None)
    if runs is not None:
        return runs
    words = figure_words(line.text)
    if words is None or len(words) != len(cols):
        return [(line, cols)]
    x0, y0, x1, y1 = line.bbox
    return [(replace(line, text=word, bbox=(max(x0, columns[col][0]), y0, min(x1, columns[col][1]), y1)), [col])
            for word, col in zip(words, cols)]


def _word_runs(line: Line, cols: list[int], columns: list[tuple[float, float]]) -> list[tuple[Line, list[int]]] | None:
    """The line's words in runs by the one column each mostly lies in (a word in none, not a figure, with the words
    before it), when they follow the columns left to right and every run beside the first is a figure; None
    otherwise."""
    if not _words_whole(line):
        return None  # a piece cut from an OCR line keeps the line's words
    placed: list[tuple[int, Word]] = []
    for word in line.words:
        width = max(word.bbox[2] - word.bbox[0], 1e-6)
        inside = [col for col in cols
                  if min(word.bbox[2], columns[col][1]) - max(word.bbox[0], columns[col][0]) > 0.5 * width]
        if not inside and placed and not figure_or_mark(word.text):
            placed.append((placed[-1][0], word))  # a label running on past its column's other labels
            continue
        if len(inside) != 1 or (placed and inside[0] < placed[-1][0]):
            return None
        placed.append((inside[0], word))
    runs = _column_runs(placed)
    if len(runs) < 2 or not all(figure_or_mark(" ".join(word.text for word in words)) for _, words in runs[1:]):
        return None
    return [(piece_of(line, words), [col]) for col, words in runs]


def _leaf_headings(covered: list[list[int]]) -> bool:
    """Whether the header's last row is one of headings over a column each: all its pieces but one are, two at
    least (the one may be two headings run together)."""
    single = sum(1 for cols in covered if len(cols) == 1)
    return single >= 2 and single >= len(covered) - 1


def _headings_run_together(line: Line, cols: list[int], columns: list[tuple[float, float]]
                           ) -> list[tuple[Line, list[int]]] | None:
    """The headings of neighbouring columns the detector or the text layer ran into one line ("Employed
    Unemployed"), one piece a column: its words each over one column alone, a run over every column it covers;
    None otherwise."""
    if not _words_whole(line):
        return None
    placed: list[tuple[int, Word]] = []
    for word in line.words:
        inside = [col for col in cols if min(word.bbox[2], columns[col][1]) - max(word.bbox[0], columns[col][0]) > 0]
        if len(inside) != 1:
            return None
        placed.append((inside[0], word))
    runs = _column_runs(placed)
    if [col for col, _ in runs] != cols:
        return None
    return [(piece_of(line, words), [col]) for col, words in runs]


def _words_whole(line: Line) -> bool:
    """Whether the line's words are its whole text, each with its box."""
    return bool(line.words) and " ".join(word.text for word in line.words) == line.text


def _column_runs(placed: list[tuple[int, Word]]) -> list[tuple[int, list[Word]]]:
    """Words placed in columns, left to right, in runs of neighbours over the same column."""
    return [(col, [word for _, word in run]) for col, run in groupby(placed, key=itemgetter(0))]


def _across(line: Line, row: Row) -> bool:
    """Whether the line overlaps two or more of the row's pieces (by more than COLUMN_OVERLAP each)."""
    return sum(1 for other in row.lines
               if min(line.bbox[2], other.bbox[2]) - max(line.bbox[0], other.bbox[0]) > COLUMN_OVERLAP) >= 2


def _columns_of(line: Line, columns: list[tuple[float, float]], rules_below: list[Rule]) -> list[int]:
    """The columns a piece of text covers: under a partial rule (a header's own, `_own_rules`, over the columns it
    heads) it spans what the rule spans."""
    center = (line.bbox[0] + line.bbox[2]) / 2
    underline = next((r for r in sorted(rules_below, key=lambda r: r.position)
                      if r.position - line.bbox[3] < 2 * line.height and r.x0 - EDGE <= center <= r.x1 + EDGE), None)
    if underline is not None:
        covered = [i for i, (a, b) in enumerate(columns) if underline.x0 - EDGE <= (a + b) / 2 <= underline.x1 + EDGE]
        if covered:
            return covered
    overlap = [min(b, line.bbox[2]) - max(a, line.bbox[0]) for a, b in columns]
    covered = [i for i, (a, b) in enumerate(columns) if overlap[i] > 0.5 * (b - a)]
    if covered:
        return covered
    if max(overlap) > 0:  # a short piece in a wide column ("ment", a word wrapped under its description)
        return [max(range(len(columns)), key=lambda i: overlap[i])]
    return [min(range(len(columns)), key=lambda i: abs((columns[i][0] + columns[i][1]) / 2 - center))]


def _header_rows(cells: list[TableCell], lines: list[Line], ys: list[float]) -> int:
    """Rows of the header: as deep as the tallest cell of the first row, or the bold rows on top."""
    depth = max((cell.row_span for cell in cells if cell.row == 0), default=1)
    bold_rows = 0
    for row in range(len(ys) - 1):
        row_lines = [l for l in lines if ys[row] <= (l.bbox[1] + l.bbox[3]) / 2 <= ys[row + 1]]
        if row_lines and all(l.bold for l in row_lines):
            bold_rows += 1
        else:
            break
    return max(depth, bold_rows, 1) if bold_rows < len(ys) - 1 else depth


def _join(lines: list[Line]) -> str:
    """A cell's text: its lines in reading order, a word hyphenated across two of them joined again."""
    return join_lines(sorted(lines, key=lambda l: (round(l.bbox[1]), l.bbox[0])))
