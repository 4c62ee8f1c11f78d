"""What a glyph of a PDF's text layer means in LaTeX, by its character and the role of its font.

TeX's math fonts (Computer Modern, Latin Modern, txfonts, pxfonts) and Unicode math fonts set every
symbol of a formula as a glyph. MuPDF reads most of them as Unicode from their glyph names (unicode-math's
conventions: U+03D5 is \\phi, U+03C6 \\varphi). What it cannot read it gives as the glyph's code: the
extension font's big delimiters and operators (CMEX's encoding, read here by code), and letters whose
style only the font shows (CMSY's capitals are calligraphic, MSBM's are blackboard bold).
"""

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

Kind = Literal["ord", "op", "bin", "rel", "open", "close", "punct", "accent", "radical", "fence"]
Role = Literal["ext", "sym", "italic", "blackboard", "ams", "fraktur", "script", "symbol", "text"]


@dataclass(frozen=True, slots=True)
class Symbol:
    """A glyph's meaning: its LaTeX, its kind (TeX's atom classes, plus accents and radicals), and the style
    command its font sets it in ("" for none)."""

    latex: str
    kind: Kind = "ord"
    style: str = ""
    scale: int = 0  # an extension font's delimiter: 1-4 for \big to \Bigg, 5 for a piece of an extensible one


_ROLES: list[tuple[re.Pattern[str], Role]] = [
    (re.compile(r"^(CMEX|LMMathExtension|EUEX|[tp]xex(?!a)|esint|MnSymbolE|fourier-ex)", re.I), "ext"),
    (re.compile(r"^(MSBM|BBM|BBOLD|DSROM|DSSS|[tp]xsyb|[tp]xmia)", re.I), "blackboard"),
    (re.compile(r"^(MSAM|[tp]xsya)", re.I), "ams"),
    (re.compile(r"^(CMSY|CMBSY|LMMathSymbols|r?[tp]xsy|r?[tp]xbsy)", re.I), "sym"),
    (re.compile(r"^(CMMI|LMMathItalic|r?[tp]xmi|r?[tp]xbmi)", re.I), "italic"),
    (re.compile(r"^EUF[MB]", re.I), "fraktur"),
    (re.compile(r"^(RSFS|EUS[MB])", re.I), "script"),
    (re.compile(r"^(StandardSym|Symbol|SymbolMT)", re.I), "symbol"),
]
_BOLD = re.compile(r"^(CMBX|CMB\d|CMMIB|CMBSY|LMRoman\d+-Bold)|bold|medi|black|heavy|semibold|demi|bx\d", re.I)
_ITALIC = re.compile(r"^(CMTI|CMMI|LMMathItalic|r?[tp]xb?mi)|ital|oblique|slant|-it\b", re.I)
_SANS = re.compile(r"^(CMSS|LMSans)|sans|helvet|arial", re.I)
_MONO = re.compile(r"^(CMTT|LMMono)|mono|courier", re.I)


def font_role(font: str) -> Role:
    """What a font is for in a formula, by its name (without a subset prefix)."""
    name = font.split("+")[-1]
    return next((role for pattern, role in _ROLES if pattern.match(name)), "text")


def is_bold(font: str) -> bool:
    return _BOLD.search(font.split("+")[-1]) is not None


def is_italic(font: str) -> bool:
    return _ITALIC.search(font.split("+")[-1]) is not None


# -- CMEX's encoding (Latin Modern's, txfonts' and pxfonts' extension fonts share it below 128)

_SIZES = {"big": 1, "Big": 2, "bigg": 3, "Bigg": 4}


