"""What a model's answer is read into: draft blocks in reading order, before they are placed on the page."""

import html
import re
from dataclasses import dataclass, field

from engine.types import BBox, BlockType, Table


def is_box(value: object) -> bool:
    """Whether a model's answer gave a box as it should: a list of four numbers."""
    return isinstance(value, list) and len(value) == 4 and all(isinstance(v, int | float) for v in value)


class UnreadableAnswer(ValueError):
    """The model's answer is not in the format asked for; the page is failed with this reason."""


@dataclass
class Draft:
    """A block as the model wrote it; `box` is in pixels of the image the model saw, when the model gave one."""

    type: BlockType
    text: str
    box: BBox | None = None
    table: Table | None = None
    latex: str | None = None  # formula blocks


@dataclass
class Reading:
    """A page's answer read: its blocks in the model's reading order, and whether the image must be turned."""

    drafts: list[Draft] = field(default_factory=list)
    turn: int = 0  # clockwise degrees the model says the image must be turned to read upright


_INLINE_MATH = re.compile(r"\\\((.+?)\\\)", re.DOTALL)
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_TAG = re.compile(r"</?(?:b|i|u|em|strong|sup|sub|span|small|big|del|code)\b[^>]*>", re.IGNORECASE)


def plain(text: str) -> str:
    r"""Markdown inline text as stored: emphasis marks and simple HTML tags dropped, entities decoded,
    \( \) math written $…$ (as the export format shows inline math), whitespace collapsed."""
    text = _INLINE_MATH.sub(lambda match: f"${match.group(1).strip()}$", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _TAG.sub("", _BREAK.sub(" ", text))
    return " ".join(html.unescape(text).split())


_DELIMITERS = ((r"$$", r"$$"), (r"\[", r"\]"), (r"\(", r"\)"), ("$", "$"))


def bare_latex(text: str) -> str:
    r"""A formula's LaTeX without the $$ … $$, \[ … \] or $ … $ around it."""
    latex = text.strip()
    for opening, closing in _DELIMITERS:
        if latex.startswith(opening) and latex.endswith(closing) and len(latex) >= len(opening) + len(closing):
            return latex[len(opening):len(latex) - len(closing)].strip()
    return latex


_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE)


def is_page_number(text: str) -> bool:
    """Whether a header's or footer's text is only a page number ("12", "xiv", "Page 3 of 9")."""
    return bool(_PAGE_NUMBER.match(text.strip().strip("-–— ")))
