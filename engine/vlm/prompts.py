"""What is asked of the model for each answer format, and how its answer is read.

The prompts are the ones the models were trained with, as their authors publish them:
olmOCR's v4 YAML prompt (allenai/olmocr, olmocr/prompts/prompts.py; with the page's text layer,
its anchored prompt), dots.ocr's `prompt_layout_all_en` (rednote-hilab/dots.ocr,
dots_ocr/utils/prompts.py), whose image comes before its text with the image tokens vLLM expects, and
DeepSeek-OCR's grounded document prompt (deepseek-ai/DeepSeek-OCR, its README), after the image.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.types import Line
from engine.vlm.answer import Reading
from engine.vlm.grounded import read_grounded_markdown
from engine.vlm.layout_json import read_layout_json
from engine.vlm.markdown import read_markdown

MARKDOWN_PROMPT = (
    "Attached is one page of a document that you must process. "
    "Just return the plain text representation of this document as if you were reading it naturally. "
    "Convert equations to LateX and tables to HTML.\n"
    "If there are any figures or charts, label them with the following markdown syntax "
    "![Alt text describing the contents of the figure](page_startx_starty_width_height.png)\n"
    "Return your output as markdown, with a front matter section on top specifying values for the "
    "primary_language, is_rotation_valid, rotation_correction, is_table, and is_diagram parameters."
)
ANCHORED_PROMPT = (
    "Below is the image of one page of a document, as well as some raw textual content that was previously "
    "extracted for it. Just return the plain text representation of this document as if you were reading it "
    "naturally.\nDo not hallucinate.\nRAW_TEXT_START\n{anchor}\nRAW_TEXT_END"
)
LAYOUT_PROMPT = """Please output the layout information from the PDF image, including each layout element's bbox, \
its category, and the corresponding text content within the bbox.

1. Bbox format: [x1, y1, x2, y2]

2. Layout Categories: The possible categories are ['Caption', 'Footnote', 'Formula', 'List-item', 'Page-footer', \
'Page-header', 'Picture', 'Section-header', 'Table', 'Text', 'Title'].

3. Text Extraction & Formatting Rules:
    - Picture: For the 'Picture' category, the text field should be omitted.
    - Formula: Format its text as LaTeX.
    - Table: Format its text as HTML.
    - All Others (Text, Title, etc.): Format their text as Markdown.

4. Constraints:
    - The output text must be the original text from the image, with no translation.
    - All layout elements must be sorted according to human reading order.

5. Final Output: The entire output must be a single JSON object.
"""
GROUNDED_PROMPT = "<|grounding|>Convert the document to markdown."  # DeepSeek-OCR's document prompt
IMAGE_TOKENS = "<|img|><|imgpad|><|endofimg|>"  # dots.ocr's client sends them, so that vLLM adds no newline
ANCHOR_CHARS = 4000  # olmOCR's budget for a page's anchor text


@dataclass(frozen=True)
class AnswerFormat:
    name: str
    content: Callable[[str, str | None], list[dict[str, Any]]]  # (image data URL, anchor text) -> message parts
    read: Callable[[str, tuple[int, int]], Reading]  # (answer, image size) -> blocks
    anchors: bool  # whether its prompt can carry the page's text layer


def _markdown_content(image_url: str, anchor: str | None) -> list[dict[str, Any]]:
    prompt = ANCHORED_PROMPT.format(anchor=anchor) if anchor else MARKDOWN_PROMPT
    return [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": image_url}}]


def _layout_content(image_url: str, anchor: str | None) -> list[dict[str, Any]]:
    return [{"type": "image_url", "image_url": {"url": image_url}},
            {"type": "text", "text": IMAGE_TOKENS + LAYOUT_PROMPT}]


def _grounded_content(image_url: str, anchor: str | None) -> list[dict[str, Any]]:
    return [{"type": "image_url", "image_url": {"url": image_url}}, {"type": "text", "text": GROUNDED_PROMPT}]


FORMATS = {
    "markdown": AnswerFormat("markdown", _markdown_content, read_markdown, anchors=True),
    "layout-json": AnswerFormat("layout-json", _layout_content, read_layout_json, anchors=False),
    "deepseek-ocr": AnswerFormat("deepseek-ocr", _grounded_content, read_grounded_markdown, anchors=False),
}


def anchor_text(lines: list[Line], width: float, height: float) -> str:
    """A page's text layer as olmOCR's anchor text: its size, then each line at [x x y], y from the bottom."""
    parts = [f"Page dimensions: {width:.1f}x{height:.1f}"]
    size = len(parts[0])
    for line in sorted(lines, key=lambda line: (line.bbox[1], line.bbox[0])):
        text = " ".join(line.text.split())
        entry = f"[{line.bbox[0]:.0f}x{height - line.bbox[3]:.0f}]{text}"
        if not text or size + len(entry) + 1 > ANCHOR_CHARS:
            continue
        parts.append(entry)
        size += len(entry) + 1
    return "\n".join(parts)