def _cmex() -> dict[int, Symbol]:
    table: dict[int, Symbol] = {}
    delimiters = {"parenleft": ("(", "open"), "parenright": (")", "close"), "bracketleft": ("[", "open"),
                  "bracketright": ("]", "close"), "floorleft": ("\\lfloor", "open"),
                  "floorright": ("\\rfloor", "close"), "ceilingleft": ("\\lceil", "open"),
                  "ceilingright": ("\\rceil", "close"), "braceleft": ("\\{", "open"), "braceright": ("\\}", "close"),
                  "angbracketleft": ("\\langle", "open"), "angbracketright": ("\\rangle", "close"),
                  "slash": ("/", "ord"), "backslash": ("\\backslash", "ord")}
    sized = [  # (code, name, size)
        (0x00, "parenleft", "big"), (0x01, "parenright", "big"), (0x02, "bracketleft", "big"),
        (0x03, "bracketright", "big"), (0x04, "floorleft", "big"), (0x05, "floorright", "big"),
        (0x06, "ceilingleft", "big"), (0x07, "ceilingright", "big"), (0x08, "braceleft", "big"),
        (0x09, "braceright", "big"), (0x0A, "angbracketleft", "big"), (0x0B, "angbracketright", "big"),
        (0x0E, "slash", "big"), (0x0F, "backslash", "big"), (0x10, "parenleft", "Big"), (0x11, "parenright", "Big"),
        (0x12, "parenleft", "bigg"), (0x13, "parenright", "bigg"), (0x14, "bracketleft", "bigg"),
        (0x15, "bracketright", "bigg"), (0x16, "floorleft", "bigg"), (0x17, "floorright", "bigg"),
        (0x18, "ceilingleft", "bigg"), (0x19, "ceilingright", "bigg"), (0x1A, "braceleft", "bigg"),
        (0x1B, "braceright", "bigg"), (0x1C, "angbracketleft", "bigg"), (0x1D, "angbracketright", "bigg"),
        (0x1E, "slash", "bigg"), (0x1F, "backslash", "bigg"), (0x20, "parenleft", "Bigg"),
        (0x21, "parenright", "Bigg"), (0x22, "bracketleft", "Bigg"), (0x23, "bracketright", "Bigg"),
        (0x24, "floorleft", "Bigg"), (0x25, "floorright", "Bigg"), (0x26, "ceilingleft", "Bigg"),
        (0x27, "ceilingright", "Bigg"), (0x28, "braceleft", "Bigg"), (0x29, "braceright", "Bigg"),
        (0x2A, "angbracketleft", "Bigg"), (0x2B, "angbracketright", "Bigg"), (0x2C, "slash", "Bigg"),
        (0x2D, "backslash", "Bigg"), (0x2E, "slash", "Big"), (0x2F, "backslash", "Big"),
        (0x44, "angbracketleft", "Big"), (0x45, "angbracketright", "Big"), (0x68, "bracketleft", "Big"),
        (0x69, "bracketright", "Big"), (0x6A, "floorleft", "Big"), (0x6B, "floorright", "Big"),
        (0x6C, "ceilingleft", "Big"), (0x6D, "ceilingright", "Big"), (0x6E, "braceleft", "Big"),
        (0x6F, "braceright", "Big"),
    ]
    for code, name, size in sized:
        latex, kind = delimiters[name]
        table[code] = Symbol(latex, "fence" if kind != "ord" else "ord", scale=_SIZES[size])
    pieces = {  # pieces of extensible delimiters: top, bottom, middle and repeated parts
        "(": (0x30, 0x40, 0x42), ")": (0x31, 0x41, 0x43), "[": (0x32, 0x34, 0x36), "]": (0x33, 0x35, 0x37),
        "\\{": (0x38, 0x3A, 0x3C, 0x3E), "\\}": (0x39, 0x3B, 0x3D), "|": (0x0C,), "\\|": (0x0D, 0x77),
        "\\uparrow": (0x78, 0x3F), "\\downarrow": (0x79,), "\\Uparrow": (0x7E,), "\\Downarrow": (0x7F,),
    }
    for latex, codes in pieces.items():
        for code in codes:
            table[code] = Symbol(latex, "fence", scale=5)
    operators = {0x46: "\\bigsqcup", 0x47: "\\bigsqcup", 0x48: "\\oint", 0x49: "\\oint", 0x4A: "\\bigodot",
                 0x4B: "\\bigodot", 0x4C: "\\bigoplus", 0x4D: "\\bigoplus", 0x4E: "\\bigotimes",
                 0x4F: "\\bigotimes", 0x50: "\\sum", 0x51: "\\prod", 0x52: "\\int", 0x53: "\\bigcup",
                 0x54: "\\bigcap", 0x55: "\\biguplus", 0x56: "\\bigwedge", 0x57: "\\bigvee", 0x58: "\\sum",
                 0x59: "\\prod", 0x5A: "\\int", 0x5B: "\\bigcup", 0x5C: "\\bigcap", 0x5D: "\\biguplus",
                 0x5E: "\\bigwedge", 0x5F: "\\bigvee", 0x60: "\\coprod", 0x61: "\\coprod"}
    table.update({code: Symbol(latex, "op") for code, latex in operators.items()})
    table.update({code: Symbol("\\widehat", "accent") for code in (0x62, 0x63, 0x64)})
    table.update({code: Symbol("\\widetilde", "accent") for code in (0x65, 0x66, 0x67)})
    table.update({code: Symbol("\\sqrt", "radical", scale=1 + code - 0x70) for code in range(0x70, 0x74)})
    table.update({code: Symbol("\\sqrt", "radical", scale=5) for code in (0x74, 0x75, 0x76)})
    table.update({0x7A: Symbol("\\overbrace", "fence", scale=5), 0x7B: Symbol("\\overbrace", "fence", scale=5),
                  0x7C: Symbol("\\underbrace", "fence", scale=5), 0x7D: Symbol("\\underbrace", "fence", scale=5)})
    return table


