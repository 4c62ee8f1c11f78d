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
from dataclasses import replace

from engine.formula.glyph_atoms import (
    AXIS,
    FULL_SIZE,
    MAX_RULE_HEIGHT,
    Atom,
    Glyph,
    Unexplained,
    atoms_of,
    em_of,
    spaced,
    structure,
)
from engine.geometry import center_inside, merged_spans, union
from engine.types import BBox

ON_BASELINE = 0.1  # ems a glyph's baseline may differ from its line's and still sit on it
CHAIN_GAP = 0.6  # ems between atoms stacked into one numerator, denominator or limit
ROW_GAP = 0.9  # ems between the baselines of two rows of a multi-line formula or a matrix, at least
COLUMN_GAP = 0.6  # ems of white space that separate two columns of a matrix
NUMBER_GAP = 1.5  # ems between a formula and its equation number, at least
MID_SPACE = 0.2  # ems of space on both sides of a bar set as a relation (\\mid), at least
WIDE_MARK = 0.8  # ems: an accent mark wider than this (a wide hat, marks run together) goes over all it spans
SLACK = 1.0  # points of slack when comparing a rule's ends with what it spans
FUNCTIONS = ("arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det", "dim", "exp",
             "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup", "ln", "log", "max", "min", "Pr", "sec",
             "sin", "sinh", "sup", "tan", "tanh", "bmod", "mod", "argmax", "argmin")
LIMIT_FUNCTIONS = {"lim", "liminf", "limsup", "max", "min", "sup", "inf", "det", "gcd", "Pr", "argmax", "argmin"}
SIDE_SCRIPT_OPERATORS = {"\\int", "\\iint", "\\iiint", "\\oint"}  # TeX sets their limits beside them
STYLED_WORD = re.compile(r"\\(mathbf|mathrm|mathsf|mathtt|mathit|boldsymbol|mathcal|mathbb|mathfrak|mathscr)"
                         r"\{[A-Za-z0-9]\}(?: \\\1\{[A-Za-z0-9]\}){2,}(?![A-Za-z0-9])")
STYLED_LETTER = re.compile(r"\{([A-Za-z0-9])\}")


def formula_latex(glyphs: list[Glyph], rules: list[BBox]) -> str | None:
    """The formula's LaTeX, or None when its glyphs and rules cannot all be explained."""
    atoms = atoms_of(glyphs)
    thin = [rule for rule in rules if rule[3] - rule[1] <= MAX_RULE_HEIGHT and rule[2] - rule[0] > 1.0]
    if not atoms or len(thin) != len(rules):
        return None
    try:
        latex = _build(atoms, thin)
    except Unexplained:
        return None
    return " ".join(latex.split()) or None


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
    return [a for a in atoms if center_inside(a.bbox, region)]


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
                 and a.size < 0.9 * em_of(radicand or [sign])]
        inner = [r for r in _rules_in(rules, region) if r is not over]
        rules = [r for r in rules if r is not over and r not in inner]
        body = _settled(radicand, inner)
        latex = _laid_out(body)
        latex = f"\\sqrt[{_build(index, [])}]{{{latex}}}" if index else f"\\sqrt{{{latex}}}"
        members = [sign, *radicand, *index]
        baseline = _exact_baseline(body) if body else sign.baseline
        atoms = [a for a in atoms if all(a is not m for m in members)]
        atoms.append(structure(latex, members, baseline=baseline))
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
        em = em_of(atoms)
        above, below = _chain(atoms, rule, True, em), _chain(atoms, rule, False, em)
        if not above and not below:
            raise Unexplained("a rule over and under nothing")
        parts, settled = [], []
        for side in (above, below):
            region = union([a.bbox for a in side]) if side else rule
            inner = [r for r in _rules_in(rules, region) if r is not rule]
            rules = [r for r in rules if r not in inner]
            settled.append(_settled(side, inner))
            parts.append(_laid_out(settled[-1]))
        rules = [r for r in rules if r is not rule]
        members = above + below
        if above and below:
            holder = Atom("", "ord", rule, rule[1], em)
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = structure(f"\\frac{{{parts[0]}}}{{{parts[1]}}}", [*members, holder])
        elif below:
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = structure(f"\\overline{{{parts[1]}}}", members, baseline=_exact_baseline(settled[1]))
        else:
            atoms = [a for a in atoms if all(a is not m for m in members)]
            built = structure(f"\\underline{{{parts[0]}}}", members, baseline=_exact_baseline(settled[0]))
        built.bbox = union([built.bbox, rule])
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
        built = structure(f"{accent.latex}{{{_build(base, [])}}}", [accent, *base], baseline=_exact_baseline(base))
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
            last.bbox = union([last.bbox, mark.bbox])
        else:
            joined.append(replace(mark))
    return [a for a in atoms if a.kind != "accent"] + joined


