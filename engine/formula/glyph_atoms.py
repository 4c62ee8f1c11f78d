"""A born-digital formula's glyphs as atoms: each glyph named (engine/formula/tex_symbols.py) and placed, the
pieces TeX builds one symbol of joined (an extensible delimiter's, a relation set as two overlapping glyphs,
three stacked dots); what engine/formula/glyph_layout.py lays out."""

from dataclasses import dataclass, field, replace

from engine.formula.tex_symbols import Kind, Symbol, font_role, glyph_symbol
from engine.geometry import union
from engine.types import BBox

AXIS = 0.25  # TeX's math axis above the baseline, in ems (2.5 pt at 10 pt)
FULL_SIZE = 0.85  # a glyph at least this share of a line's size is set at the line's size, not as a script
MAX_RULE_HEIGHT = 1.5  # points: taller drawn boxes are not rules of a formula
DELIMITER_HEIGHTS = {1: 1.2, 2: 1.8, 3: 2.4, 4: 3.0}  # ems: \big to \Bigg delimiters in TeX's extension font


class Unexplained(Exception):
    """Something in the formula the layout cannot account for."""


@dataclass(frozen=True, slots=True)
class Glyph:
    """A glyph of the text layer: its character (or code, where the font maps none), font and size, the box
    of its ink, and the baseline it was set on."""

    char: str
    font: str
    size: float
    bbox: BBox
    baseline: float


@dataclass(slots=True, eq=False)
class Atom:
    """A glyph or a structure built of several, with its LaTeX (atoms are told apart by identity)."""

    latex: str
    kind: Kind
    bbox: BBox
    baseline: float
    size: float
    style: str = ""
    scale: int = 0  # extension-font delimiters: 1-4 for \big to \Bigg, 5 for an extensible one
    centred: bool = False  # set on the math axis (big operators, extension glyphs, structures): baseline derived
    parts: list[str] = field(default_factory=list)  # a matrix's rows or an operator's name letters

    @property
    def x0(self) -> float:
        return self.bbox[0]

    @property
    def x1(self) -> float:
        return self.bbox[2]

    @property
    def cx(self) -> float:
        return (self.bbox[0] + self.bbox[2]) / 2

    @property
    def cy(self) -> float:
        return (self.bbox[1] + self.bbox[3]) / 2


def atoms_of(glyphs: list[Glyph]) -> list[Atom]:
    """The formula's glyphs as atoms: each named (none when one cannot be: []), the pieces of extensible
    delimiters joined, relations set as two overlapping glyphs one atom, three stacked dots one."""
    atoms = []
    script_as_calligraphic = any(font_role(glyph.font) == "symbol" for glyph in glyphs)  # mathptmx: rsfs is \mathcal
    for glyph in _once(glyphs):
        if glyph.char.isspace() and font_role(glyph.font) != "ext":  # an extension font's codes 9-13 and 32 are
            continue                                                # delimiters
        symbol = glyph_symbol(glyph.char, glyph.font, (glyph.bbox[3] - glyph.bbox[1]) / max(glyph.size, 1.0))
        if symbol is None or not _fits(symbol, glyph):
            return []
        if symbol.style == "mathscr" and script_as_calligraphic:
            symbol = replace(symbol, style="mathcal")
        atoms.append(_atom(glyph, symbol))
    return _dots(_relations_joined(_pieces_joined(atoms)))


def _once(glyphs: list[Glyph]) -> list[Glyph]:
    """The glyphs without those drawn again on themselves (a fake bold or a shadow sets a glyph twice)."""
    kept: dict[tuple, Glyph] = {}
    for glyph in glyphs:
        kept.setdefault((glyph.char, *(round(v * 2) for v in glyph.bbox)), glyph)  # the same to half a point
    return list(kept.values())


def _fits(symbol: Symbol, glyph: Glyph) -> bool:
    """Whether a sized delimiter read by its code is as tall as that size is: a glyph named otherwise by its
    font's map to Unicode is not."""
    expected = DELIMITER_HEIGHTS.get(symbol.scale)
    return expected is None or 0.75 <= (glyph.bbox[3] - glyph.bbox[1]) / glyph.size / expected <= 1.2


def _atom(glyph: Glyph, symbol: Symbol) -> Atom:
    centred = symbol.scale > 0 or symbol.kind in ("op", "radical") and glyph.size > 0
    baseline = glyph.baseline
    if centred:  # on the axis: where its baseline would be
        baseline = (glyph.bbox[1] + glyph.bbox[3]) / 2 + AXIS * glyph.size
    return Atom(symbol.latex, symbol.kind, glyph.bbox, baseline, glyph.size, symbol.style, symbol.scale, centred)


def structure(latex: str, members: list[Atom], kind: Kind = "ord", baseline: float | None = None) -> Atom:
    """An atom built of `members`: set on the axis unless a baseline is given."""
    box = union([atom.bbox for atom in members])
    size = max(atom.size for atom in members)
    if baseline is None:
        return Atom(latex, kind, box, (box[1] + box[3]) / 2 + AXIS * size, size, centred=True)
    return Atom(latex, kind, box, baseline, size)


