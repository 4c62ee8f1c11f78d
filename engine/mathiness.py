"""How much a piece of text looks like mathematics: math fonts, symbols, operators, lone variables."""

import re

from engine.types import Span

MATH_FONT = re.compile(
    r"^(CM(MI|SY|EX|BSY|MIB)|LMMath|.*Math|StandardSym|Symbol|rsfs|eufm|eusm|MSAM|MSBM|stmary|wasy|esint|txsy|txex|"
    r"pxsy|pxex|MT(Extra|Symbol)|Euclid)",
    re.IGNORECASE,
)
ROMAN_MATH_FONT = re.compile(r"^(CMR|CMBX|CMTI)\d", re.IGNORECASE)  # math roman when the body is not CM itself
UNICODE_MATH_FONT = re.compile(r"math", re.IGNORECASE)  # Cambria Math, STIX Two Math, Latin Modern Math
OPERATORS = set("=+<>^_|/∗·×÷±∓≤≥≠≈≡∼∝→←↔⇒⇔∀∃∈∉⊂⊆∪∩∧∨¬∞∂∇√∑∏∫∮")
FUNCTION_NAMES = {"sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "lim", "max", "min", "sup", "inf",
                  "det", "gcd", "mod", "arg", "deg", "dim", "ker", "sinh", "cosh", "tanh", "arcsin", "arccos",
                  "arctan", "var", "cov", "bmod"}
WORD = re.compile(r"[A-Za-z]{3,}")
MATH_SHARE = 0.35  # text with at least this share of math characters can be a display formula
MAX_FORMULA_WORDS = 2  # words of three letters or more (not sin, log...) a display formula may contain


def math_letters_repaired(text: str, font: str) -> str:
    """The text of a span in a Unicode math font with its mathematical letters (U+1D400-U+1D7FF) put back in their
    plane: some producers' maps to Unicode drop a letter's plane (Word's PDFs give U+D44F, a Hangul syllable, for
    U+1D44F 𝑏) or add one (U+2D436 for U+1D436), and a math font holds neither Hangul nor plane-2 characters."""
    if not UNICODE_MATH_FONT.search(font) or not any(0xD400 <= ord(c) <= 0xD7FF or 0x2D400 <= ord(c) <= 0x2D7FF
                                                       for c in text):
        return text
    return "".join(chr(ord(c) + 0x10000) if 0xD400 <= ord(c) <= 0xD7FF else chr(ord(c) - 0x10000)
                   if 0x2D400 <= ord(c) <= 0x2D7FF else c for c in text)


def is_math_char(char: str) -> bool:
    """Operators, arrows, Greek and math alphanumerics: characters prose rarely uses."""
    code = ord(char)
    return (
        char in OPERATORS or 0x2200 <= code <= 0x22FF or 0x2A00 <= code <= 0x2AFF or 0x27C0 <= code <= 0x27EF
        or 0x2190 <= code <= 0x21FF or 0x1D400 <= code <= 0x1D7FF or 0x0391 <= code <= 0x03C9
    )


def prose_words(text: str) -> int:
    """Words of three or more letters that are not function names like sin or log."""
    return sum(1 for word in WORD.findall(text) if word.lower() not in FUNCTION_NAMES)


def looks_like_math(text: str, math_share: float) -> bool:
    """Mostly math characters, an operator or symbol somewhere, hardly any words: display math."""
    return (
        math_share >= MATH_SHARE
        and prose_words(text) <= MAX_FORMULA_WORDS
        and any(is_math_char(char) for char in text)
    )


def text_math_share(text: str) -> float:
    """Share of non-space characters that are math symbols or lone letters (variables): for OCR'd text."""
    tokens = re.findall(r"[A-Za-z]+|\S", text)
    total = sum(len(token) for token in tokens)
    if not total:
        return 0.0
    mathy = 0
    for token in tokens:
        if len(token) == 1:
            # a lone Latin letter is a variable; Hangul and CJK characters are words in their own scripts
            mathy += is_math_char(token) or (token.isascii() and token.isalpha()) or token in "()[]{}0123456789"
        elif token.lower() in FUNCTION_NAMES:
            mathy += len(token)
    return mathy / total


def span_math_share(spans: list[Span], body_font: str, line_size: float) -> float:
    """Share of characters set in math fonts, as math symbols, as lone italic letters, or as sub/superscripts."""
    mathy = total = 0
    for span in spans:
        in_math_font = span.font != body_font and (
            MATH_FONT.match(span.font) is not None or ROMAN_MATH_FONT.match(span.font) is not None
        )
        stripped = span.text.strip()
        lone_italic = len(stripped) <= 2 and ("Ital" in span.font or "-It" in span.font or "Oblique" in span.font)
        script = span.size < 0.8 * line_size
        for char in span.text:
            if char.isspace():
                continue
            total += 1
            mathy += in_math_font or lone_italic or script or is_math_char(char)
    return mathy / total if total else 0.0
