"""Grounded Markdown as DeepSeek-OCR writes it: each element opened by `<|ref|>TYPE<|/ref|><|det|>[[x1, y1, x2,
y2], ...]<|/det|>` and followed by its content up to the next element.

Coordinates are normalised to 0-999 of the image's width and height (DeepSeek-OCR's own drawing code scales them by
`/ 999 * image_width`); an element with several boxes covers their union. Tables come as HTML, equations as LaTeX
between `\\[ \\]` or `$$`, titles as Markdown headings, images without text.
"""

import json
import re

from engine.types import BlockType
from engine.vlm.answer import Draft, Reading, UnreadableAnswer, is_box, plain
from engine.vlm.drafts import typed_draft

TYPES: dict[str, BlockType] = {
    "title": "title", "sub_title": "title", "text": "text", "table": "table", "table_caption": "caption",
    "table_footnote": "footnote", "image": "figure", "figure": "figure", "image_caption": "caption",
    "figure_caption": "caption", "caption": "caption", "equation": "formula", "formula": "formula",
    "header": "header", "page_header": "header", "footer": "footer", "page_footer": "footer",
    "page_number": "page_number", "footnote": "footnote", "list": "list_item", "list_item": "list_item",
}
NORMALISED = 999  # the largest coordinate: the image's right or bottom edge
_ELEMENT = re.compile(r"<\|ref\|>(.*?)<\|/ref\|>\s*<\|det\|>(.*?)<\|/det\|>", re.DOTALL)
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_MARKDOWN_MARK = re.compile(r"^\s*[-*+]\s+")  # Markdown's own: not the item's text (a printed bullet or number is)
_LAYOUT_TAG = re.compile(r"</?(?:center|div|p)\b[^>]*>", re.IGNORECASE)  # a caption set <center>…</center>


def read_grounded_markdown(answer: str, image_size: tuple[int, int]) -> Reading:
    """The answer's elements in order, their boxes in pixels of the image that was sent (`image_size`)."""
    elements = list(_ELEMENT.finditer(answer))
    if not elements:
        raise UnreadableAnswer("no <|ref|>…<|/ref|><|det|>…<|/det|> element in the answer")
    drafts = []
    for number, element in enumerate(elements, 1):
        end = elements[number].start() if number < len(elements) else len(answer)
        box = _box(number, element.group(2), image_size)
        draft = _draft(element.group(1).strip().lower(), answer[element.end():end].strip(), box)
        if draft is not None:
            drafts.append(draft)
    return Reading(drafts=drafts)


def _box(number: int, det: str, image_size: tuple[int, int]) -> tuple[float, float, float, float]:
    """The union of an element's boxes, in pixels."""
    try:
        boxes = json.loads(det)
    except json.JSONDecodeError:
        boxes = None
    if is_box(boxes):
        boxes = [boxes]  # one box written without the outer brackets
    if not (isinstance(boxes, list) and boxes and all(is_box(box) for box in boxes)):
        raise UnreadableAnswer(f"element {number}: {det.strip()!r} is not [[x1, y1, x2, y2], ...]")
    width, height = image_size
    xs = [v * width / NORMALISED for box in boxes for v in (box[0], box[2])]
    ys = [v * height / NORMALISED for box in boxes for v in (box[1], box[3])]
    return (max(0.0, min(xs)), max(0.0, min(ys)), min(float(width), max(xs)), min(float(height), max(ys)))


def _draft(label: str, content: str, box: tuple[float, float, float, float]) -> Draft | None:
    """The element as a draft block; None for an element with nothing in it that is not an image."""
    kind = TYPES.get(label, "text")
    if kind == "figure":
        return Draft(type="figure", text=plain(content), box=box)
    if kind != "table":
        content = _LAYOUT_TAG.sub(" ", content)
    if kind == "text" and _LIST_MARK.match(content) and "\n" not in content:
        kind = "list_item"
    if kind == "list_item":
        content = _MARKDOWN_MARK.sub("", content)
    draft = typed_draft(kind, content, box)
    return draft if draft.text else None