CMEX = _cmex()

# -- Unicode, in unicode-math's conventions

_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ϵ": "epsilon", "ε": "varepsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "µ": "mu",
    "ν": "nu", "ξ": "xi", "π": "pi", "ϖ": "varpi", "ρ": "rho", "ϱ": "varrho", "σ": "sigma", "ς": "varsigma",
    "τ": "tau", "υ": "upsilon", "ϕ": "phi", "φ": "varphi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma",
    "Δ": "Delta", "∆": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Υ": "Upsilon",
    "ϒ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega", "\u2126": "Omega", "ϰ": "varkappa", "ϝ": "digamma",
}
_BINARY = {
    "+": "+", "−": "-", "-": "-", "±": "\\pm", "∓": "\\mp", "×": "\\times", "÷": "\\div", "·": "\\cdot",
    "⋅": "\\cdot", "∗": "*", "*": "*", "⋆": "\\star", "∘": "\\circ", "∙": "\\bullet", "•": "\\bullet",
    "∩": "\\cap", "∪": "\\cup", "⊎": "\\uplus", "⊓": "\\sqcap", "⊔": "\\sqcup", "∨": "\\vee", "∧": "\\wedge",
    "∖": "\\setminus", "≀": "\\wr", "⊕": "\\oplus", "⊖": "\\ominus", "⊗": "\\otimes", "⊘": "\\oslash",
    "⊙": "\\odot", "◦": "\\circ", "⋄": "\\diamond", "△": "\\bigtriangleup", "▽": "\\bigtriangledown",
    "◁": "\\triangleleft", "▷": "\\triangleright", "⊲": "\\lhd", "⊳": "\\rhd", "†": "\\dagger", "‡": "\\ddagger",
    "⨿": "\\amalg", "⊞": "\\boxplus", "⊠": "\\boxtimes", "⊡": "\\boxdot", "⊟": "\\boxminus",
}
_RELATIONS = {
    "=": "=", "<": "<", ">": ">", "≤": "\\leq", "≥": "\\geq", "≦": "\\leqq", "≧": "\\geqq", "⩽": "\\leqslant",
    "⩾": "\\geqslant", "≠": "\\neq", "≡": "\\equiv", "≈": "\\approx", "≃": "\\simeq", "≅": "\\cong",
    "∼": "\\sim", "~": "\\sim", "≍": "\\asymp", "∝": "\\propto", "≺": "\\prec", "≻": "\\succ", "⪯": "\\preceq",
    "⪰": "\\succeq", "≪": "\\ll", "≫": "\\gg", "⊂": "\\subset", "⊃": "\\supset", "⊆": "\\subseteq",
    "⊇": "\\supseteq", "⊊": "\\subsetneq", "⊋": "\\supsetneq", "⊏": "\\sqsubset", "⊐": "\\sqsupset",
    "⊑": "\\sqsubseteq", "⊒": "\\sqsupseteq", "∈": "\\in", "∋": "\\ni", "∉": "\\notin", "⊢": "\\vdash",
    "⊣": "\\dashv", "⊨": "\\models", "⊥": "\\perp", "∣": "\\mid", "⋈": "\\bowtie",
    "⌣": "\\smile", "⌢": "\\frown", "≐": "\\doteq", "≜": "\\triangleq", "≔": ":=", "≲": "\\lesssim",
    "≳": "\\gtrsim", "≪̸": "\\not\\ll", "∤": "\\nmid", "≮": "\\nless", "≯": "\\ngtr", "≰": "\\nleq", "≱": "\\ngeq",
    "→": "\\to", "←": "\\leftarrow", "↔": "\\leftrightarrow", "⇒": "\\Rightarrow", "⇐": "\\Leftarrow",
    "⇔": "\\Leftrightarrow", "↦": "\\mapsto", "⟶": "\\longrightarrow", "⟵": "\\longleftarrow",
    "⟹": "\\Longrightarrow", "⟸": "\\Longleftarrow", "⟺": "\\Longleftrightarrow", "⟼": "\\longmapsto",
    "↑": "\\uparrow", "↓": "\\downarrow", "⇑": "\\Uparrow", "⇓": "\\Downarrow", "↕": "\\updownarrow",
    "↗": "\\nearrow", "↘": "\\searrow", "↙": "\\swarrow", "↖": "\\nwarrow", "↪": "\\hookrightarrow",
    "↩": "\\hookleftarrow", "⇀": "\\rightharpoonup", "⇁": "\\rightharpoondown", "↼": "\\leftharpoonup",
    "↽": "\\leftharpoondown", "⇌": "\\rightleftharpoons", "⇝": "\\leadsto", "⇄": "\\rightleftarrows",
    "∴": "\\therefore", "∵": "\\because", ":": ":",
}
_OPERATORS = {
    "∑": "\\sum", "∏": "\\prod", "∐": "\\coprod", "∫": "\\int", "∬": "\\iint", "∭": "\\iiint", "∮": "\\oint",
    "⋃": "\\bigcup", "⋂": "\\bigcap", "⨁": "\\bigoplus", "⨂": "\\bigotimes", "⨀": "\\bigodot",
    "⋁": "\\bigvee", "⋀": "\\bigwedge", "⨄": "\\biguplus", "⨆": "\\bigsqcup",
}
_OPEN = {"(": "(", "[": "[", "{": "\\{", "⟨": "\\langle", "\u3008": "\\langle", "\u2329": "\\langle",
         "⌊": "\\lfloor", "⌈": "\\lceil"}
