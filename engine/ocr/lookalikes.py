"""A dash the recognizer reads as a Chinese character: PP-OCR's dictionaries hold Chinese beside Latin, and a dash
standing alone (a statistical table's missing value, "–") has the shape of the ideograph for one, "一"."""

import re

EN_DASH = "\u2013"
HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN = re.compile(f"[{HAN_RANGES}]")
LONE_ONE = re.compile(f"(?<![{HAN_RANGES}])\u4e00(?![{HAN_RANGES}])")
MAX_HAN_SHARE = 0.2  # of a page's letters, not counting lone ones: a page with more Han characters reads Chinese


def dashes_read_as_one(texts: list[str]) -> list[str]:
    """The texts of a page's lines with each "一" that stands apart from other Han characters read as an en dash,
    unless the page's text is Chinese."""
    letters = sum(character.isalpha() for text in texts for character in text)
    han = sum(len(HAN.findall(LONE_ONE.sub("", text))) for text in texts)
    if han >= MAX_HAN_SHARE * letters:
        return texts
    return [LONE_ONE.sub(EN_DASH, text) for text in texts]
