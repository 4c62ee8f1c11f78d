"""Page Markdown as olmOCR, Nanonets-OCR or DeepSeek-OCR write it, read into draft blocks.

Headings become titles, paragraphs text, list items list items, HTML or pipe tables tables,
$$ … $$ and \\[ … \\] formulas, images figures (olmOCR names a figure's file after its box in the
image: page_<x>_<y>_<width>_<height>.png). An olmOCR YAML front matter may say that the image
must be turned (`is_rotation_valid: false`, `rotation_correction`); DeepSeek-OCR's grounding tags
are removed.
"""

import json
import re

import yaml

from engine.types import BlockType
from engine.vlm.answer import Draft, Reading, UnreadableAnswer, bare_latex, plain
from engine.vlm.tables import html_table, is_pipe_separator, pipe_table

ROTATIONS = (0, 90, 180, 270)

_GROUNDING = re.compile(r"<\|ref\|>.*?<\|/ref\|>|<\|det\|>.*?<\|/det\|>|<\|/?grounding\|>", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:([-*+])|([•◦▪‣●○■□–]|\(?\d{1,3}[.)]|\(?[a-z]\)))\s+(.*)$")
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)]*)\)\s*$")
_BOX_FILE = re.compile(r"page_(\d+(?:\.\d+)?)_(\d+(?:\.\d+)?)_(\d+(?:\.\d+)?)_(\d+(?:\.\d+)?)\.\w+")
_RULE = re.compile(r"^\s*(?:\*\s*){3,}$|^\s*(?:-\s*){3,}$|^\s*(?:_\s*){3,}$")
_UNDERLINE = re.compile(r"^(?:=+|-+)$")  # under a paragraph: a setext heading
_FOOTNOTE = re.compile(r"^\[\^([^\]]+)\]:\s*(.*)$")
_TAGGED = re.compile(r"^<(page_number|img|watermark)>(.*?)</\1>\s*$", re.DOTALL)
_ENVIRONMENT = re.compile(r"^\\begin\{(equation|align|gather|multline|eqnarray|displaymath)(\*?)\}")
_TAG_TYPES: dict[str, BlockType] = {"page_number": "page_number", "img": "figure", "watermark": "text"}


def read_markdown(answer: str, image_size: tuple[int, int]) -> Reading:
    """The answer's blocks in order; `image_size` (width, height) bounds the boxes of olmOCR's figures."""
    text = _GROUNDING.sub("", answer).strip()
    meta, body = _front_matter(text)
    reading = Reading(turn=_turn(meta))
    reading.drafts = _blocks(body, image_size)
    return reading


def _front_matter(text: str) -> tuple[dict, str]:
    """The front matter's fields and the Markdown after it; an answer as JSON (olmOCR's first models) too."""
    if text.startswith("{"):
        try:
            found = json.loads(text)
        except json.JSONDecodeError:
            found = None
        if isinstance(found, dict) and "natural_text" in found:
            return found, found.get("natural_text") or ""
    if not text.startswith("---"):
        return {}, text
    head, separator, body = text[3:].partition("\n---")
    if not separator:
        raise UnreadableAnswer("front matter opened with --- but never closed")
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError as error:
        raise UnreadableAnswer(f"front matter is not YAML: {' '.join(str(error).split())[:200]}") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise UnreadableAnswer(f"front matter is not a mapping of fields but {type(meta).__name__}")
    return meta, body.removeprefix("-").lstrip("\n")


def _turn(meta: dict) -> int:
    """The clockwise turn the front matter asks for: olmOCR's pipeline turns the image by `rotation_correction`
    degrees with PIL's ROTATE_<n> (counterclockwise) before asking again."""
    valid = meta.get("is_rotation_valid", True)
    rotation = meta.get("rotation_correction", 0) or 0
    if not isinstance(valid, bool) or not isinstance(rotation, int) or rotation not in ROTATIONS:
        raise UnreadableAnswer(f"front matter: is_rotation_valid {valid!r}, rotation_correction {rotation!r} "
                               f"(expected true/false and one of {', '.join(map(str, ROTATIONS))})")
    return 0 if valid else (360 - rotation) % 360


