"""Opening PDFs with PyMuPDF: readable errors for bad files, the text layer as engine input, page fingerprints."""

import hashlib
import json
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf

from engine.geometry import union
from engine.mathiness import math_letters_repaired
from engine.orientation import direction_turn, dominant_turn, turn_box, turn_line, turned_size
from engine.types import Line, PageInput, Span
from engine.words import words_at
from pages.budget import PageBudget
from pages.pdf_layout import analyse_layout, as_box, layout_worth_it
from sources.failures import BadDocument, mupdf_message, unreadable

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)

_HEADER_WINDOW = 1024  # the PDF header may follow some junk; the spec-tolerant readers look this far
_BOLD_FLAG = 16
_BULLET = "\u2022"
_METADATA_KEYS = ("title", "author", "subject", "keywords", "creator", "producer", "creationDate", "modDate", "format")


@dataclass(frozen=True)
class DocumentInfo:
    page_count: int
    metadata: dict[str, Any]


def open_pdf(path: Path) -> pymupdf.Document:
    """The opened document, or BadDocument saying plainly what is wrong with the file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEADER_WINDOW)
    except OSError as error:
        raise unreadable(error) from error
    if not head:
        raise BadDocument("empty: the file has zero bytes")
    if b"%PDF-" not in head:
        raise BadDocument(f"not a PDF: no %PDF- header in the first {_HEADER_WINDOW} bytes")
    try:
        document = pymupdf.open(path, filetype="pdf")
    except Exception as error:  # MuPDF raises several types for unreadable files
        raise BadDocument(f"corrupt: {mupdf_message(error)}") from error
    try:
        if document.needs_pass:
            raise BadDocument("encrypted: password required")
        if document.page_count == 0:  # a page tree whose /Count lies raises here
            raise BadDocument("corrupt: no page could be read (damaged or truncated file)")
    except Exception as error:
        document.close()
        if isinstance(error, BadDocument):
            raise
        raise BadDocument(f"corrupt: {mupdf_message(error)}") from error
    return document


def inspect_document(path: Path) -> DocumentInfo:
    """Page count and metadata of a PDF; BadDocument if it cannot be processed at all."""
    document = open_pdf(path)
    try:
        metadata = {key: value for key in _METADATA_KEYS if (value := (document.metadata or {}).get(key))}
        if document.is_repaired:
            metadata["repaired"] = True
        return DocumentInfo(page_count=document.page_count, metadata=metadata)
    except Exception as error:  # MuPDF meeting damage beyond the first look
        raise BadDocument(f"corrupt: {mupdf_message(error)}") from error
    finally:
        document.close()


@dataclass(frozen=True)
class PageGraphics:
    """A page's drawings and images as PyMuPDF reports them, read once for the input and the fingerprint."""

    drawings: list[dict[str, Any]]
    images: list[dict[str, Any]]


def page_graphics(page: pymupdf.Page) -> PageGraphics:
    return PageGraphics(drawings=page.get_drawings(), images=page.get_image_info(hashes=True))


def page_input(page: pymupdf.Page, key: str, pdf_path: Path, graphics: PageGraphics | None = None,
               budget: PageBudget | None = None) -> PageInput:
    """What the engine needs of a page: its size, text layer lines, image placements, drawn lines, and the layout
    regions and tables PyMuPDF finds in its text layer; every box in the displayed page's coordinates (with
    /Rotate applied: PyMuPDF reports text, drawings and images on the unrotated page). OverBudget if the page
    holds more than its budget allows."""
    graphics = graphics or page_graphics(page)
    rect = page.rect
    layer = read_text_layer(page)
    drawn = sum(len(path["items"]) for path in graphics.drawings)
    if budget is not None:
        budget.check(layer.objects, layer.characters, drawn)
    regions, tables = analyse_layout(page, layer.turn) if layout_worth_it(len(layer.lines), drawn) else ([], [])
    rotation = page.rotation_matrix
    return PageInput(
        key=key,
        pdf_path=str(pdf_path),
        page_index=page.number,
        width=float(rect.width),
        height=float(rect.height),
        text_lines=layer.lines,
        image_boxes=[as_box(pymupdf.Rect(info["bbox"]) * rotation) for info in graphics.images],
        image_dpi=image_resolution(max(graphics.images, key=lambda info: abs(pymupdf.Rect(info["bbox"])),
                                       default=None)),
        drawing_boxes=drawing_boxes(graphics.drawings, rotation),
        layout_regions=regions,
        found_tables=tables,
        side_lines=layer.side_lines,
        turn=layer.turn,
    )


def image_resolution(info: dict[str, Any] | None) -> float | None:
    """Pixels per inch of an image as the page draws it (`get_image_info`'s entry), along its longer side."""
    if info is None:
        return None
    rect = pymupdf.Rect(info["bbox"])
    return 72 * max(info["width"], info["height"]) / max(rect.width, rect.height, 1e-6)


