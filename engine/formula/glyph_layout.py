"""LaTeX from a born-digital formula's glyphs and rules: the structure TeX laid out, read back from positions.

A formula set by TeX (or any program that sets math from fonts) leaves in the PDF every glyph with its
font, size and place, and every rule it drew. The structure is read back in the order TeX builds it,
innermost first:

- radicals: a radical sign with a rule running from its top; what lies under the rule is the radicand,
  a small group over the sign's hook its index;
- fractions: a rule with a numerator chained above it and a denominator below (one side only: an
  overline or underline);
- accents: an accent mark over the atoms it covers;
- rows: lines of a multi-line formula, aligned at their first relation where they line up;
- on each line, the baseline most of the full-size glyphs sit on; what sits off it is a superscript
  (raised) or a subscript (lowered) of the atom before it, or a limit above or below a big operator;
- fences: matching big delimiters; rows of atoms between them are a matrix (a binomial, a cases block).

`formula_latex` gives None whenever something is left unexplained (a glyph it cannot name, a rule that
is neither a fraction nor a radical's, an accent over nothing): the image model reads those formulas.
"""

import re
from dataclasses import dataclass, field, replace

from engine.formula.tex_symbols import Kind, Symbol, font_role, glyph_symbol
from engine.types import BBox

AXIS = 0.25  # TeX's math axis above the baseline, in ems (2.5 pt at 10 pt)
ON_BASELINE = 0.1  # ems a glyph's baseline may differ from its line's and still sit on it
FULL_SIZE = 0.85  # a glyph at least this share of a line's size is set at the line's size, not as a script
CHAIN_GAP = 0.6  # ems between atoms stacked into one numerator, denominator or limit
ROW_GAP = 0.9  # ems between the baselines of two rows of a multi-line formula or a matrix, at least
COLUMN_GAP = 0.6  # ems of white space that separate two columns of a matrix
NUMBER_GAP = 1.5  # ems between a formula and its equation number, at least
MID_SPACE = 0.2  # ems of space on both sides of a bar set as a relation (\\mid), at least
WIDE_MARK = 0.8  # ems: an accent mark wider than this (a wide hat, marks run together) goes over all it spans
SLACK = 1.0  # points of slack when comparing a rule's ends with what it spans
MAX_RULE_HEIGHT = 1.5  # points: taller drawn boxes are not rules of a formula
DELIMITER_HEIGHTS = {1: 1.2, 2: 1.8, 3: 2.4, 4: 3.0}  # ems: \big to \Bigg delimiters in TeX's extension font
FUNCTIONS = ("arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det", "dim", "exp",
             "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup", "ln", "log", "max", "min", "Pr", "sec",
             "sin", "sinh", "sup", "tan", "tanh", "bmod", "mod", "argmax", "argmin")
LIMIT_FUNCTIONS = {"lim", "liminf", "limsup", "max", "min", "sup", "inf", "det", "gcd", "Pr", "argmax", "argmin"}
SIDE_SCRIPT_OPERATORS = {"\\int", "\\iint", "\\iiint", "\\oint"}  # TeX sets their limits beside them


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


@dataclass(slots=True)
class Atom:
    """A glyph or a structure built of several, with its LaTeX."""

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


def formula_latex(glyphs: list[Glyph], rules: list[BBox]) -> str | None:
    """The formula's LaTeX, or None when its glyphs and rules cannot all be explained."""
    atoms = []
    script_as_calligraphic = any(font_role(glyph.font) == "symbol" for glyph in glyphs)  # mathptmx: rsfs is \mathcal
    for glyph in glyphs:
        if glyph.char.isspace() and font_role(glyph.font) != "ext":  # an extension font's codes 9-13 and 32 are
            continue                                                # delimiters
        symbol = glyph_symbol(glyph.char, glyph.font, (glyph.bbox[3] - glyph.bbox[1]) / max(glyph.size, 1.0))
        if symbol is None or not _fits(symbol, glyph):
            return None
        if symbol.style == "mathscr" and script_as_calligraphic:
            symbol = replace(symbol, style="mathcal")
        atoms.append(_atom(glyph, symbol))
    thin = [rule for rule in rules if rule[3] - rule[1] <= MAX_RULE_HEIGHT and rule[2] - rule[0] > 1.0]
    if not atoms or len(thin) != len(rules):
        return None
    try:
        latex = _build(_dots(_relations_joined(_pieces_joined(atoms))), thin)
    except Unexplained:
        return None
    return " ".join(latex.split()) or None


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


