"""Where on the page the model's blocks are: boxes for blocks the model wrote without coordinates.

On a page with a text layer each block's words are found among the layer's words (in order, the
page read from where the previous block ended first); a formula takes the free words between its
neighbours (or, failing that, its glyphs wherever they are), a figure a picture drawn there. On a scan the
blocks are laid over the text detector's lines in reading order: each block takes the run of lines
whose length best fits its text's (a dynamic programme over blocks and lines, lines the model left
out, such as running heads, skipped). A block found nowhere gets the whole page as its box and
`placed=False`, which the validation gate records.
"""

import math
import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from engine.geometry import area, center_inside, union
from engine.stages.reading_order import xy_order
from engine.types import BBox, Block, Formula, Line
from engine.vlm.answer import Draft

MIN_MATCH = 0.5  # share of a block's words that must be found in the text layer for it to be placed there
MAX_PICTURE_SHARE = 0.9  # an image covering more of the page is the page itself (a scan), not a figure
BREAK_CHARS = 20.0  # what a wide gap or a change of size inside one block's run of lines costs, in characters
FULL_LINE = 0.9  # a line this share of its column's width long goes on in the next line, unless a gap follows
SIZE_CHANGE = 1.3  # consecutive lines whose heights differ more than this are set in different sizes
MAX_RUN = 80  # detected lines one block may take
MAX_WORK = 8_000_000  # steps of the fit (blocks x lines x MAX_RUN); a page beyond it is not placed (seconds of CPU)
MISFIT, MISFIT_CHARS = 0.4, 10  # a run estimated further off its text's length than this share (+ chars) is none
SMALL_SKIP = 0.25  # least share of its characters that leaving out a line costs (one much smaller than the body)
_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+|[{}^_&]|\\.")


@dataclass(frozen=True)
class Word:
    token: str  # compared: NFKC, case-folded, without the punctuation around it
    text: str  # as printed
    bbox: BBox


def token(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", word).casefold().strip(
        "\"'`.,;:!?()[]{}<>«»“”‘’*_|~-–—•·$\\"))


def tokens(text: str) -> list[str]:
    return [found for word in text.split() if (found := token(word))]


def latex_tokens(latex: str) -> list[str]:
    r"""A formula's words as its glyphs would print them: commands and grouping dropped (a^{2} -> a2)."""
    spaced = latex.replace("}{", "} {")  # \frac{c}{d} prints c and d apart
    return tokens(_LATEX_COMMAND.sub(lambda match: " " if match.group(0).startswith("\\") else "", spaced))


def layer_words(lines: list[Line]) -> list[Word]:
    """The words of text-layer lines, each with its share of its line's box (by character position)."""
    words = []
    for line in lines:
        x0, y0, x1, y1 = line.bbox
        length = max(1, len(line.text))
        for match in re.finditer(r"\S+", line.text):
            if found := token(match.group(0)):
                left = x0 + (x1 - x0) * match.start() / length
                right = x0 + (x1 - x0) * match.end() / length
                words.append(Word(found, match.group(0), (left, y0, right, y1)))
    return words


def place_by_words(drafts: list[Draft], words: list[Word], pictures: list[BBox], width: float,
                   height: float) -> list[Block]:
    """Blocks for the drafts (their boxes in points), placed on the page's text-layer words: text first, then
    formulas on the free words between their neighbours, then formulas on their glyphs anywhere."""
    claimed = [any(draft.box is not None and center_inside(word.bbox, draft.box) for draft in drafts)
               for word in words]
    found: dict[int, list[int]] = {}
    boxes: dict[int, BBox] = {index: draft.box for index, draft in enumerate(drafts) if draft.box is not None}

    def take(index: int, match: list[int]) -> None:
        found[index] = match
        boxes[index] = union([words[position].bbox for position in match])
        for position in match:
            claimed[position] = True

    cursor = 0
    for index, draft in enumerate(drafts):
        if index not in boxes and draft.latex is None and (wanted := _wanted(draft)):
            if match := _match(wanted, words, claimed, cursor):
                take(index, match)
                cursor = max(match) + 1
    _place_pictures(drafts, boxes, pictures, width * height)
    for run in _unplaced_runs(drafts, boxes):
        for index, match in _between(run, drafts, boxes, words, claimed).items():
            take(index, match)
    for index, draft in enumerate(drafts):  # a formula with no room between its neighbours: its glyphs anywhere
        if index not in boxes and draft.latex is not None and (wanted := _wanted(draft)):
            if match := _match(wanted, words, claimed, 0):
                take(index, match)
    texts = {index: " ".join(words[position].text for position in sorted(match)) for index, match in found.items()}
    return [_block(draft, boxes.get(index), width, height, texts.get(index)) for index, draft in enumerate(drafts)]


def _wanted(draft: Draft) -> list[str]:
    if draft.type == "figure":
        return []  # its text describes the picture; it is not printed on the page
    return latex_tokens(draft.latex) if draft.latex is not None else tokens(draft.text)


