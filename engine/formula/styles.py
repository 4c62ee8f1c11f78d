"""The model's LaTeX made canonical: layout-only commands dropped, and font styles the page cannot show pruned.

A small image-to-LaTeX model often wraps letters in font styles nobody set (\\mathfrak{x},
\\boldsymbol{\\xi}, \\mathcal{c}) and adds sizes and spaces by hand (\\hspace{-.3cm}, \\tiny). What
is stored should render as the page does, so:

- `tidy` (every formula): spacing and size commands go (they change no symbol), math inside a text
  box is plain math, old-style font switches ({\\bf x}) become the commands they mean, a style on a
  single letter that looks the same without it (\\mathit{a}) goes, and \\mathcal on lowercase
  letters, which standard fonts do not have, goes.
- `prune_styles` (formulas read from a text layer): a bold, sans-serif, fraktur, script, blackboard
  or typewriter style is kept only when a font of that family may be among the formula's fonts, as
  its font names (TeX's CMBX, EUFM, RSFS..., or a family name) or its Unicode math letters show.
"""

import re
from collections.abc import Callable

from engine.mathiness import MATH_FONT, ROMAN_MATH_FONT, UNICODE_MATH_FONT
from engine.types import Line

STYLE_COMMANDS = {  # family -> the commands that set it
    "bold": ("mathbf", "boldsymbol", "bm", "pmb", "textbf", "mathbold"),
    "sans": ("mathsf", "textsf", "mathsfit"),
    "fraktur": ("mathfrak", "frak"),
    "script": ("mathscr",),
    "blackboard": ("mathbb", "Bbb", "mathds"),
    "typewriter": ("mathtt", "texttt"),
}
FAMILY_FONTS = {  # family -> font names that show it
    "bold": re.compile(r"^(CMBX|CMMIB|CMBSY|CMB\d|LMBold|EUB)|bold|black|heavy|semibold|demi", re.IGNORECASE),
    "sans": re.compile(r"^(CMSS|LMSans)|sans|helvet|arial|verdana|calibri", re.IGNORECASE),
    "fraktur": re.compile(r"^EUF|fraktur|frak", re.IGNORECASE),
    "script": re.compile(r"^(RSFS|EUS)|script", re.IGNORECASE),
    "blackboard": re.compile(r"^(MSBM|BBM|BBOLD|DSROM|DSSS)|doublestruck|blackboard", re.IGNORECASE),
    "typewriter": re.compile(r"^(CMTT|LMMono)|mono|courier|typewriter", re.IGNORECASE),
}
GENERATED_NAME = re.compile(r"^([A-Z]{1,2}|Font|T3Font|Type3)?[_-]?\d+$|^T3|^Type3", re.IGNORECASE)  # F1, T3Font_0
LETTER_RANGES = {  # Unicode mathematical alphanumerics by family (U+1D400-U+1D7FF)
    "bold": ((0x1D400, 0x1D433), (0x1D468, 0x1D49B), (0x1D56C, 0x1D59F), (0x1D5D4, 0x1D66F), (0x1D6A8, 0x1D6E1),
             (0x1D71C, 0x1D755), (0x1D756, 0x1D7C9), (0x1D7CE, 0x1D7D7), (0x1D7EC, 0x1D7F5)),
    "sans": ((0x1D5A0, 0x1D66F), (0x1D756, 0x1D7C9), (0x1D7E2, 0x1D7F5)),
    "fraktur": ((0x1D504, 0x1D537), (0x1D56C, 0x1D59F), (0x210C, 0x210C), (0x2111, 0x2111), (0x211C, 0x211C),
                (0x2128, 0x2128), (0x212D, 0x212D)),
    "script": ((0x1D49C, 0x1D503), (0x212C, 0x212C), (0x2130, 0x2131), (0x210B, 0x210B), (0x2110, 0x2110),
               (0x2112, 0x2112), (0x211B, 0x211B), (0x2133, 0x2133), (0x212F, 0x212F), (0x210A, 0x210A),
               (0x2134, 0x2134)),
    "blackboard": ((0x1D538, 0x1D56B), (0x1D7D8, 0x1D7E1), (0x2102, 0x2102), (0x2115, 0x2115), (0x2119, 0x211A),
                   (0x211D, 0x211D), (0x2124, 0x2124)),
    "typewriter": ((0x1D670, 0x1D6A3), (0x1D7F6, 0x1D7FF)),
}
LAYOUT_ONLY = ("tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large", "LARGE", "huge",
               "Huge", "scriptscriptstyle", "thinspace", "negthinspace", "medspace", "thickspace", "nolimits",
               "limits", "strut", "mathstrut", "hfill", "hfil", "relax")