def _union(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _structure(latex: str, members: list[Atom], kind: Kind = "ord", baseline: float | None = None) -> Atom:
    """An atom built of `members`: set on the axis unless a baseline is given."""
    box = _union([atom.bbox for atom in members])
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
            box = _union([last.bbox, piece.bbox])
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
            if latex == "\\Longleftrightarrow" and _spaced(atoms, index, index + 1, 0.45 * first.size):
                latex = "\\iff"
            atoms[index:index + 2] = [_structure(latex, [first, second], "rel", baseline=first.baseline)]
            joined = True
            break
    return atoms


def _spaced(atoms: list[Atom], first: int, last: int, space: float) -> bool:
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
            found.append(_structure("\\vdots" if abs(dx) <= 0.3 else "\\ddots", group,
                                    baseline=max(dot.baseline for dot in group)))
            break
    return [a for a in atoms if id(a) not in used] + found


def _em(atoms: list[Atom]) -> float:
    """The group's font size: its largest, but for sized delimiters (their font has one size for all) and big
    operators (set larger than the text around them)."""
    sizes = [a.size for a in atoms if not a.scale and a.kind != "op"] or [a.size for a in atoms]
    return max(sizes) if sizes else 10.0


def _build(atoms: list[Atom], rules: list[BBox]) -> str:
    """The LaTeX of a group of atoms and the rules among them."""
    return _laid_out(_settled(atoms, rules))


def _settled(atoms: list[Atom], rules: list[BBox]) -> list[Atom]:
    """The group's atoms with its radicals, fractions, accents and matrices built."""
    if not atoms:
        if rules:
            raise Unexplained("a rule with nothing around it")
        return []
    atoms, rules = _radicals(atoms, rules)
    atoms = _fractions(atoms, rules)
    atoms = _accents(atoms)
    return _matrices(atoms)


def _laid_out(atoms: list[Atom]) -> str:
    """The LaTeX of settled atoms: one line, or rows aligned."""
    if not atoms:
        return ""
    rows = _rows(atoms)
    if len(rows) == 1:
        return _line(rows[0])
    return _aligned(rows)


def _inside(atoms: list[Atom], region: BBox) -> list[Atom]:
    return [a for a in atoms if region[0] <= a.cx <= region[2] and region[1] <= a.cy <= region[3]]


def _rules_in(rules: list[BBox], region: BBox) -> list[BBox]:
    """The rules whose middle lies in the region: a fraction's rule reaches past the ink of what it divides."""
    return [r for r in rules if region[0] - SLACK <= (r[0] + r[2]) / 2 <= region[2] + SLACK
            and region[1] - SLACK <= (r[1] + r[3]) / 2 <= region[3] + SLACK]


def _radicals(atoms: list[Atom], rules: list[BBox]) -> tuple[list[Atom], list[BBox]]:
    """Radical signs with the rule over their radicand, widest first, as \\sqrt atoms."""
    for sign in sorted((a for a in atoms if a.kind == "radical"), key=lambda a: -(a.bbox[3] - a.bbox[1])):
        if sign not in atoms:
            continue
        em = sign.size
        over = next((r for r in sorted(rules, key=lambda r: r[0]) if abs(r[0] - sign.x1) < 0.3 * em
                     and abs(r[1] - sign.bbox[1]) < 0.15 * em + 0.5), None)
        if over is None:
            atoms = [a for a in atoms if a is not sign] + [replace(sign, latex="\\surd", kind="ord")]
            continue
        region = (over[0] - SLACK, over[3], over[2] + SLACK, sign.bbox[3] + 0.1 * em)
        radicand = [a for a in _inside(atoms, region) if a is not sign]
        index_zone = (sign.x0 - em, sign.bbox[1] - em, sign.x0 + 0.6 * (sign.x1 - sign.x0), sign.cy)
        index = [a for a in _inside(atoms, index_zone) if a is not sign and a not in radicand
                 and a.size < 0.9 * _em(radicand or [sign])]
        inner = [r for r in _rules_in(rules, region) if r is not over]
        rules = [r for r in rules if r is not over and r not in inner]
        body = _settled(radicand, inner)
        latex = _laid_out(body)
        latex = f"\\sqrt[{_build(index, [])}]{{{latex}}}" if index else f"\\sqrt{{{latex}}}"
        members = [sign, *radicand, *index]
        baseline = _exact_baseline(body) if body else sign.baseline
        atoms = [a for a in atoms if all(a is not m for m in members)]
        atoms.append(_structure(latex, members, baseline=baseline))
    return atoms, rules


def _chain(atoms: list[Atom], rule: BBox, upward: bool, em: float) -> list[Atom]:
    """The atoms stacked against one side of a rule, within its ends, each close to those already taken."""
    inside = [a for a in atoms if a.x0 >= rule[0] - SLACK and a.x1 <= rule[2] + SLACK
              and (a.bbox[3] <= rule[1] + 0.5 if upward else a.bbox[1] >= rule[3] - 0.5)]
    inside.sort(key=lambda a: -a.bbox[3] if upward else a.bbox[1])
    taken: list[Atom] = []
    edge = rule[1] if upward else rule[3]
    for atom in inside:
        distance = edge - atom.bbox[3] if upward else atom.bbox[1] - edge
        if distance > CHAIN_GAP * em:
            break
        taken.append(atom)
        edge = min(edge, atom.bbox[1]) if upward else max(edge, atom.bbox[3])
    return taken


def _fractions(atoms: list[Atom], rules: list[BBox]) -> list[Atom]:
    """Each rule, widest first, with what is stacked over and under it: a fraction, an overline or an
    underline."""
    for rule in sorted(rules, key=lambda r: r[0] - r[2]):
        if rule not in rules:
            continue
        em = _em(atoms)
        above, below = _chain(atoms, rule, True, em), _chain(atoms, rule, False, em)
        if not above and not below:
            raise Unexplained("a rule over and under nothing")
        parts, settled = [], []
        for side in (above, below):
            region = _union([a.bbox for a in side]) if side else rule
            inner = [r for r in _rules_in(rules, region) if r is not rule]
            rules = [r for r in rules if r not in inner]
            settled.append(_settled(side, inner))
            parts.append(_laid_out(settled[-1]))
        rules = [r for r in rules if r is not rule]
        members = above + below
        if above and below:
            holder = Atom("", "ord", rule, rule[1], em)
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = _structure(f"\\frac{{{parts[0]}}}{{{parts[1]}}}", [*members, holder])
        elif below:
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = _structure(f"\\overline{{{parts[1]}}}", members, baseline=_exact_baseline(settled[1]))
        else:
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = _structure(f"\\underline{{{parts[0]}}}", members, baseline=_exact_baseline(settled[0]))
        built.bbox = _union([built.bbox, rule])
        atoms.append(built)
    return atoms


def _accents(atoms: list[Atom]) -> list[Atom]:
    """Accent marks with the atoms under them, as \\hat{...} and the like: a narrow accent goes with the atom
    whose centre is nearest to its own (TeX shifts it right over an italic letter), a wide one (\\widehat, or
    marks run together) with every atom it spans."""
    atoms = _marks_joined(atoms)
    for accent in sorted((a for a in atoms if a.kind == "accent"), key=lambda a: a.bbox[1]):
        if accent not in atoms:
            continue
        reach = 0.2 * accent.size
        under = [a for a in atoms if a is not accent and a.kind != "accent" and a.bbox[1] >= accent.cy - 0.05 * a.size
                 and min(a.x1, accent.x1 + reach) - max(a.x0, accent.x0 - reach) > 0
                 and a.bbox[1] - accent.bbox[3] < 0.5 * accent.size]
        if not under:
            raise Unexplained(f"an accent ({accent.latex}) over nothing")
        top = min(a.bbox[1] for a in under)
        base = [a for a in under if a.bbox[1] - top < 0.3 * a.size]
        if accent.latex.startswith("\\wide") or accent.x1 - accent.x0 > WIDE_MARK * accent.size:
            base = [a for a in base if min(a.x1, accent.x1) - max(a.x0, accent.x0) > 0.3 * (a.x1 - a.x0)] or base
        else:
            base = [min(base, key=lambda a: abs(a.cx - accent.cx))]
        built = _structure(f"{accent.latex}{{{_build(base, [])}}}", [accent, *base], baseline=_exact_baseline(base))
        atoms = [a for a in atoms if a is not accent and all(a is not b for b in base)] + [built]
    return atoms


def _marks_joined(atoms: list[Atom]) -> list[Atom]:
    """Runs of one accent mark side by side at one height (Word stretches an arrow over a letter by repeating it)
    as one mark."""
    marks = sorted((a for a in atoms if a.kind == "accent"), key=lambda a: (a.latex, round(a.cy), a.x0))
    joined: list[Atom] = []
    for mark in marks:
        last = joined[-1] if joined else None
        if last is not None and last.latex == mark.latex and abs(last.cy - mark.cy) < 1.0 and mark.x0 - last.x1 < 0.5:
            last.bbox = _union([last.bbox, mark.bbox])
        else:
            joined.append(replace(mark))
    return [a for a in atoms if a.kind != "accent"] + joined


def _baseline_clusters(atoms: list[Atom]) -> list[tuple[float, float, list[Atom]]]:
    """(baseline, width, atoms) of the full-size glyphs set on each baseline, widest first."""
    em = _em(atoms)
    full = sorted((a for a in atoms if not a.centred and a.size >= FULL_SIZE * em), key=lambda a: a.baseline)
    clusters: list[list[Atom]] = []
    for atom in full:
        if clusters and atom.baseline - clusters[-1][-1].baseline <= ON_BASELINE * em:
            clusters[-1].append(atom)
        else:
            clusters.append([atom])
    found = [(sum(a.baseline for a in c) / len(c), sum(a.x1 - a.x0 for a in c), c) for c in clusters]
    return sorted(found, key=lambda item: -item[1])


def _exact_baseline(atoms: list[Atom]) -> float | None:
    """The baseline the group's full-size glyphs sit on; None when it has none (only structures set on the axis):
    a structure built on the group is then set on the axis too."""
    clusters = _baseline_clusters(atoms)
    return clusters[0][0] if clusters else None


def _baseline(atoms: list[Atom]) -> float:
    """The baseline of the group's main line: the one its full-size glyphs cover most of; for a group of
    structures alone, where their axis puts it."""
    clusters = _baseline_clusters(atoms)
    if clusters:
        return clusters[0][0]
    em = _em(atoms)
    full = [a for a in atoms if a.size >= FULL_SIZE * em] or atoms
    return sum(a.baseline for a in full) / len(full)


def _rows(atoms: list[Atom]) -> list[list[Atom]]:
    """The group's rows, top to bottom: baselines of full-size glyphs a row apart whose spans overlap, each
    with the atoms nearest to it."""
    em = _em(atoms)
    baselines = sorted(b for b, _, _ in _baseline_clusters(atoms))
    rows = [baselines[0]] if baselines else []
    for baseline in baselines[1:]:
        if baseline - rows[-1] >= ROW_GAP * em:
            rows.append(baseline)
    if len(rows) < 2:
        return [atoms]
    grouped: list[list[Atom]] = [[] for _ in rows]
    for atom in atoms:
        middle = atom.baseline - AXIS * em if atom.centred else atom.cy
        nearest = min(range(len(rows)), key=lambda i: abs(middle - (rows[i] - AXIS * em)))
        grouped[nearest].append(atom)
    return [row for row in grouped if row]


def _aligned(rows: list[list[Atom]]) -> str:
    """Rows as an aligned block, aligned at their first relation where those stand one above the other."""
    relations = [next((a.x0 for a in sorted(row, key=lambda a: a.x0) if a.kind == "rel"), None) for row in rows]
    aligned = all(x is not None for x in relations) and max(relations) - min(relations) < 1.5  # type: ignore[type-var]
    lines = [_line(row, relations[i] if aligned else None) for i, row in enumerate(rows)]
    environment = "aligned" if aligned else "gathered"
    return f"\\begin{{{environment}}} " + " \\\\ ".join(lines) + f" \\end{{{environment}}}"


# -- one line


def _line(atoms: list[Atom], align_at: float | None = None) -> str:
    """A line's LaTeX: the atoms on its baseline in order, each with its scripts and limits."""
    em = _em(atoms)
    baseline = _baseline(atoms)
    axis = baseline - AXIS * em
    on = sorted((a for a in atoms if _on_line(a, baseline, axis, em)), key=lambda a: a.x0)
    off = [a for a in atoms if all(a is not b for b in on)]
    on = _names(on, em)
    on = _without_number(on, em)
    if not on:
        return _build_scripts(off)
    limits: dict[int, tuple[list[Atom], list[Atom]]] = {}
    operators = [atom for atom in on if atom.kind == "op" and atom.latex not in SIDE_SCRIPT_OPERATORS]
    for index, atom in enumerate(on):
        if atom in operators:
            others = [other for other in operators if other is not atom]
            above, below = _limit(off, atom, True, em, others), _limit(off, atom, False, em, others)
            off = [a for a in off if all(a is not b for b in above + below)]
            if above or below:
                limits[index] = (above, below)
    scripts: dict[int, list[Atom]] = {}
    prescripts: list[Atom] = []
    for atom in off:
        before = [i for i, b in enumerate(on) if b.x0 < atom.x0 - 0.05]
        if before:
            scripts.setdefault(before[-1], []).append(atom)
        else:
            prescripts.append(atom)
    tokens: list[str] = []
    if prescripts:
        tokens.append("{}" + _scripts(prescripts, baseline, axis))
    fences = _fence_pairs(on)
    for index, atom in enumerate(on):
        if align_at is not None and atom.kind == "rel" and abs(atom.x0 - align_at) < 1.5:
            tokens.append("&")
            align_at = None
        token = _token(atom, fences.get(index))
        if atom.latex == "|" and index not in fences and _spaced(on, index, index, MID_SPACE * em):
            token = "\\mid"
        if index in limits:
            above, below = limits[index]
            token += (f"_{{{_build(below, [])}}}" if below else "") + (f"^{{{_build(above, [])}}}" if above else "")
        if index in scripts:
            token += _scripts(scripts[index], baseline, axis)
        tokens.append(token)
    return _joined(tokens, on)


def _on_line(atom: Atom, baseline: float, axis: float, em: float) -> bool:
    if atom.centred:
        return atom.bbox[1] < axis < atom.bbox[3] and atom.size >= FULL_SIZE * em
    return abs(atom.baseline - baseline) <= ON_BASELINE * em and atom.size >= FULL_SIZE * em


def _build_scripts(atoms: list[Atom]) -> str:
    """Atoms of a group that has no line of its own (nothing at full size on one baseline)."""
    ordered = sorted(atoms, key=lambda a: a.x0)
    return " ".join(_token(a, None) for a in ordered)


def _limit(off: list[Atom], operator: Atom, upward: bool, em: float, others: list[Atom]) -> list[Atom]:
    """The limit over or under a big operator: atoms stacked right against it, centred on it, with those on
    their level beside them (but those over or under another operator)."""
    width = operator.x1 - operator.x0
    seeds = [a for a in off if operator.x0 - 0.2 * width <= a.cx <= operator.x1 + 0.2 * width
             and (a.bbox[3] <= operator.bbox[1] + 0.5 if upward else a.bbox[1] >= operator.bbox[3] - 0.5)
             and (operator.bbox[1] - a.bbox[3] if upward else a.bbox[1] - operator.bbox[3]) < CHAIN_GAP * em]
    if not seeds:
        return []
    group = list(seeds)
    top, bottom = min(a.bbox[1] for a in group), max(a.bbox[3] for a in group)
    grown = True
    while grown:
        grown = False
        left, right = min(a.x0 for a in group), max(a.x1 for a in group)
        for atom in off:
            if atom in group or not top - 0.2 * em <= atom.cy <= bottom + 0.2 * em or any(
                    other.x0 <= atom.cx <= other.x1 for other in others):
                continue
            if atom.x0 - right < 0.5 * em and left - atom.x1 < 0.5 * em:
                group.append(atom)
                top, bottom = min(top, atom.bbox[1]), max(bottom, atom.bbox[3])
                grown = True
    return group


def _scripts(atoms: list[Atom], baseline: float, axis: float) -> str:
    """An atom's scripts: the largest of them say which are raised (superscript) and which lowered."""
    largest = max(a.size for a in atoms)
    anchors = [a for a in atoms if a.size >= FULL_SIZE * largest]

    def raised(atom: Atom) -> bool:
        return atom.cy < axis if atom.centred else atom.baseline < baseline - 0.05 * largest

    sides: dict[bool, list[Atom]] = {True: [], False: []}
    for atom in atoms:
        if atom in anchors:
            sides[raised(atom)].append(atom)
        else:
            nearest = min(anchors, key=lambda a: abs(a.cx - atom.cx) + abs(a.cy - atom.cy))
            sides[raised(nearest)].append(atom)
    text = ""
    if sides[False]:
        text += f"_{{{_build(sides[False], [])}}}"
    if sides[True]:
        upper = _build(sides[True], [])
        primes = upper.replace(" ", "")
        text += "'" * primes.count("\\prime") if primes and not primes.replace("\\prime", "") else f"^{{{upper}}}"
    return text


def _names(on: list[Atom], em: float) -> list[Atom]:
    """Upright letters set close together as one name: \\sin, \\lim, or a word in \\text."""
    merged: list[Atom] = []
    for atom in on:
        last = merged[-1] if merged else None
        if (last is not None and atom.style == "mathrm" and last.style == "mathrm" and atom.latex.isalpha()
                and last.parts and atom.x0 - last.x1 < 0.1 * em):
            last.parts.append(atom.latex)
            last.bbox = _union([last.bbox, atom.bbox])
            continue
        if atom.style == "mathrm" and atom.latex.isalpha() and len(atom.latex) == 1:
            atom = replace(atom, parts=[atom.latex])
        merged.append(atom)
    for atom in merged:
        if not atom.parts or atom.kind != "ord":
            continue
        name = "".join(atom.parts)
        if name in FUNCTIONS:
            atom.latex = f"\\operatorname{{{name}}}" if name in ("argmax", "argmin") else \
                "\\bmod" if name == "mod" else f"\\{name}"
            atom.style, atom.kind = "", "op" if name in LIMIT_FUNCTIONS else "ord"
        elif len(name) > 1:
            atom.latex, atom.style = f"\\text{{{name}}}", ""
        else:
            atom.parts = []
    return merged


def _without_number(on: list[Atom], em: float) -> list[Atom]:
    """The line without an equation number set apart at its right end: "(3)", "(2.1a)"."""
    if len(on) < 4 or on[-1].latex != ")":
        return on
    opening = max((i for i, a in enumerate(on) if a.latex == "("), default=None)
    if opening is None or opening == 0 or on[opening].x0 - on[opening - 1].x1 < NUMBER_GAP * em:
        return on
    inside = "".join(a.latex for a in on[opening + 1:-1])
    if inside and all(ch.isalnum() or ch in ".-," for ch in inside) and any(ch.isdigit() for ch in inside):
        return on[:opening]
    return on


def _fence_pairs(on: list[Atom]) -> dict[int, str]:
    """\\left and \\right for the big delimiters that pair up on the line; unpaired ones get a fixed size."""
    sized = {i: a for i, a in enumerate(on) if a.kind == "fence" or (a.scale and a.kind in ("open", "close"))}
    result: dict[int, str] = {}
    stack: list[int] = []
    for index, atom in sized.items():
        opening = atom.latex in ("(", "[", "\\{", "\\langle", "\\lfloor", "\\lceil")
        closing = atom.latex in (")", "]", "\\}", "\\rangle", "\\rfloor", "\\rceil")
        if not opening and not closing:  # | and \|: closes the same bar of the same height, else opens
            match = next((i for i in reversed(stack) if on[i].latex == atom.latex), None)
            closing, opening = match is not None, match is None
        if opening:
            stack.append(index)
        elif stack:
            result[stack.pop()] = "\\left"
            result[index] = "\\right"
    for index, atom in sized.items():
        if index not in result and atom.scale:
            result[index] = ("\\big", "\\Big", "\\bigg", "\\Bigg", "\\Bigg")[atom.scale - 1] + (
                "l" if atom.latex in ("(", "[", "\\{", "\\langle", "\\lfloor", "\\lceil") else "r")
    return result


def _token(atom: Atom, sizing: str | None) -> str:
    if sizing is not None:
        return f"{sizing}{atom.latex}"
    if atom.style and atom.style != "text":
        return f"\\{atom.style}{{{atom.latex}}}"
    return atom.latex


def _joined(tokens: list[str], on: list[Atom]) -> str:
    """Tokens joined: three \\cdot in a row are \\cdots, three periods \\ldots, integral signs in a row
    \\iint and \\iiint, "(mod m)" \\pmod{m}."""
    text = " ".join(tokens)
    for single, triple in (("\\cdot", "\\cdots"), (".", "\\ldots")):
        text = text.replace(f"{single} {single} {single}", triple)
    text = re.sub(r"\( \\bmod (\S+) \)", r"\\pmod{\1}", text)
    return text.replace("\\int \\int \\int", "\\iiint").replace("\\int \\int", "\\iint")


def _matrices(atoms: list[Atom]) -> list[Atom]:
    """Rows of atoms between a pair of tall delimiters (or after a lone left brace) as one matrix atom:
    pmatrix, bmatrix, vmatrix, Bmatrix, cases, or a binomial."""
    em = _em(atoms)
    tall = sorted((a for a in atoms if (a.kind == "fence" or a.scale) and a.bbox[3] - a.bbox[1] > 1.8 * em),
                  key=lambda a: a.x0)
    for left in tall:
        if left not in atoms or left.latex not in ("(", "[", "|", "\\|", "\\{"):
            continue
        closing = {"(": ")", "[": "]", "|": "|", "\\|": "\\|", "\\{": "\\}"}[left.latex]
        right = next((a for a in tall if a.x0 > left.x1 and a.latex == closing and a in atoms
                      and abs((a.bbox[3] - a.bbox[1]) - (left.bbox[3] - left.bbox[1])) < 0.2 * em), None)
        end = right.x0 if right is not None else float("inf")
        inner = [a for a in atoms if left.x1 - 0.5 <= a.cx <= end and left.bbox[1] <= a.cy <= left.bbox[3]
                 and a is not left and a is not right]
        if right is None and left.latex != "\\{":
            continue
        rows = _rows(inner) if inner else []
        if len(rows) < 2:
            continue
        cells = _cells(rows, em)
        if cells is None:
            continue
        members = [left, *inner] + ([right] if right is not None else [])
        atoms = [a for a in atoms if all(a is not m for m in members)]
        atoms.append(_structure(_matrix_latex(left.latex, right is not None, cells, rows, em), members))
    return atoms


def _cells(rows: list[list[Atom]], em: float) -> list[list[str]] | None:
    """A matrix's cells: columns where every row leaves white space at the same place."""
    intervals = sorted((a.x0, a.x1) for row in rows for a in row)
    columns: list[list[float]] = []
    for x0, x1 in intervals:
        if columns and x0 < columns[-1][1] + COLUMN_GAP * em:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    cells = []
    for row in rows:
        cells.append([_build([a for a in row if c0 <= a.cx <= c1], []) for c0, c1 in columns])
    return cells


def _matrix_latex(left: str, closed: bool, cells: list[list[str]], rows: list[list[Atom]], em: float) -> str:
    if left == "(" and closed and len(cells) == 2 and len(cells[0]) == 1:
        gap = _baseline(rows[1]) - _baseline(rows[0])
        if gap >= 1.28 * em or max(a.size for row in rows for a in row) < FULL_SIZE * em:
            return f"\\binom{{{cells[0][0]}}}{{{cells[1][0]}}}"
    environment = "cases" if not closed else {"(": "pmatrix", "[": "bmatrix", "|": "vmatrix", "\\|": "Vmatrix",
                                                "\\{": "Bmatrix"}[left]
    body = " \\\\ ".join(" & ".join(row) for row in cells)
    return f"\\begin{{{environment}}} {body} \\end{{{environment}}}"
