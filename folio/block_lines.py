"""A block's lines in the full export: those stored, or for a block stored without any (a VLM's) its text as lines
over its box, each as tall as its share and its words as long as their characters."""

from typing import Any

from engine.words import estimated_words


def block_lines(block: dict[str, Any]) -> list[dict[str, Any]]:
    """The block's lines as `blocks.lines` holds them (text, bbox, confidence, words)."""
    if block.get("lines"):
        return block["lines"]
    if block.get("table"):
        texts = [cell["text"] for cell in block["table"]["cells"] if cell["text"].strip()]
    else:
        texts = [text for text in block["text"].splitlines() if text.strip()]
    x0, y0, x1, y1 = block["bbox"]
    step = (y1 - y0) / max(1, len(texts))
    lines = []
    for index, text in enumerate(texts):
        box = (x0, y0 + index * step, x1, y0 + (index + 1) * step)
        words = [[word.text, *word.bbox] for word in estimated_words(text, box)]
        lines.append({"text": text, "bbox": list(box), "confidence": None, "words": words})
    return lines
