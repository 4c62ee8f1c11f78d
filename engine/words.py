"""A line's words with their boxes: what ALTO's `String`s and a searchable PDF's text need.

The words are always the line's text split at spaces, so they join back into it. Their boxes come from where the
text layer's characters or the OCR line's ink put them (`words_at`); where those do not give one box a word, each
word gets a share of the line's box as long as its characters (`estimated_words`).
"""

from collections.abc import Callable
from dataclasses import replace

from engine.types import BBox, Line, Word


def estimated_words(text: str, bbox: BBox) -> list[Word]:
    """The words of `text` over `bbox`, each as wide as its share of the characters (spaces counted); a line
    taller than wide (read up or down the page) gives each word the whole box."""
    words = text.split()
    x0, y0, x1, y1 = bbox
    if not words or y1 - y0 > x1 - x0:
        return [Word(word, bbox) for word in words]
    per_char = (x1 - x0) / max(1, len(" ".join(words)))
    out, at = [], x0
    for word in words:
        out.append(Word(word, (at, y0, min(x1, at + len(word) * per_char), y1)))
        at += (len(word) + 1) * per_char
    return out


def words_at(text: str, bbox: BBox, boxes: list[BBox]) -> list[Word]:
    """The words of `text` at `boxes`, one box a word in order; estimated when the count differs."""
    words = text.split()
    if len(boxes) != len(words):
        return estimated_words(text, bbox)
    return [Word(word, box) for word, box in zip(words, boxes)]


def with_words(line: Line) -> Line:
    """The line with its words: where a stage changed its text since they were placed (a bullet named), the boxes
    kept for the new words if there are as many; estimated where no stage placed them."""
    if [word.text for word in line.words] != line.text.split():
        line.words = words_at(line.text, line.bbox, [word.bbox for word in line.words])
    return line


def cut_between(line: Line, apart: Callable[[Word, Word], bool]) -> list[Line]:
    """The line in pieces, cut between each two neighbouring words `apart` says stand apart, each piece with its
    words and the line's height; the line itself where it cuts nowhere."""
    groups = [line.words[:1]]
    for before, word in zip(line.words, line.words[1:]):
        if apart(before, word):
            groups.append([word])
        else:
            groups[-1].append(word)
    if len(groups) == 1:
        return [line]
    return [piece_of(line, group) for group in groups]


def piece_of(line: Line, words: list[Word]) -> Line:
    """A piece of the line: these words of it (left to right), boxed by them, with the line's height."""
    return replace(line, text=" ".join(word.text for word in words), words=words,
                   bbox=(words[0].bbox[0], line.bbox[1], max(word.bbox[2] for word in words), line.bbox[3]))