def drawing_boxes(drawings: list[dict[str, Any]],
                  rotation: pymupdf.Matrix | None = None) -> list[tuple[float, float, float, float]]:
    """The box of every straight line, rectangle and quad drawn on the page (turned by `rotation`: the page's
    rotation matrix, for boxes on the displayed page)."""
    boxes = []
    for path in drawings:
        for item in path["items"]:
            kind = item[0]
            if kind == "l":
                rect = pymupdf.Rect(item[1], item[2])
            elif kind == "re":
                rect = pymupdf.Rect(item[1])
            elif kind == "qu":
                rect = item[1].rect
            else:
                continue
            rect.normalize()
            if rotation is not None:
                rect = rect * rotation
            boxes.append(as_box(rect))
    return boxes


@dataclass(frozen=True)
class TextLayer:
    """A page's text layer in the displayed page's coordinates: the lines that run in the page's reading
    direction, those that run across it, and the clockwise turn (0/90/180/270) that makes the page read
    upright (the direction most characters run in)."""

    lines: list[Line]
    side_lines: list[Line]
    turn: int
    objects: int = 0  # text objects (spans) PyMuPDF read, and their characters
    characters: int = 0


def text_layer_lines(page: pymupdf.Page) -> list[Line]:
    """The lines of the text layer that run in the page's reading direction."""
    return read_text_layer(page).lines


def read_text_layer(page: pymupdf.Page) -> TextLayer:
    """Lines of the text layer, split where spans are far apart (columns, table cells), in the displayed
    page's coordinates; diagonal text (a watermark) is left out."""
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    rotation = page.rotation_matrix
    width, height = float(page.rect.width), float(page.rect.height)
    by_turn: dict[int, list[Line]] = defaultdict(list)
    objects = characters = 0
    unmapped = unmapped_fonts(page)
    for block in page.get_text("rawdict", flags=flags)["blocks"]:
        for raw_line in block.get("lines", ()):
            texts = ["".join(char["c"] for char in s["chars"]) for s in raw_line["spans"]]
            objects += len(raw_line["spans"])
            characters += sum(len(text) for text in texts)
            dx, dy = raw_line["dir"]
            turn = direction_turn(dx * rotation.a + dy * rotation.c, dx * rotation.b + dy * rotation.d)
            if turn is None:
                continue
            # spans in the line's own upright frame, where it runs left to right
            frame = (rotation, turn, width, height)
            spans, pieces = [], {}
            for s, text in zip(raw_line["spans"], texts):
                if _glyph_codes_only(text):
                    continue
                span = Span(text=math_letters_repaired(text, s["font"]), bbox=_upright(s["bbox"], *frame),
                            size=float(s["size"]), font=s["font"],
                            bold=bool(s["flags"] & _BOLD_FLAG) or "bold" in s["font"].lower(),
                            unmapped=s["font"] in unmapped)
                spans.append(span)
                pieces[id(span)] = [(word, _upright(box, *frame)) for word, box in _word_boxes(s["chars"])]
            w, h = turned_size(width, height, turn)
            back = (360 - turn) % 360
            by_turn[turn].extend(turn_line(line, back, w, h) for line in _split_at_gaps(spans, pieces))
    by_turn = {turn: named_bullets(lines) for turn, lines in by_turn.items()}
    chars = {turn: sum(len(line.text) for line in lines) for turn, lines in by_turn.items()}
    turn = dominant_turn(chars)
    side = [line for other, lines in sorted(by_turn.items()) if other != turn for line in lines]
    return TextLayer(lines=by_turn.get(turn, []), side_lines=side, turn=turn, objects=objects, characters=characters)


def unmapped_fonts(page: pymupdf.Page) -> set[str]:
    """The names text spans carry for the page's fonts that have no map from glyphs to characters: Type3 and
    CID (Type0) fonts without a ToUnicode map, whose text MuPDF can only guess from glyph codes."""
    names = set()
    document = page.parent
    for xref, _, kind, basefont, _, _, _ in page.get_fonts(full=True):
        if kind not in ("Type3", "Type0") or document.xref_get_key(xref, "ToUnicode")[0] != "null":
            continue
        names.update({basefont.split("+")[-1], f"{kind} ({xref} 0 R)"})
        kind_of_name, name = document.xref_get_key(xref, "Name")
        if kind_of_name == "name":
            names.add(name.lstrip("/"))
    return names - {""}


def _glyph_codes_only(text: str) -> bool:
    """Nothing but spaces and control characters: a symbol font's bullet or checkbox mapped to no character."""
    return all(c.isspace() or unicodedata.category(c) == "Cc" for c in text)


def _upright(box: Any, rotation: pymupdf.Matrix, turn: int, width: float, height: float) -> tuple[float, ...]:
    """A box of the unrotated page in the displayed page turned by `turn` (`width` x `height` displayed)."""
    return turn_box(as_box(pymupdf.Rect(box) * rotation), turn, width, height)