_CLOSE = {")": ")", "]": "]", "}": "\\}", "⟩": "\\rangle", "\u3009": "\\rangle", "\u232a": "\\rangle",
          "⌋": "\\rfloor", "⌉": "\\rceil"}
_FENCES = {"|": "|", "‖": "\\|", "∥": "\\|", "∣": "|"}  # open or close by where they stand
_PIECES = {  # pieces of extensible delimiters: Unicode's, and Adobe Symbol's private ones that TeX's maps use
    "(": "⎛⎜⎝\uf8eb\uf8ec\uf8ed", ")": "⎞⎟⎠\uf8f6\uf8f7\uf8f8", "[": "⎡⎢⎣\uf8ee\uf8ef\uf8f0",
    "]": "⎤⎥⎦\uf8f9\uf8fa\uf8fb", "\\{": "⎧⎨⎩⎪\uf8f1\uf8f2\uf8f3\uf8f4", "\\}": "⎫⎬⎭\uf8fc\uf8fd\uf8fe",
    "\\int": "⌠⌡⎮\uf8f5", "|": "⎪\uf8e6", "\\sqrt": "⎷\uf8e5",
}
_ORDINARY = {
    "∞": "\\infty", "∂": "\\partial", "∇": "\\nabla", "∅": "\\emptyset", "∀": "\\forall", "∃": "\\exists",
    "∄": "\\nexists", "¬": "\\neg", "ℓ": "\\ell", "ℏ": "\\hbar", "ℑ": "\\Im", "ℜ": "\\Re", "℘": "\\wp",
    "ℵ": "\\aleph", "ı": "\\imath", "ȷ": "\\jmath", "′": "\\prime", "'": "\\prime", "″": "\\prime\\prime",
    "⊤": "\\top", "□": "\\Box", "◇": "\\Diamond", "♭": "\\flat", "♮": "\\natural",
    "♯": "\\sharp", "♣": "\\clubsuit", "♢": "\\diamondsuit", "♡": "\\heartsuit", "♠": "\\spadesuit",
    "∠": "\\angle", "△": "\\triangle", "…": "\\ldots", "⋯": "\\cdots", "⋮": "\\vdots", "⋱": "\\ddots",
    "°": "^{\\circ}", "%": "\\%", "#": "\\#", "&": "\\&", "$": "\\$", "_": "\\_", "\\": "\\backslash",
    "\u0338": "\\not", "ð": "\\eth", "ℸ": "\\daleth", "ℶ": "\\beth", "ℷ": "\\gimel", "∡": "\\measuredangle",
    "⊺": "\\intercal",
    "®": "\\circledR", "Ⓢ": "\\circledS", "★": "\\bigstar", "■": "\\blacksquare", "▲": "\\blacktriangle",
    "✓": "\\checkmark", "⋔": "\\pitchfork", "℧": "\\mho", "Ⅎ": "\\Finv", "⅁": "\\Game",
}
_PUNCTUATION = {",": ",", ";": ";", ".": ".", "!": "!", "?": "?", "/": "/"}
_ACCENTS = {  # spacing and combining accent marks
    "ˆ": "\\hat", "^": "\\hat", "\u0302": "\\hat", "˜": "\\tilde", "\u0303": "\\tilde", "¯": "\\bar",
    "\u0304": "\\bar", "ˉ": "\\bar", "˙": "\\dot", "\u0307": "\\dot", "¨": "\\ddot", "\u0308": "\\ddot",
    "ˇ": "\\check", "\u030c": "\\check", "˘": "\\breve", "\u0306": "\\breve", "´": "\\acute", "\u0301": "\\acute",
    "`": "\\grave", "\u0300": "\\grave", "˚": "\\mathring", "\u030a": "\\mathring", "\u20d7": "\\vec",
}
_STYLED_RANGES = [  # Unicode's mathematical alphanumerics: (first, style of the 26/52 letters or 10 digits)
    (0x1D400, "mathbf", "A"), (0x1D41A, "mathbf", "a"), (0x1D434, "", "A"), (0x1D44E, "", "a"),
    (0x1D468, "boldsymbol", "A"), (0x1D482, "boldsymbol", "a"), (0x1D49C, "mathcal", "A"),
    (0x1D4B6, "mathcal", "a"), (0x1D4D0, "mathcal", "A"), (0x1D4EA, "mathcal", "a"), (0x1D504, "mathfrak", "A"),
    (0x1D51E, "mathfrak", "a"), (0x1D538, "mathbb", "A"), (0x1D552, "mathbb", "a"), (0x1D56C, "mathfrak", "A"),
    (0x1D586, "mathfrak", "a"), (0x1D5A0, "mathsf", "A"), (0x1D5BA, "mathsf", "a"), (0x1D5D4, "mathsf", "A"),
    (0x1D5EE, "mathsf", "a"), (0x1D608, "mathsf", "A"), (0x1D622, "mathsf", "a"), (0x1D63C, "mathsf", "A"),
    (0x1D656, "mathsf", "a"), (0x1D670, "mathtt", "A"), (0x1D68A, "mathtt", "a"),
]
_STYLED_DIGITS = [(0x1D7CE, "mathbf"), (0x1D7D8, "mathbb"), (0x1D7E2, "mathsf"), (0x1D7EC, "mathsf"),
                  (0x1D7F6, "mathtt")]