def _pieces_joined(atoms: list[Atom]) -> list[Atom]:
    """The pieces of an extensible delimiter or radical (top, repeated middle, bottom) as one glyph."""
    pieces = sorted((a for a in atoms if a.scale == 5), key=lambda a: (a.latex, a.x0, a.bbox[1]))
    joined: list[Atom] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if (last is not None and last.latex == piece.latex and min(last.x1, piece.x1) - max(last.x0, piece.x0) > 0
                and piece.bbox[1] - last.bbox[3] < 1.0):
            box = union([last.bbox, piece.bbox])
            joined[-1] = replace(last, bbox=box, baseline=(box[1] + box[3]) / 2 + AXIS * last.size)
        else:
            joined.append(piece)
    return [a for a in atoms if a.scale != 5] + joined


JOINED_RELATIONS = {  # relations TeX sets as two overlapping glyphs
    ("-", "\\to"): "\\longrightarrow", ("\\leftarrow", "-"): "\\longleftarrow",
    ("\\leftarrow", "\\to"): "\\longleftrightarrow", ("=", "\\Rightarrow"): "\\Longrightarrow",
    ("\\Leftarrow", "="): "\\Longleftarrow", ("\\Leftarrow", "\\Rightarrow"): "\\Longleftrightarrow",
    ("\\mapstochar", "\\to"): "\\mapsto", ("\\mapstochar", "\\longrightarrow"): "\\longmapsto",
    ("\\not", "="): "\\neq", ("\\not", "\\in"): "\\notin", ("/", "\\in"): "\\notin",
    ("\\in", "/"): "\\notin", ("\\not", "\\equiv"): "\\not\\equiv", ("\\not", "\\subset"): "\\not\\subset",
}


def _relations_joined(atoms: list[Atom]) -> list[Atom]:
    """Relations set as two overlapping glyphs (\\longrightarrow, \\neq, \\notin, \\mapsto) as one atom."""
    atoms = sorted(atoms, key=lambda a: a.x0)
    joined = True
    while joined:
        joined = False
        for index in range(len(atoms) - 1):
            first, second = atoms[index], atoms[index + 1]
            latex = JOINED_RELATIONS.get((first.latex, second.latex))
            if latex is None and abs(first.x0 - second.x0) < 1.0:  # an overlay set at its glyph's origin
                latex = JOINED_RELATIONS.get((second.latex, first.latex))
            if latex is None or first.x1 - second.x0 < 0.5 or abs(first.baseline - second.baseline) > 0.5:
                continue
            if latex == "\\Longleftrightarrow" and spaced(atoms, index, index + 1, 0.45 * first.size):
                latex = "\\iff"
            atoms[index:index + 2] = [structure(latex, [first, second], "rel", baseline=first.baseline)]
            joined = True
            break
    return atoms


def spaced(atoms: list[Atom], first: int, last: int, space: float) -> bool:
    """Whether atoms[first:last + 1] stand at least `space` from their neighbours on both sides."""
    before = atoms[first - 1].x1 if first > 0 else float("-inf")
    after = atoms[last + 1].x0 if last + 1 < len(atoms) else float("inf")
    return atoms[first].x0 - before >= space and after - atoms[last].x1 >= space


def _dots(atoms: list[Atom]) -> list[Atom]:
    """Three dots stacked upright (\\vdots) or down a diagonal (\\ddots) as one atom."""
    dots = sorted((a for a in atoms if a.latex in (".", "\\cdot") and a.bbox[2] - a.bbox[0] < 0.35 * a.size),
                  key=lambda a: a.bbox[1])
    used: set[int] = set()
    found: list[Atom] = []
    for first in dots:
        if id(first) in used:
            continue
        for second in dots:
            dy, dx = second.cy - first.cy, second.cx - first.cx
            if id(second) in used or second is first or not 0.15 * first.size < dy < 0.6 * first.size:
                continue
            third = next((a for a in dots if id(a) not in used and a is not first and a is not second
                          and abs(a.cy - second.cy - dy) < 0.3 and abs(a.cx - second.cx - dx) < 0.3), None)
            if third is None or abs(dx) > 1.5 * dy or (0.3 < abs(dx) < 0.5 * dy):
                continue
            used.update({id(first), id(second), id(third)})
            group = [first, second, third]
            found.append(structure("\\vdots" if abs(dx) <= 0.3 else "\\ddots", group,
                                    baseline=max(dot.baseline for dot in group)))
            break
    return [a for a in atoms if id(a) not in used] + found


def em_of(atoms: list[Atom]) -> float:
    """The group's font size: its largest, but for sized delimiters (their font has one size for all) and big
    operators (set larger than the text around them)."""
    sizes = [a.size for a in atoms if not a.scale and a.kind != "op"] or [a.size for a in atoms]
    return max(sizes) if sizes else 10.0