SPACING_WITH_ARGUMENT = ("hspace", "vspace", "hskip", "vskip", "kern", "mkern", "phantom", "hphantom", "vphantom",
                         "rule", "raisebox")
SAME_WITHOUT = ("mathit", "textit", "emph", "mathnormal", "mathinner")  # on one letter: looks the same without
OLD_SWITCHES = {"bf": "mathbf", "rm": "mathrm", "it": "mathit", "sf": "mathsf", "cal": "mathcal", "tt": "mathtt"}
TEXT_BOXES = ("mbox", "text", "hbox", "textrm", "textnormal", "mathrm")


def _group_end(latex: str, start: int) -> int | None:
    """Index after the group opened at `start` ("{"), None when it never closes."""
    depth = 0
    index = start
    while index < len(latex):
        char = latex[index]
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _token_end(latex: str, start: int) -> int:
    """Index after the token at `start`: a command name, an escaped character or one character."""
    if start >= len(latex):
        return start
    if latex[start] == "\\":
        match = re.compile(r"\\([A-Za-z]+|.)").match(latex, start)
        return match.end() if match else start + 1
    return start + 1


def _rewrite(latex: str, names: tuple[str, ...] | set[str],
             replace: Callable[[str, str, str], str | None]) -> str:
    """Every `\\name{argument}` (or `\\name token`) of `names` rewritten by replace(name, argument, before):
    its result replaces the command and its argument; None leaves them as they are. `before` is the text
    before the command, for context."""
    pattern = re.compile(r"\\(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?![A-Za-z])")
    out, position = [], 0
    for match in pattern.finditer(latex):
        if match.start() < position:
            continue
        cursor = match.end()
        while cursor < len(latex) and latex[cursor] == " ":
            cursor += 1
        if cursor < len(latex) and latex[cursor] == "{":
            end = _group_end(latex, cursor)
            if end is None:
                continue
            argument = latex[cursor + 1:end - 1]
        else:
            end = _token_end(latex, cursor)
            argument = latex[cursor:end]
        before = "".join(out) + latex[position:match.start()]
        replacement = replace(match.group(1), argument, before)
        if replacement is None:
            continue
        out.append(latex[position:match.start()])
        out.append(replacement)
        position = end
    out.append(latex[position:])
    return "".join(out)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\\[A-Za-z]+|\\.|[^\s{}]", text)


def _bare(argument: str, before: str) -> str:
    """The argument without its command: in braces when it is a script's argument of more than one token."""
    argument = argument.strip()
    if before.rstrip().endswith(("_", "^")) and len(_tokens(argument)) > 1:
        return "{" + argument + "}"
    if re.search(r"\\[A-Za-z]+$", before) and argument[:1].isalpha():
        return " " + argument  # "\alpha" + "x" must not become "\alphax"
    return argument


def _old_switches(latex: str) -> str:
    """{\\bf x} -> \\mathbf{x} and the like; \\mbox{\\boldmath$x$} -> \\boldsymbol{x}."""
    latex = re.sub(r"\\(mbox|text|hbox)\s*\{\s*\\boldmath\s*\$([^$]*)\$\s*\}", r"\\boldsymbol{\2}", latex)
    for switch, command in OLD_SWITCHES.items():
        latex = re.sub(r"\{\s*\\" + switch + r"(?![A-Za-z])\s*", r"\\" + command + "{", latex)
    return latex