def _baseline_clusters(atoms: list[Atom]) -> list[tuple[float, float, list[Atom]]]:
    """(baseline, width, atoms) of the full-size glyphs set on each baseline, widest first."""
    em = em_of(atoms)
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
    em = em_of(atoms)
    full = [a for a in atoms if a.size >= FULL_SIZE * em] or atoms
    return sum(a.baseline for a in full) / len(full)


def _rows(atoms: list[Atom]) -> list[list[Atom]]:
    """The group's rows, top to bottom: baselines of full-size glyphs a row apart, each with the atoms nearest
    to it."""
    em = em_of(atoms)
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
    found = [x for x in relations if x is not None]
    aligned = len(found) == len(relations) and max(found) - min(found) < 1.5
    lines = [_line(row, relations[i] if aligned else None) for i, row in enumerate(rows)]
    environment = "aligned" if aligned else "gathered"
    return f"\\begin{{{environment}}} " + " \\\\ ".join(lines) + f" \\end{{{environment}}}"


# -- one line


def _line(atoms: list[Atom], align_at: float | None = None) -> str:
    """A line's LaTeX: the atoms on its baseline in order, each with its scripts and limits."""
    em = em_of(atoms)
    baseline = _baseline(atoms)
    axis = baseline - AXIS * em
    on = sorted((a for a in atoms if _on_line(a, baseline, axis, em)), key=lambda a: a.x0)
    off = [a for a in atoms if all(a is not b for b in on)]
    on = _names(on, em)
    on = _without_number(on, em)
    if not on:
        return _in_order(off)
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
        if atom.latex == "|" and index not in fences and spaced(on, index, index, MID_SPACE * em):
            token = "\\mid"
        if index in limits:
            above, below = limits[index]
            token += (f"_{{{_build(below, [])}}}" if below else "") + (f"^{{{_build(above, [])}}}" if above else "")
        if index in scripts:
            if index in limits:
                raise Unexplained(f"{atom.latex} with limits and scripts")
            token += _scripts(scripts[index], baseline, axis)
        tokens.append(token)
    return _joined(tokens)


def _on_line(atom: Atom, baseline: float, axis: float, em: float) -> bool:
    if atom.centred:
        return atom.bbox[1] < axis < atom.bbox[3] and atom.size >= FULL_SIZE * em
    return abs(atom.baseline - baseline) <= ON_BASELINE * em and atom.size >= FULL_SIZE * em


def _in_order(atoms: list[Atom]) -> str:
    """The atoms of a group with no line of its own (none on one baseline at full size), left to right."""
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
            last.bbox = union([last.bbox, atom.bbox])
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


def _joined(tokens: list[str]) -> str:
    """Tokens joined: three \\cdot in a row are \\cdots, three periods \\ldots, integral signs in a row
    \\iint and \\iiint, "(mod m)" \\pmod{m}, three or more letters of one style in a row one word of it."""
    text = STYLED_WORD.sub(lambda word: f"\\{word.group(1)}{{{''.join(STYLED_LETTER.findall(word.group(0)))}}}",
                           " ".join(tokens))
    for single, triple in (("\\cdot", "\\cdots"), (".", "\\ldots")):
        text = text.replace(f"{single} {single} {single}", triple)
    text = re.sub(r"\( \\bmod (\S+) \)", r"\\pmod{\1}", text)
    return text.replace("\\int \\int \\int", "\\iiint").replace("\\int \\int", "\\iint")


def _matrices(atoms: list[Atom]) -> list[Atom]:
    """Rows of atoms between a pair of tall delimiters (or after a lone left brace) as one matrix atom:
    pmatrix, bmatrix, vmatrix, Bmatrix, cases, or a binomial."""
    em = em_of(atoms)
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
        atoms.append(structure(_matrix_latex(left.latex, right is not None, cells, rows, em), members))
    return atoms


def _cells(rows: list[list[Atom]], em: float) -> list[list[str]] | None:
    """A matrix's cells: columns where every row leaves white space at the same place."""
    columns = merged_spans([(a.x0, a.x1) for row in rows for a in row], COLUMN_GAP * em)
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