def _match(wanted: list[str], words: list[Word], claimed: list[bool], cursor: int) -> list[int]:
    """Positions of the free words that hold the wanted words: the densest run of matches, first looked for from
    the cursor on (the layer usually lists text in reading order), then on the whole page."""
    needed = max(1, math.ceil(MIN_MATCH * len(wanted)))
    page = [None if taken else word.token for word, taken in zip(words, claimed)]
    for start in (cursor, 0) if cursor else (0,):
        matcher = SequenceMatcher(None, wanted, page[start:], autojunk=False)
        positions = [start + b + k for _, b, size in matcher.get_matching_blocks() for k in range(size)]
        best = _densest(positions, max(8, len(wanted) // 2))
        if len(best) >= needed:
            return best
    return []


def _densest(positions: list[int], max_gap: int) -> list[int]:
    """The largest group of positions whose neighbours are at most `max_gap` apart."""
    groups: list[list[int]] = []
    for position in positions:
        if groups and position - groups[-1][-1] <= max_gap:
            groups[-1].append(position)
        else:
            groups.append([position])
    return max(groups, key=len, default=[])


def _place_pictures(drafts: list[Draft], boxes: dict[int, BBox], pictures: list[BBox], page_area: float) -> None:
    """Figures without a box take the page's pictures no block covers, both in reading order."""
    free = [box for box in sorted(pictures, key=lambda box: (box[1], box[0]))
            if area(box) < MAX_PICTURE_SHARE * page_area
            and not any(center_inside(box, other) for other in boxes.values())]
    for index, draft in enumerate(drafts):
        if draft.type == "figure" and index not in boxes and free:
            boxes[index] = free.pop(0)


def _unplaced_runs(drafts: list[Draft], boxes: dict[int, BBox]) -> list[list[int]]:
    """Consecutive formulas without a box (text whose words are not on the page, and figures, hold none of the
    words left over)."""
    runs: list[list[int]] = []
    for index, draft in enumerate(drafts):
        if index in boxes:
            runs.append([])
        elif draft.latex:
            if not runs:
                runs.append([])
            runs[-1].append(index)
    return [run for run in runs if run]


def _between(run: list[int], drafts: list[Draft], boxes: dict[int, BBox], words: list[Word],
             claimed: list[bool]) -> dict[int, list[int]]:
    """The free words between the run's placed neighbours (the body's edge where it has none), in rows, shared
    out among the run's drafts in order by their lengths."""
    if not boxes:
        return {}
    body = union(list(boxes.values()))
    before = [boxes[i] for i in range(run[0] - 1, -1, -1) if i in boxes][:1]
    after = [boxes[i] for i in range(run[-1] + 1, len(drafts)) if i in boxes][:1]
    top = before[0][3] if before else body[1]
    bottom = after[0][1] if after else body[3]
    left, right = (min(b[0] for b in before + after), max(b[2] for b in before + after)) if before or after \
        else (body[0], body[2])
    region = (left, top, right, bottom)
    if bottom <= top:
        return {}
    free = [i for i, word in enumerate(words) if not claimed[i] and center_inside(word.bbox, region)]
    rows = _rows(free, words)
    if len(rows) < len(run):
        return {}
    lengths = [max(1, len(_wanted(drafts[index]))) for index in run]
    bounds = [0]
    for count in range(1, len(run)):  # each draft at least one row, the rows shared by length
        share = round(len(rows) * sum(lengths[:count]) / sum(lengths))
        bounds.append(min(max(share, bounds[-1] + 1), len(rows) - (len(run) - count)))
    bounds.append(len(rows))
    return {index: [position for row in rows[bounds[n]:bounds[n + 1]] for position in row]
            for n, index in enumerate(run)}


def _rows(positions: list[int], words: list[Word]) -> list[list[int]]:
    """Word positions grouped into rows of overlapping height, top to bottom."""
    rows: list[list[int]] = []
    spans: list[tuple[float, float]] = []
    for position in sorted(positions, key=lambda p: (words[p].bbox[1], words[p].bbox[0])):
        _, y0, _, y1 = words[position].bbox
        if spans and y0 < spans[-1][1] - 0.3 * (y1 - y0):
            rows[-1].append(position)
            spans[-1] = (spans[-1][0], max(spans[-1][1], y1))
        else:
            rows.append([position])
            spans.append((y0, y1))
    return rows


def place_by_lines(drafts: list[Draft], lines: list[BBox], width: float, height: float) -> list[Block]:
    """Blocks for the drafts (their boxes in points) laid over a scan's detected lines in reading order."""
    boxed = [draft.box for draft in drafts if draft.box is not None]
    free = [line for line in lines if not any(center_inside(line, box) for box in boxed)]
    ordered = [block.bbox for block in xy_order([Block(type="text", bbox=line) for line in free])]
    items = [(index, _length(draft)) for index, draft in enumerate(drafts)
             if draft.box is None and draft.type != "figure" and _length(draft) > 0]
    groups = _fit_lines([length for _, length in items], ordered)
    boxes = {index: union(group) for (index, _), group in zip(items, groups) if group}
    boxes.update((index, draft.box) for index, draft in enumerate(drafts) if draft.box is not None)
    return [_block(draft, boxes.get(index), width, height, None) for index, draft in enumerate(drafts)]


def _length(draft: Draft) -> int:
    """The characters a draft shows on the page (a formula's glyphs, not its LaTeX)."""
    return sum(len(word) for word in _wanted(draft))


def _fit_lines(lengths: list[int], lines: list[BBox]) -> list[list[BBox]]:
    """For each text length in order, the run of lines (in order) that holds it; lines may be skipped.

    A line holds about width / height characters times a page-wide factor (glyphs are as wide as they are
    tall, whatever the font size). The runs minimise the characters left unexplained: a run's estimate off its
    text's length, the lines skipped (a line smaller than the body, such as a running head the model left out,
    costs less), blocks without lines, wide gaps or changes of size inside a run, and a run that starts or ends
    inside a paragraph (after a full line, with no gap). Fitted twice, the second
    time with the factor the first fit measured. A run whose length is far off its text's is no run: where the
    model's reading order and the lines' differ, the block is not placed rather than placed wrong.
    """
    if not lengths or not lines or len(lengths) * len(lines) * MAX_RUN > MAX_WORK:
        return [[] for _ in lengths]
    heights = [max(1e-3, line[3] - line[1]) for line in lines]
    body = sorted(heights)[len(heights) // 2]
    units = [(line[2] - line[0]) / height for line, height in zip(lines, heights)]
    skip_weights = [min(1.0, max(SMALL_SKIP, (height / body) ** 2)) for height in heights]
    breaks = [0]  # before each line: how many wide gaps or changes of size there are between lines up to it
    joined = [False]  # whether a line goes on with the paragraph of the full line above it
    for (upper, lower), (high, next_high) in zip(zip(lines, lines[1:]), zip(heights, heights[1:])):
        wide = lower[1] - upper[3] > 1.2 * body
        resized = max(high, next_high) > SIZE_CHANGE * min(high, next_high)
        breaks.append(breaks[-1] + int(wide) + int(resized))
        column = max(line[2] - line[0] for line in lines if abs(line[0] - upper[0]) <= 2 * body)
        joined.append(not wide and not resized and upper[1] < lower[1] and abs(lower[0] - upper[0]) <= 2 * body
                      and upper[2] - upper[0] >= FULL_LINE * column)
    units_per_char = sum(units) / max(1, sum(lengths))
    runs: list[tuple[int, int]] = []
    for _ in range(2):
        runs = _best_runs(lengths, [unit / units_per_char for unit in units], skip_weights, breaks, joined)
        taken = [(lengths[i], sum(units[start:end])) for i, (start, end) in enumerate(runs) if end > start]
        if taken:
            units_per_char = sum(u for _, u in taken) / max(1, sum(c for c, _ in taken))
    fits = [abs(sum(units[start:end]) / units_per_char - length) <= MISFIT * length + MISFIT_CHARS
            for (start, end), length in zip(runs, lengths)]
    return [lines[start:end] if fit else [] for (start, end), fit in zip(runs, fits)]


def _best_runs(lengths: list[int], chars: list[float], skip_weights: list[float], breaks: list[int],
               joined: list[bool]) -> list[tuple[int, int]]:
    """(first line, line after the last) of each block's run: a dynamic programme over blocks and lines."""
    n, m = len(lengths), len(chars)
    prefix = [0.0]
    for count in chars:
        prefix.append(prefix[-1] + count)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back: list[list[tuple[int, int] | None]] = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = cost[i][j]
            if here == inf:
                continue
            if j < m and here + chars[j] * skip_weights[j] < cost[i][j + 1]:  # line j belongs to no block
                cost[i][j + 1], back[i][j + 1] = here + chars[j] * skip_weights[j], (i, j)
            if i == n:
                continue
            if here + lengths[i] < cost[i + 1][j]:  # block i takes no line
                cost[i + 1][j], back[i + 1][j] = here + lengths[i], (i, j)
            for k in range(j + 1, min(m, j + MAX_RUN) + 1):  # block i takes lines j..k-1
                splits = breaks[k - 1] - breaks[j] + joined[j] + (k < m and joined[k])  # and paragraphs cut
                total = here + abs(prefix[k] - prefix[j] - lengths[i]) + BREAK_CHARS * splits
                if total < cost[i + 1][k]:
                    cost[i + 1][k], back[i + 1][k] = total, (i, j)
    runs: list[tuple[int, int]] = [(0, 0)] * n
    i, j = n, m
    while (i, j) != (0, 0):
        previous = back[i][j]
        assert previous is not None
        if previous[0] == i - 1:
            runs[i - 1] = (previous[1], j)
        i, j = previous
    return runs


def _block(draft: Draft, box: BBox | None, width: float, height: float, words: str | None) -> Block:
    """The draft as a block: where it was placed, or the whole page and `placed=False`."""
    text = draft.text
    if draft.latex is not None:
        text = words or draft.latex  # a formula's text is its printed glyphs where the layer has them
    return Block(type=draft.type, bbox=box or (0.0, 0.0, width, height), text=text, table=draft.table,
                 formula=Formula(latex=draft.latex, display=True) if draft.latex is not None else None,
                 placed=box is not None)