def _blocks(body: str, image_size: tuple[int, int]) -> list[Draft]:
    lines = body.splitlines()
    drafts: list[Draft] = []
    paragraph: list[str] = []
    item: Draft | None = None

    def flush() -> None:
        nonlocal item
        if paragraph:
            text = plain(" ".join(paragraph))
            if text:
                drafts.append(Draft(type="text", text=text))
            paragraph.clear()
        if item is not None:
            item.text = plain(item.text)
            drafts.append(item)
            item = None

    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        index += 1
        if not stripped:
            flush()
            continue
        found = _block_at(stripped, lines, index, image_size)
        if found is not None:
            flush()
            draft, index = found
            if draft is not None:
                drafts.append(draft)
            continue
        if paragraph and _UNDERLINE.match(stripped):
            drafts.append(Draft(type="title", text=plain(" ".join(paragraph))))
            paragraph.clear()
        elif match := _HEADING.match(stripped):
            flush()
            drafts.append(Draft(type="title", text=plain(match.group(2))))
        elif match := _LIST_ITEM.match(line):
            flush()
            marker = match.group(2)  # a printed bullet or number is the item's text; Markdown's - * + is not
            item = Draft(type="list_item", text=f"{marker} {match.group(3)}" if marker else match.group(3))
        elif match := _FOOTNOTE.match(stripped):
            flush()
            item = Draft(type="footnote", text=f"{match.group(1)} {match.group(2)}")
        elif _RULE.match(stripped):
            flush()
        elif item is not None:
            item.text += " " + stripped
        else:
            paragraph.append(stripped)
    flush()
    return drafts


def _block_at(stripped: str, lines: list[str], index: int,
              image_size: tuple[int, int]) -> tuple[Draft | None, int] | None:
    """A block that starts on this line and may run over the next ones (a formula, a table, a fenced piece, an
    image, a tagged element), with the index of the line after it; None when the line starts none of them."""
    if stripped.startswith("$$") or stripped.startswith("\\["):
        closing = "$$" if stripped.startswith("$$") else "\\]"
        body, index = _until(stripped[2:], closing, lines, index)
        latex = bare_latex(body)
        return (Draft(type="formula", text=latex, latex=latex) if latex else None), index
    if match := _ENVIRONMENT.match(stripped):
        closing = f"\\end{{{match.group(1)}{match.group(2)}}}"
        body, index = _until(stripped, closing, lines, index, keep=True)
        return Draft(type="formula", text=body.strip(), latex=body.strip()), index
    if stripped.lower().startswith("<table"):
        body, index = _until(stripped, "</table>", lines, index, keep=True)
        table = html_table(body)
        if table is None:
            return None, index
        return Draft(type="table", text=_cell_text(table), table=table), index
    if stripped.startswith("|") and index < len(lines) and is_pipe_separator(lines[index]):
        rows = [stripped]
        while index < len(lines) and lines[index].strip().startswith("|"):
            rows.append(lines[index].strip())
            index += 1
        table = pipe_table(rows)
        return (Draft(type="table", text=_cell_text(table), table=table) if table else None), index
    if stripped.startswith("```"):
        body, index = _until("", "```", lines, index)
        return (Draft(type="text", text=body.strip()) if body.strip() else None), index
    if match := _IMAGE.match(stripped):
        return Draft(type="figure", text=plain(match.group(1)), box=_figure_box(match.group(2), image_size)), index
    if match := _TAGGED.match(stripped):
        kind = _TAG_TYPES[match.group(1)]
        return Draft(type=kind, text=plain(match.group(2))), index
    return None


def _until(first: str, closing: str, lines: list[str], index: int, keep: bool = False) -> tuple[str, int]:
    """The text from `first` on to the closing mark (kept or not), and the index of the line after it; an
    unclosed block runs to the end of the answer."""
    collected = [first]
    while True:
        text = "\n".join(collected)
        position = text.find(closing)
        if position >= 0:
            return text[:position + len(closing) if keep else position], index
        if index >= len(lines):
            return text, index
        collected.append(lines[index].strip())
        index += 1


def _cell_text(table) -> str:
    return " ".join(cell.text for cell in table.cells if cell.text)


def _figure_box(source: str, image_size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """The box olmOCR names a figure's file after (page_<x>_<y>_<width>_<height>.png), in the image's pixels."""
    match = _BOX_FILE.search(source)
    if match is None:
        return None
    x, y, width, height = (float(value) for value in match.groups())
    if width <= 0 or height <= 0:
        return None
    image_width, image_height = image_size
    box = (max(0.0, x), max(0.0, y), min(float(image_width), x + width), min(float(image_height), y + height))
    return box if box[2] > box[0] and box[3] > box[1] else None