def tidy(latex: str) -> str:
    """Layout-only commands dropped and equivalent spellings made one (see the module's docstring)."""
    latex = _old_switches(latex)
    # math inside a text box is math: \mbox{$x$} -> x
    latex = _rewrite(latex, TEXT_BOXES, lambda name, argument, before: _bare(argument.strip()[1:-1], before)
                     if re.fullmatch(r"\s*\$[^$]*\$\s*", argument) else None)
    # a minus or dash set as text: \text{-}, \mbox{--}
    latex = _rewrite(latex, TEXT_BOXES, lambda name, argument, before: "-"
                     if re.fullmatch(r"\s*-{1,3}\s*", argument) else None)
    latex = re.sub(r"\\(" + "|".join(LAYOUT_ONLY) + r")(?![A-Za-z])\s*", "", latex)
    latex = _rewrite(latex, SPACING_WITH_ARGUMENT, lambda name, argument, before: "")
    latex = _rewrite(latex, SAME_WITHOUT, lambda name, argument, before: _bare(argument, before)
                     if name == "mathinner" or len(_tokens(argument)) == 1 else None)
    # \mathcal has capitals only: on lowercase letters it is a misreading
    latex = _rewrite(latex, ("mathcal",), lambda name, argument, before: _bare(argument, before)
                     if re.fullmatch(r"\s*[a-z]+\s*", argument) else None)
    latex = _nested_same(latex)
    latex = re.sub(r"(?<!\\)([_^])\{\s*\}", "", latex)  # empty scripts
    return re.sub(r"\s{2,}", " ", latex).strip()


def _nested_same(latex: str) -> str:
    """\\mathcal{\\mathcal{C}} -> \\mathcal{C}."""
    styles = {name for names in STYLE_COMMANDS.values() for name in names} | {"mathcal", "mathrm"}
    previous = None
    while previous != latex:
        previous = latex
        latex = _rewrite(latex, styles, lambda name, argument, before: argument.strip()
                         if re.fullmatch(r"\s*\\" + name + r"\s*\{.*\}\s*", argument, re.DOTALL)
                         and _group_end(argument.strip(), len(name) + 1) == len(argument.strip()) else None)
    return latex


def font_families(lines: list[Line]) -> set[str] | None:
    """The style families the lines' fonts may show; None when their fonts cannot tell (no text-layer spans,
    or font names a PDF producer made up: F1, T3Font_2...).

    Bold is ruled out only when a math font whose family is known (TeX's CM and Latin Modern, a Unicode
    math font) sets the formula: a bold math font elsewhere may be named without "bold" (txbmi)."""
    spans = [span for line in lines for span in line.spans if span.text.strip()]
    fonts = [span.font.split("+")[-1] for span in spans]
    if not spans or any(GENERATED_NAME.match(font) for font in fonts):
        return None
    families = {family for family, pattern in FAMILY_FONTS.items() for font in fonts if pattern.search(font)}
    known = any(MATH_FONT.match(font) or ROMAN_MATH_FONT.match(font) or UNICODE_MATH_FONT.search(font)
                for font in fonts)
    if any(span.bold for span in spans) or not known:
        families.add("bold")
    for family, ranges in LETTER_RANGES.items():
        if any(low <= ord(char) <= high for span in spans for char in span.text for low, high in ranges):
            families.add(family)
    return families


def prune_styles(latex: str, families: set[str]) -> str:
    """Font-style commands of families not in `families` dropped (their argument kept); \\mathscr becomes
    \\mathcal when the page has no script font (TeX's calligraphic capitals are what it saw)."""
    for family, commands in STYLE_COMMANDS.items():
        if family in families:
            continue
        if family == "script":
            latex = _rewrite(latex, commands, lambda name, argument, before: "\\mathcal{" + argument.strip() + "}"
                             if re.fullmatch(r"\s*[A-Z]\s*", argument) else _bare(argument, before))
        else:
            latex = _rewrite(latex, commands, lambda name, argument, before: _bare(argument, before))
    return latex


def canonical_latex(latex: str, lines: list[Line] | None = None) -> str:
    """`tidy`, then `prune_styles` by the fonts of the formula's text-layer lines when they can tell."""
    latex = tidy(latex)
    families = font_families(lines or [])
    if families is not None:
        latex = tidy(prune_styles(latex, families))
    return latex