def _word_boxes(chars: list[dict[str, Any]]) -> list[tuple[str, tuple[float, ...]]]:
    """A span's characters as words (cut at white space), each with the union of its characters' boxes."""
    words: list[tuple[list[str], list[tuple[float, ...]]]] = []
    joined = False  # the next character continues the last word
    for char in chars:
        if char["c"].isspace():
            joined = False
            continue
        if not joined:
            words.append(([], []))
        words[-1][0].append(char["c"])
        words[-1][1].append(char["bbox"])
        joined = True
    return [("".join(text), union(boxes)) for text, boxes in words]


def _split_at_gaps(spans: list[Span], pieces: dict[int, list[tuple[str, tuple[float, ...]]]]) -> list[Line]:
    """The spans of one text-layer line as lines of their own where they stand far apart; `pieces`: each span's
    words with their boxes (_word_boxes), by the span's id."""
    groups: list[list[Span]] = []
    for span in spans:
        if groups:
            last = groups[-1][-1]
            gap = span.bbox[0] - last.bbox[2]
            if gap <= 1.2 * max(span.size, last.size) and gap > -last.size:
                groups[-1].append(span)
                continue
        groups.append([span])
    return [_line_of(group, pieces) for group in groups]


def _line_of(spans: list[Span], pieces: dict[int, list[tuple[str, tuple[float, ...]]]]) -> Line:
    text = spans[0].text
    words = list(pieces[id(spans[0])])
    for previous, span in zip(spans, spans[1:]):
        gap = span.bbox[0] - previous.bbox[2]
        touching = not text[-1:].isspace() and not span.text[:1].isspace()
        if touching and gap > 0.15 * span.size:
            text += " "
        following = pieces[id(span)]
        if touching and gap <= 0.15 * span.size and words and following:  # one word set in two spans
            (left, a), (right, b), following = words.pop(), following[0], following[1:]
            words.append((left + right, union([a, b])))
        text += span.text
        words.extend(following)
    bbox = (min(s.bbox[0] for s in spans), min(s.bbox[1] for s in spans),
            max(s.bbox[2] for s in spans), max(s.bbox[3] for s in spans))
    weights = [len(s.text.strip()) for s in spans]
    size = max(spans, key=lambda s: len(s.text.strip())).size
    bold = sum(w for s, w in zip(spans, weights) if s.bold) > sum(weights) / 2
    text = " ".join(text.split())
    return Line(text=text, bbox=bbox, size=size, bold=bold, spans=spans,
                words=words_at(text, bbox, [box for _, box in words]))


def named_bullets(lines: list[Line]) -> list[Line]:
    """Lines whose first glyph is a symbol font's bullet mapped to no character (U+FFFD), no wider than a letter
    or two, before words on its line or on the line right beside it, with a "•" in its place (not the font's
    glyph name or raw code, which other tools print)."""
    for line in lines:
        first = line.spans[0] if line.spans else None
        mark, _, words = line.text.partition(" ")
        if first is None or not 0 < len(mark) <= 2 or set(mark) != {"\ufffd"} or first.text.strip() != mark \
                or first.bbox[2] - first.bbox[0] > 1.5 * line.size:
            continue
        if sum(c.isalpha() for c in words) >= 2 or any(_words_beside(line, other) for other in lines):
            line.text = _BULLET + line.text[len(mark):]
    return lines


def _words_beside(mark: Line, other: Line) -> bool:
    """Whether the other line holds words and starts within two letters right of the mark, on its row."""
    middle, gap = (mark.bbox[1] + mark.bbox[3]) / 2, other.bbox[0] - mark.bbox[2]
    return (other.bbox[1] <= middle <= other.bbox[3] and 0 <= gap <= 2 * max(mark.size, other.size)
            and sum(c.isalpha() for c in other.text) >= 2)


def page_fingerprint(page: pymupdf.Page, graphics: PageGraphics | None = None) -> str:
    """sha256 of what the page shows: size, words and their places, drawings, image pixels.

    Independent of the file's bytes: the same page re-saved, re-compressed or copied
    into another file gets the same fingerprint.
    """

    graphics = graphics or page_graphics(page)

    def r(value: float) -> float:
        return round(float(value), 1) + 0.0  # + 0.0 turns -0.0 into 0.0

    content = {
        "size": [r(page.rect.width), r(page.rect.height), page.rotation],
        "words": [[w[4], r(w[0]), r(w[1]), r(w[2]), r(w[3])] for w in page.get_text("words")],
        "images": sorted(
            [info["digest"].hex(), *map(r, info["bbox"])] for info in graphics.images
        ),
        "drawings": [
            [d.get("type"), *map(r, d["rect"]), str(d.get("fill")), str(d.get("color"))]
            for d in graphics.drawings
        ],
    }
    return hashlib.sha256(json.dumps(content, separators=(",", ":")).encode()).hexdigest()
