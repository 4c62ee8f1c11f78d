"""Whether a page's text layer can be taken as its text: measures of the layer, and the verdict they give.

A text layer can be glyph soup: a Type3 font (TeX's bitmap fonts, some scanners' and printers' output) or
a CID font with no ToUnicode map gives MuPDF glyph codes, not characters, so a page that shows words
yields "(++()+*", U+FFFD or letters in a private order. The cheap measures below, taken on every page,
either settle it (nothing readable: no layer worth the name) or make the page *suspect*; a suspect page's
layer is checked against OCR of some of its lines (engine/stages/ocr.py), and the layer is used only if
OCR reads the same text there. A page of real symbols (a formula sheet, a table of codes) passes that check.
"""

import re
import unicodedata
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum

from engine.types import Line

MIN_CHARS = 10  # fewer visible characters than this: no text layer worth the name
MIN_READABLE = 0.8  # share of characters that are real text, not U+FFFD, private-use or unassigned codes
# a page is suspect when one of these holds; prose has 0.8-0.9 letters and digits, number tables 0.6-0.8
MAX_UNMAPPED = 0.3  # share of characters set in fonts without a way to map glyphs to characters
MIN_ALPHANUMERIC = 0.5  # share of characters that are letters or digits (a run of one character counted once)
MIN_WORDLIKE = 0.7  # share of Latin words with a vowel and the case of a word (lower, Capitalized, UPPER)
MIN_WORDS = 20  # fewer Latin words than this are too few to judge by their shape
MIN_AGREEMENT = 0.5  # how alike OCR's reading of sampled lines and the layer's text must be (difflib ratio)
MIN_GARBLED_LETTERS = 6  # a line with fewer letters is too short to call mojibake
MAX_FOREIGN_SHARE = 0.4  # of a line's Latin letters, accented ones: Vietnamese has about a quarter, mojibake most
MOJIBAKE_SHARE = 0.5  # accented letters beyond this share are mojibake even in words shaped like words

_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{3,}")
_VOWELS = "aeiouyAEIOUY"


class Verdict(StrEnum):
    TRUSTED = "trusted"
    SUSPECT = "suspect"  # to be checked against OCR of some of its lines
    UNTRUSTED = "untrusted"


@dataclass(frozen=True)
class LayerTrust:
    """The measures of one page's text layer and the verdict they give."""

    characters: int  # visible (non-space) characters
    readable: float  # share of them that are assigned, printable, not U+FFFD or private use
    alphanumeric: float  # share that are letters or digits, a run of one character (dot leaders) counted once
    unmapped: float  # share set in fonts with no character map (Type3 or CID fonts without ToUnicode)
    wordlike: float | None  # share of Latin words (3+ letters) shaped like words; None with fewer than MIN_WORDS
    agreement: float | None = None  # OCR's reading of sampled lines against the layer's text; None: not checked

    @property
    def reasons(self) -> list[str]:
        """Why the layer cannot be trusted without a check (empty for a layer that needs none)."""
        if self.characters < MIN_CHARS:
            return ["no text layer"]
        if self.readable < MIN_READABLE:
            return [f"{1 - self.readable:.0%} of its characters are glyph codes"]
        found = []
        if self.unmapped > MAX_UNMAPPED:
            found.append(f"{self.unmapped:.0%} of its characters in fonts without a character map")
        if self.alphanumeric < MIN_ALPHANUMERIC:
            found.append(f"only {self.alphanumeric:.0%} letters or digits")
        if self.wordlike is not None and self.wordlike < MIN_WORDLIKE:
            found.append(f"only {self.wordlike:.0%} of its words shaped like words")
        return found

    @property
    def verdict(self) -> Verdict:
        if self.characters < MIN_CHARS or self.readable < MIN_READABLE:
            return Verdict.UNTRUSTED
        if not self.reasons:
            return Verdict.TRUSTED
        if self.agreement is None:
            return Verdict.SUSPECT
        return Verdict.TRUSTED if self.agreement >= MIN_AGREEMENT else Verdict.UNTRUSTED

    def checked(self, agreement: float) -> "LayerTrust":
        return replace(self, agreement=round(agreement, 3))

    def describe(self) -> str:
        reasons = "; ".join(self.reasons) or "readable text"
        if self.agreement is not None:
            return f"{self.verdict}: OCR of sampled lines agrees {self.agreement:.0%} (checked: {reasons})"
        return f"{self.verdict}: {reasons}"

    def record(self) -> dict[str, object]:
        """The decision and its measures, as stored with the page."""
        return {"verdict": str(self.verdict), "reason": self.describe(), "characters": self.characters,
                "readable": round(self.readable, 3), "alphanumeric": round(self.alphanumeric, 3),
                "unmapped": round(self.unmapped, 3),
                "wordlike": None if self.wordlike is None else round(self.wordlike, 3), "agreement": self.agreement}