_LETTERLIKE = {"ℂ": ("mathbb", "C"), "ℍ": ("mathbb", "H"), "ℕ": ("mathbb", "N"), "ℙ": ("mathbb", "P"),
               "ℚ": ("mathbb", "Q"), "ℝ": ("mathbb", "R"), "ℤ": ("mathbb", "Z"), "ℬ": ("mathcal", "B"),
               "ℰ": ("mathcal", "E"), "ℱ": ("mathcal", "F"), "ℋ": ("mathcal", "H"), "ℐ": ("mathcal", "I"),
               "ℒ": ("mathcal", "L"), "ℳ": ("mathcal", "M"), "ℛ": ("mathcal", "R"), "ℯ": ("", "e"),
               "ℊ": ("", "g"), "ℴ": ("", "o"), "ℎ": ("", "h"), "ℭ": ("mathfrak", "C"), "ℌ": ("mathfrak", "H"),
               "ℨ": ("mathfrak", "Z")}


def _styled(char: str) -> tuple[str, str] | None:
    """A mathematical alphanumeric as (style, plain letter or digit)."""
    if char in _LETTERLIKE:
        return _LETTERLIKE[char]
    code = ord(char)
    for first, style, base in _STYLED_RANGES:
        if first <= code < first + 26:
            return style, chr(ord(base) + code - first)
    for first, style in _STYLED_DIGITS:
        if first <= code < first + 10:
            return style, chr(ord("0") + code - first)
    if 0x1D6A8 <= code <= 0x1D7CB:  # bold, italic, bold italic... Greek: 58 letters a style
        offset = (code - 0x1D6A8) % 58
        letter = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡϴΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ"[offset]
        style = ("mathbf", "", "boldsymbol", "mathsf", "mathsf")[(code - 0x1D6A8) // 58]
        return style, letter
    return None


_KINDS: tuple[tuple[dict[str, str], Kind], ...] = ((_RELATIONS, "rel"), (_BINARY, "bin"), (_OPERATORS, "op"),
                                                   (_OPEN, "open"), (_CLOSE, "close"), (_FENCES, "fence"),
                                                   (_ACCENTS, "accent"))


def unicode_symbol(char: str) -> Symbol | None:
    """The meaning of a Unicode character in a formula; None when it has none known here."""
    if char in _GREEK:
        name = _GREEK[char]
        return Symbol(name if len(name) == 1 else "\\" + name)
    for table, kind in _KINDS:
        if char in table:
            return Symbol(table[char], kind)
    if char == "√":
        return Symbol("\\sqrt", "radical")
    piece = next((latex for latex, pieces in _PIECES.items() if char in pieces), None)
    if piece is not None:
        return Symbol(piece, "radical" if piece == "\\sqrt" else "op" if piece == "\\int" else "fence", scale=5)
    if char in _ORDINARY:
        return Symbol(_ORDINARY[char])
    if char in _PUNCTUATION:
        return Symbol(_PUNCTUATION[char], "punct")
    if char.isascii() and char.isalnum():
        return Symbol(char)
    styled = _styled(char)
    if styled is not None:
        style, plain = styled
        inner = unicode_symbol(plain)
        return Symbol(inner.latex if inner else plain, style=style)
    if unicodedata.category(char) in ("Ll", "Lu") and unicodedata.name(char, "").startswith("LATIN"):
        return Symbol(char, style="text")  # an accented letter of a word set in a formula
    return None


def glyph_symbol(char: str, font: str, height: float = 0.0) -> Symbol | None:
    """The meaning of a glyph: `char` as MuPDF read it (the code where it knew no character) in `font`, `height`
    ems tall; None when it cannot be told. An extension font's glyphs below 128 are read by their code: TeX's
    maps to Unicode name only some of them (the pieces, as private characters). MuPDF reads code 9 (a \\big
    right brace) as a space, code 32 (a \\Bigg left parenthesis): their height tells them apart."""
    if len(char) != 1:
        return None
    role = font_role(font)
    if role == "ext" and char == " " and 0 < height < 2.0:
        return Symbol("\\}", "fence", scale=1)
    if role == "ext" and ord(char) < 0x80:
        return CMEX.get(ord(char))
    symbol = unicode_symbol(char)
    if symbol is None:
        return None
    if role in ("sym", "blackboard") and char.isascii() and not ("A" <= char <= "Z" or char in "|{}\\"):
        return _SYMBOL_CODES.get((role, char))  # no other ASCII character in CMSY or MSBM: a code MuPDF did not name
    if char.isascii() and char.isalpha():
        return _letter(char, role, font)
    if char.isascii() and char.isdigit():
        return Symbol(char, style="mathbf" if is_bold(font) and role == "text" else "")
    if is_bold(font) and symbol.style == "" and symbol.latex.startswith("\\") and symbol.kind == "ord":
        return Symbol(symbol.latex, symbol.kind, "boldsymbol")
    return symbol


_SYMBOL_CODES = {  # glyphs of CMSY and MSBM that MuPDF reads as their code
    ("sym", "7"): Symbol("\\mapstochar", "rel"), ("blackboard", "["): Symbol("\\widehat", "accent"),
    ("blackboard", "\\"): Symbol("\\widehat", "accent"), ("blackboard", "]"): Symbol("\\widetilde", "accent"),
    ("blackboard", "^"): Symbol("\\widetilde", "accent"),
}


def _letter(char: str, role: Role, font: str) -> Symbol:
    """A Latin letter: its style is its font's (CMSY's capitals are calligraphic, MSBM's blackboard bold); a
    letter of an upright text font is roman (a function's name, \\mathrm, \\text)."""
    style = {"sym": "mathcal", "blackboard": "mathbb", "fraktur": "mathfrak", "script": "mathscr"}.get(role)
    if style is not None:
        return Symbol(char, style=style)
    bold = is_bold(font)
    if role == "italic":
        return Symbol(char, style="boldsymbol" if bold else "")
    if is_italic(font):
        return Symbol(char, style="boldsymbol" if bold else "")
    if bold:
        return Symbol(char, style="mathbf")
    if _SANS.search(font.split("+")[-1]):
        return Symbol(char, style="mathsf")
    if _MONO.search(font.split("+")[-1]):
        return Symbol(char, style="mathtt")
    return Symbol(char, style="mathrm")
