"""Layout JSON as dots.ocr writes it: a list of {bbox, category, text} in reading order.

Boxes are in pixels of the image as the model's processor resized it (Qwen2-VL's smart_resize: each
side a multiple of 28, the area within [min_pixels, max_pixels]); tables come as HTML, formulas as
LaTeX, other text as Markdown, pictures without text.
"""

import json
import math
import re

from engine.types import BlockType
from engine.vlm.answer import Draft, Reading, UnreadableAnswer, is_box
from engine.vlm.drafts import typed_draft

CATEGORIES: dict[str, BlockType] = {
    "Caption": "caption", "Footnote": "footnote", "Formula": "formula", "List-item": "list_item",
    "Page-footer": "footer", "Page-header": "header", "Picture": "figure", "Section-header": "title",
    "Table": "table", "Text": "text", "Title": "title",
}
FACTOR, MIN_PIXELS, MAX_PIXELS = 28, 3136, 11289600  # dots.ocr's image processor
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def model_size(width: int, height: int) -> tuple[int, int]:
    """(width, height) of the image as the model saw it: Qwen2-VL's smart_resize."""
    if min(width, height) < 1 or max(width, height) / min(width, height) > 200:
        raise ValueError(f"an image of {width}x{height} pixels cannot be sent")
    h_bar, w_bar = max(FACTOR, round(height / FACTOR) * FACTOR), max(FACTOR, round(width / FACTOR) * FACTOR)
    if h_bar * w_bar > MAX_PIXELS:
        beta = math.sqrt(height * width / MAX_PIXELS)
        h_bar = max(FACTOR, math.floor(height / beta / FACTOR) * FACTOR)
        w_bar = max(FACTOR, math.floor(width / beta / FACTOR) * FACTOR)
    elif h_bar * w_bar < MIN_PIXELS:
        beta = math.sqrt(MIN_PIXELS / (height * width))
        h_bar, w_bar = math.ceil(height * beta / FACTOR) * FACTOR, math.ceil(width * beta / FACTOR) * FACTOR
    return w_bar, h_bar


def read_layout_json(answer: str, image_size: tuple[int, int]) -> Reading:
    """The answer's blocks in order, their boxes in pixels of the image that was sent (`image_size`)."""
    text = answer.strip()
    if match := _FENCE.match(text):
        text = match.group(1)
    try:
        items = json.loads(text)
    except json.JSONDecodeError as error:
        raise UnreadableAnswer(f"layout JSON does not parse: {error.msg} at character {error.pos}") from None
    if isinstance(items, dict):  # one object holding the list
        lists = [value for value in items.values() if isinstance(value, list)]
        items = lists[0] if len(lists) == 1 else items
    if not isinstance(items, list):
        raise UnreadableAnswer(f"layout JSON is a {type(items).__name__}, not a list of blocks")
    width, height = image_size
    seen_width, seen_height = model_size(width, height)
    scale_x, scale_y = width / seen_width, height / seen_height
    return Reading(drafts=[_draft(number, item, scale_x, scale_y) for number, item in enumerate(items, 1)])


def _draft(number: int, item: object, scale_x: float, scale_y: float) -> Draft:
    if not isinstance(item, dict):
        raise UnreadableAnswer(f"layout JSON block {number} is a {type(item).__name__}, not an object")
    bbox, category, text = item.get("bbox"), item.get("category"), item.get("text") or ""
    if not is_box(bbox):
        raise UnreadableAnswer(f"layout JSON block {number}: bbox {bbox!r} is not [x1, y1, x2, y2]")
    if not isinstance(category, str) or not isinstance(text, str):
        raise UnreadableAnswer(f"layout JSON block {number}: category {category!r} or its text is not a string")
    x0, x1 = sorted((bbox[0] * scale_x, bbox[2] * scale_x))
    y0, y1 = sorted((bbox[1] * scale_y, bbox[3] * scale_y))
    return typed_draft(CATEGORIES.get(category.strip(), "text"), text, (x0, y0, x1, y1))