def measure_layer(lines: list[Line]) -> LayerTrust:
    """The cheap measures of a page's text layer, from its lines (and their spans' fonts)."""
    chars = [c for line in lines for c in line.text if not c.isspace()]
    if not chars:
        return LayerTrust(0, 0.0, 0.0, 0.0, None)
    readable = sum(1 for c in chars if c != "\ufffd" and unicodedata.category(c) not in ("Co", "Cn", "Cc", "Cs"))
    spans = [span for line in lines for span in line.spans]
    span_chars = sum(len(span.text.strip()) for span in spans)
    unmapped = sum(len(span.text.strip()) for span in spans if span.unmapped)
    words = [word for line in lines for word in _LATIN_WORD.findall(line.text)]
    return LayerTrust(
        characters=len(chars),
        readable=readable / len(chars),
        alphanumeric=_alphanumeric_share(chars),
        unmapped=unmapped / span_chars if span_chars else 0.0,
        wordlike=sum(map(_wordlike, words)) / len(words) if len(words) >= MIN_WORDS else None,
    )


def garbled(text: str) -> bool:
    """A line of mojibake in a layer that is otherwise readable (a font whose map to Unicode is wrong): most of its
    Latin letters are accented (or many are, in words not shaped like words)."""
    if text.isascii():  # no accented letter: most lines, answered without naming each character
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < MIN_GARBLED_LETTERS:
        return False
    latin = [c for c in letters if unicodedata.name(c, "").startswith("LATIN")]
    if len(latin) < 0.8 * len(letters):
        return False
    foreign = sum(1 for c in latin if not c.isascii())
    words = _LATIN_WORD.findall(text)
    shaped = sum(map(_wordlike, words)) / len(words) if words else 0.0
    return foreign >= MOJIBAKE_SHARE * len(latin) or (foreign >= MAX_FOREIGN_SHARE * len(latin) and shaped < 0.5)


def trusted_layer(lines: list[Line]) -> bool:
    """Whether a page's text layer can be used without a check against OCR."""
    return measure_layer(lines).verdict is Verdict.TRUSTED


def agreement(layer_texts: list[str], ocr_texts: list[str]) -> float:
    """How alike OCR's readings are to the layer's texts of the same lines: difflib's ratio over the lines,
    weighted by length, on text without spaces and case."""
    matched = total = 0.0
    for layer, read in zip(layer_texts, ocr_texts):
        layer, read = _plain(layer), _plain(read)
        weight = max(len(layer), len(read))
        matched += weight * SequenceMatcher(None, layer, read, autojunk=False).ratio()
        total += weight
    return matched / total if total else 0.0


def _alphanumeric_share(chars: list[str]) -> float:
    runs = [c for index, c in enumerate(chars) if index == 0 or c != chars[index - 1]]
    return sum(1 for c in runs if c.isalnum()) / len(runs)


def _wordlike(word: str) -> bool:
    shaped = word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())
    return shaped and any(unicodedata.normalize("NFD", c)[0] in _VOWELS for c in word)


def _plain(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())
