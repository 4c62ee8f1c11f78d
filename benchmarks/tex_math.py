"""Display formulas compiled by pdfLaTeX, read back two ways on the same blocks: LaTeX built from the text layer's
glyphs (engine/formula/glyph_layout.py) and the image model's reading of the block's crop.

`make` writes a split of one-page papers with pdfLaTeX: every formula below, in prose, numbered or not, in
five font setups (Computer Modern, Latin Modern, txfonts Times, pxfonts Palatino, Charter text with CM math),
one or two columns, 9-12 pt. `run` runs the engine's stages up to the formula stage on each page, then gives
the formula blocks to each reader and scores each against the source LaTeX:

- exact: the normalized LaTeX (the benchmark's rules: spacing, \\left/\\right, sizes and wrappers dropped)
  equals the source's;
- rendered: the prediction, compiled by pdfLaTeX, looks like the source (same ink, pixel for pixel at
  300 dpi within a tolerance), which counts equal spellings (\\to and \\rightarrow) as equal;
- NED: the benchmark's formula NED (an unmatched formula scores 1).

    .venv/bin/python benchmarks/tex_math.py make /tmp/tex-math      # needs pdflatex (make test installs it)
    .venv/bin/python benchmarks/tex_math.py run /tmp/tex-math [--readers glyphs,model] [-v]
"""

import argparse
import copy
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pymupdf
from rapidfuzz.distance import Levenshtein

EQUATIONS = [  # (source LaTeX, class)
    (r"a_{n} = a_{1} r^{n-1}", "scripts"),
    (r"x_{i}^{2} + y_{j}^{2} = z_{ij}^{2}", "scripts"),
    (r"e^{-\lambda t} \cos(\omega t + \varphi)", "scripts"),
    (r"T_{\mu\nu} = \rho u_{\mu} u_{\nu} + p g_{\mu\nu}", "scripts"),
    (r"2^{2^{n}} + 1", "scripts"),
    (r"R_{ij} - \frac{1}{2} R g_{ij} = 8\pi G T_{ij}", "fraction"),
    (r"\frac{d}{dx} \left( \frac{1}{x} \right) = -\frac{1}{x^{2}}", "fraction"),
    (r"\frac{a}{b} + \frac{c}{d} = \frac{ad + bc}{bd}", "fraction"),
    (r"\frac{1}{1 + \frac{1}{1 + \frac{1}{x}}}", "fraction"),
    (r"F = G \frac{m_{1} m_{2}}{r^{2}}", "fraction"),
    (r"\hat{\beta} = \frac{\sum_{i} x_{i} y_{i}}{\sum_{i} x_{i}^{2}}", "fraction"),
    (r"\sqrt{a^{2} + b^{2}}", "radical"),
    (r"\sqrt[3]{27} = 3", "radical"),
    (r"\sqrt{1 + \sqrt{1 + \sqrt{x}}}", "radical"),
    (r"\frac{\sqrt{5} - 1}{2} \approx 0.618", "radical"),
    (r"c = \sqrt{\frac{E}{\rho}}", "radical"),
    (r"\sum_{k=1}^{n} k^{3} = \left( \frac{n(n+1)}{2} \right)^{2}", "operator"),
    (r"\prod_{p \in P} \frac{1}{1 - p^{-s}}", "operator"),
    (r"\bigcup_{i=1}^{\infty} A_{i} = \Omega", "operator"),
    (r"\int_{-\infty}^{\infty} e^{-x^{2}}\, dx = \sqrt{\pi}", "operator"),
    (r"\iint_{D} f(x, y)\, dx\, dy", "operator"),
    (r"\oint_{\partial S} \mathbf{B} \cdot d\mathbf{l} = \mu_{0} I", "operator"),
    (r"\lim_{n \to \infty} \left( 1 + \frac{1}{n} \right)^{n} = e", "operator"),
    (r"\max_{1 \leq i \leq n} |x_{i}| \leq \|x\|_{2}", "operator"),
    (r"\sum_{i=1}^{m} \sum_{j=1}^{n} a_{ij} x_{i} y_{j}", "operator"),
    (r"\mathbf{u} \times \mathbf{v} = -\mathbf{v} \times \mathbf{u}", "style"),
    (r"f : \mathbb{R}^{n} \to \mathbb{R}", "style"),
    (r"\mathcal{F}\{g\}(\omega) = \int g(t) e^{-i\omega t}\, dt", "style"),
    (r"\mathbb{P}(A \cap B) = \mathbb{P}(A)\, \mathbb{P}(B)", "style"),
    (r"\mathcal{O}(n \log n)", "style"),
    (r"\mathbf{x}^{\top} \mathbf{A} \mathbf{x} > 0", "style"),
    (r"\left[ \frac{\partial^{2}}{\partial x^{2}} + \frac{\partial^{2}}{\partial y^{2}} \right] \psi = 0",
     "delimiters"),
    (r"\left\{ x \in \mathbb{Z} : x^{2} < 10 \right\}", "delimiters"),
    (r"\left| \frac{a}{b} \right| = \frac{|a|}{|b|}", "delimiters"),
    (r"\left\langle \psi \middle| \phi \right\rangle", "delimiters"),
    (r"\left\lfloor \frac{n}{2} \right\rfloor + \left\lceil \frac{n}{2} \right\rceil = n", "delimiters"),
    (r"\hat{y} = \bar{x} + \tilde{z}", "accents"),
    (r"\dot{x} = v, \quad \ddot{x} = a", "accents"),
    (r"\vec{F} = m \vec{a}", "accents"),
    (r"\overline{z_{1} z_{2}} = \bar{z}_{1} \bar{z}_{2}", "accents"),
    (r"\widehat{f * g} = \hat{f} \hat{g}", "accents"),
    (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}^{-1} = \frac{1}{ad - bc} \begin{pmatrix} d & -b \\ -c & a "
     r"\end{pmatrix}", "matrix"),
    (r"\det \begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix} = -2", "matrix"),
    (r"M = \begin{bmatrix} 1 & 0 & 0 \\ 0 & \cos\theta & -\sin\theta \\ 0 & \sin\theta & \cos\theta \end{bmatrix}",
     "matrix"),
    (r"\binom{n}{2} = \frac{n(n-1)}{2}", "matrix"),
    (r"\operatorname{sgn}(x) = \begin{cases} 1 & x > 0 \\ 0 & x = 0 \\ -1 & x < 0 \end{cases}", "matrix"),
    (r"\begin{aligned} x + y &= 3 \\ x - y &= 1 \end{aligned}", "aligned"),
    (r"\begin{aligned} \nabla \cdot \mathbf{E} &= \frac{\rho}{\epsilon_{0}} \\ \nabla \times \mathbf{B} &= "
     r"\mu_{0} \mathbf{J} \end{aligned}", "aligned"),
    (r"\begin{aligned} f(x) &= (x + 1)^{2} \\ &= x^{2} + 2x + 1 \end{aligned}", "aligned"),
    (r"\sin^{2}\theta + \cos^{2}\theta = 1", "names"),
    (r"\log_{2} 8 = 3", "names"),
    (r"\exp(x) = \sum_{n=0}^{\infty} \frac{x^{n}}{n!}", "names"),
    (r"\tanh x = \frac{\sinh x}{\cosh x}", "names"),
    (r"\arg\max_{\theta} \log p(x \mid \theta)", "names"),
    (r"f'(x) = \lim_{h \to 0} \frac{f(x + h) - f(x)}{h}", "names"),
    (r"x \in A \cup B \iff x \in A \lor x \in B", "symbols"),
    (r"\forall \epsilon > 0\ \exists \delta > 0", "symbols"),
    (r"a \equiv b \pmod{m}", "symbols"),
    (r"A \subseteq B \Rightarrow |A| \leq |B|", "symbols"),
    (r"\alpha + \beta + \gamma = \pi", "symbols"),
    (r"\Delta G = \Delta H - T \Delta S", "symbols"),
    (r"x_{1}, x_{2}, \ldots, x_{n}", "symbols"),
    (r"a_{1} + a_{2} + \cdots + a_{n}", "symbols"),
    (r"P(A \mid B) = \frac{P(B \mid A)\, P(A)}{P(B)}", "symbols"),
    (r"\nabla f(\mathbf{x}) = \mathbf{0}", "symbols"),
    (r"\partial_{t} u + u \partial_{x} u = \nu \partial_{x}^{2} u", "symbols"),
    (r"h \nu = E_{2} - E_{1}", "symbols"),
    (r"n \geq 2 \text{ and } n \text{ even}", "text"),
    (r"\psi(x, t) = A e^{i(kx - \omega t)}", "scripts"),
    (r"\sigma_{\bar{x}} = \frac{\sigma}{\sqrt{n}}", "fraction"),
    (r"\zeta(2) = \sum_{n=1}^{\infty} \frac{1}{n^{2}} = \frac{\pi^{2}}{6}", "operator"),
]
PROSE = [
    "The estimates below were checked against the survey tables of the previous year, where the same "
    "quantities were reported with one decimal less.",
    "We keep the notation of the preceding section; the constants are those of the standard model unless "
    "stated otherwise, and all logarithms are natural.",
    "A direct computation gives the following identity, which we use repeatedly in what follows without "
    "further comment.",
    "The proof is elementary but tedious, and it is deferred to the appendix together with the remaining "
    "special cases.",
    "Substituting the boundary values and collecting terms of the same order, one arrives at the relation",
    "For completeness we also record the form that the expression takes in the limit of small amplitudes.",
]
SETUPS = {  # name -> preamble lines
    "cm": "",
    "lmodern": "\\usepackage{lmodern}\\usepackage[T1]{fontenc}",
    "times": "\\usepackage{txfonts}",
    "palatino": "\\usepackage{pxfonts}",
    "charter": "\\usepackage{charter}",
}
TEMPLATE = r"""\documentclass{article}
\usepackage[letterpaper,margin=0.9in]{geometry}
\usepackage{amsmath,amssymb}
%(setup)s
\pagestyle{plain}
\begin{document}
%(columns)s
\fontsize{%(size)s}{%(leading)s}\selectfont
%(body)s
\end{document}
"""
PER_PAGE = 5


def display(latex: str, numbered: bool) -> str:
    """The formula as pdfLaTeX gets it: an aligned block as an align environment, else an equation."""
    if latex.startswith(r"\begin{aligned}"):
        inner = latex[len(r"\begin{aligned}"):-len(r"\end{aligned}")]
        return f"\\begin{{align{'' if numbered else '*'}}}{inner}\\end{{align{'' if numbered else '*'}}}"
    return f"\\begin{{equation}}\n{latex}\n\\end{{equation}}" if numbered else f"\\[\n{latex}\n\\]"


def compile_latex(source: str, work: Path) -> Path | None:
    """The PDF pdfLaTeX makes of `source` in `work`, None when it fails."""
    (work / "page.tex").write_text(source)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "page.tex"], cwd=work,
                          capture_output=True, text=True)
    return work / "page.pdf" if done.returncode == 0 else None


def make_split(folder: Path, seed: int = 7) -> None:
    """One-page papers: each equation in every font setup, PER_PAGE a page, numbered or not at random."""
    if shutil.which("pdflatex") is None:
        sys.exit("make needs pdflatex (Debian: texlive-latex-base texlive-latex-recommended texlive-fonts-recommended)")
    rng = random.Random(seed)
    (folder / "born_digital").mkdir(parents=True, exist_ok=True)
    files = []
    for setup, preamble in SETUPS.items():
        order = EQUATIONS[:]
        rng.shuffle(order)
        for start in range(0, len(order), PER_PAGE):
            chosen = [(latex, kind, rng.random() < 0.5) for latex, kind in order[start:start + PER_PAGE]]
            size = rng.choice([9, 10, 11, 12])
            prose = rng.sample(PROSE, len(chosen))
            body = "\n\n".join(f"{text}\n{display(latex, numbered)}" for (latex, _, numbered), text
                               in zip(chosen, prose))
            source = TEMPLATE % {"setup": preamble, "columns": "\\twocolumn" if rng.random() < 0.3 else "",
                                 "size": size, "leading": round(size * 1.2, 1), "body": body}
            name = f"{setup}-{start // PER_PAGE + 1:02d}"
            with tempfile.TemporaryDirectory() as work:
                pdf = compile_latex(source, Path(work))
                if pdf is None:
                    sys.exit(f"pdflatex failed on {name}")
                shutil.copy(pdf, folder / "born_digital" / f"{name}.pdf")
            files.append({"file": f"born_digital/{name}.pdf", "setup": setup, "size": size,
                          "formulas": [{"latex": latex, "class": kind, "numbered": numbered}
                                       for latex, kind, numbered in chosen]})
    (folder / "manifest.json").write_text(json.dumps({"split": "tex-math", "seed": seed, "files": files}, indent=1))
    print(f"{len(files)} pages, {sum(len(f['formulas']) for f in files)} formulas in {folder}")


# -- scoring

_WRAPPERS = re.compile(r"^(\$\$?|\\\[|\\\(|\\begin\{(equation|displaymath|align|gather)\*?\})|"
                       r"(\$\$?|\\\]|\\\)|\\end\{(equation|displaymath|align|gather)\*?\})$")
_SIZE_AND_STYLE = re.compile(r"\\(left|right|middle|[bB]igg?[lrm]?|displaystyle|textstyle|scriptstyle|nonumber|notag)"
                             r"(?![A-Za-z])")
_SPACING = re.compile(r"\\(,|;|:|!|\s|quad(?![A-Za-z])|qquad(?![A-Za-z]))|~")


def normalize_latex(latex: str) -> str:
    """The benchmark's canonical form (../shared/bench/benchlib/metrics.py): wrappers, tags, sizes, spacing and
    whitespace dropped, \\dfrac and \\tfrac as \\frac, braces around a single script token dropped."""
    text = _WRAPPERS.sub("", (latex or "").strip()).strip()
    text = re.sub(r"\\(tag\*?|label)\{[^{}]*\}", "", text)
    text = re.sub(r"\\(left|right)\.", "", text)
    text = _SIZE_AND_STYLE.sub("", text)
    text = _SPACING.sub("", text)
    text = re.sub(r"\\[dt]frac(?![A-Za-z])", r"\\frac", text)
    text = re.sub(r"([_^])\{\s*(\\[A-Za-z]+|[A-Za-z0-9])\s*\}", r"\1\2", text)
    return re.sub(r"\s+", "", text)


def ned(truth: str, predicted: str) -> float:
    a, b = normalize_latex(truth), normalize_latex(predicted)
    return Levenshtein.normalized_distance(a, b) if a or b else 0.0


def rendered(latex_list: list[str], work: Path) -> list[np.ndarray | None]:
    """Each formula compiled alone on a page and rendered at 300 dpi, cut to its ink; None where it fails."""
    images: list[np.ndarray | None] = []
    for index, latex in enumerate(latex_list):
        folder = work / str(index)
        folder.mkdir(parents=True)
        source = ("\\documentclass{article}\\usepackage{amsmath,amssymb}\\pagestyle{empty}\\begin{document}\n"
                  f"\\[\n{latex}\n\\]\n\\end{{document}}\n")
        pdf = compile_latex(source, folder) if latex.strip() else None
        if pdf is None:
            images.append(None)
            continue
        with pymupdf.open(pdf) as document:
            pixmap = document[0].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
        grey = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width)
        ink = grey < 128
        rows, cols = np.nonzero(ink)
        images.append(ink[rows.min():rows.max() + 1, cols.min():cols.max() + 1] if len(rows) else None)
    return images


def looks_the_same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Same size within 3 pixels and at least 95 % of the ink in common."""
    if a is None or b is None or abs(a.shape[0] - b.shape[0]) > 3 or abs(a.shape[1] - b.shape[1]) > 3:
        return False
    height, width = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    pa, pb = np.zeros((height, width), bool), np.zeros((height, width), bool)
    pa[:a.shape[0], :a.shape[1]], pb[:b.shape[0], :b.shape[1]] = a, b
    union = np.logical_or(pa, pb).sum()
    return union > 0 and np.logical_and(pa, pb).sum() / union >= 0.95


def read_formulas(split: Path, readers: list[str]) -> list[dict]:
    """Each true formula with what each reader made of the formula block matched to it."""
    from engine.config import EngineConfig
    from engine.page_source import PageSource
    from engine.pipeline import build_pipeline
    from engine.stages.formulas import FormulaStage
    from engine.types import PageState
    from pages.pdf import page_input

    pipeline = build_pipeline(EngineConfig(device="cpu"))
    names = [type(stage).__name__ for stage in pipeline.stages]
    before = pipeline.stages[:names.index("FormulaStage")]
    stages = {"glyphs": FormulaStage(None), "model": FormulaStage(pipeline.models["formula"], from_layer=False)}
    manifest = json.loads((split / "manifest.json").read_text())
    found = []
    for entry in manifest["files"]:
        pdf = split / entry["file"]
        with PageSource() as source:
            page = source.document(str(pdf))[0]
            pages = [PageState(input=page_input(page, "0", pdf), source=source)]
            for stage in before:
                pages = stage(pages)
            latex = {}
            for reader in readers:
                read = stages[reader](_copied(pages))
                latex[reader] = [b.formula.latex if b.formula else "" for b in read[0].blocks if b.type == "formula"]
        for truth in entry["formulas"]:
            found.append({"file": entry["file"], "setup": entry["setup"], **truth,
                          "read": {reader: latex[reader] for reader in readers}})
    return found


def _copied(pages: list) -> list:
    """The pages with copies of their blocks, so that each reader fills its own."""
    copies = []
    for page in pages:
        twin = copy.copy(page)
        twin.blocks = [copy.copy(block) for block in page.blocks]
        copies.append(twin)
    return copies


def matched(items: list[dict], predictions: list[str]) -> list[tuple[dict, str]]:
    """Each true formula of a page with the prediction matched to it ("" for none): the closest pairs first, each
    prediction used once."""
    distances = sorted((ned(item["latex"], latex), t, p) for t, item in enumerate(items)
                       for p, latex in enumerate(predictions))
    chosen: dict[int, str] = {}
    used: set[int] = set()
    for _, t, p in distances:
        if t not in chosen and p not in used:
            chosen[t] = predictions[p]
            used.add(p)
    return [(item, chosen.get(t, "")) for t, item in enumerate(items)]


def score(found: list[dict], readers: list[str], verbose: bool) -> dict:
    """Per reader, class and font setup: formulas, exact and rendered matches, mean NED."""
    by_page: dict[str, list[dict]] = defaultdict(list)
    for item in found:
        by_page[item["file"]].append(item)
    results: dict[str, dict[str, list]] = {reader: defaultdict(list) for reader in readers}
    with tempfile.TemporaryDirectory() as work:
        for reader in readers:
            pairs = []
            for items in by_page.values():
                predictions = [latex for latex in items[0]["read"][reader] if latex]
                pairs += matched(items, predictions)
            truths = rendered([item["latex"] for item, _ in pairs], Path(work) / reader / "truth")
            predicted = rendered([p for _, p in pairs], Path(work) / reader / "read")
            for (item, prediction), a, b in zip(pairs, truths, predicted):
                exact = bool(prediction) and normalize_latex(prediction) == normalize_latex(item["latex"])
                same = exact or looks_the_same(a, b)
                distance = ned(item["latex"], prediction) if prediction else 1.0
                for key in (item["class"], item["setup"], "all"):
                    results[reader][key].append((exact, same, distance))
                if verbose and not same:
                    print(f"{reader:6} {item['setup']:8} {item['class']:10} {distance:.2f}\n  true {item['latex']}\n"
                          f"  read {prediction}")
    table = {}
    for reader, groups in results.items():
        table[reader] = {key: {"n": len(values), "exact": round(sum(v[0] for v in values) / len(values), 3),
                               "rendered": round(sum(v[1] for v in values) / len(values), 3),
                               "ned": round(float(np.mean([v[2] for v in values])), 3)}
                         for key, values in sorted(groups.items())}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make", help="write the split")
    make.add_argument("folder", type=Path)
    make.add_argument("--seed", type=int, default=7)
    run = commands.add_parser("run", help="read the split's formulas and score them")
    run.add_argument("split", type=Path)
    run.add_argument("--readers", default="glyphs,model")
    run.add_argument("--json", type=Path, help="write the scores here")
    run.add_argument("-v", "--verbose", action="store_true", help="print every formula a reader got wrong")
    args = parser.parse_args()
    if args.command == "make":
        make_split(args.folder, args.seed)
        return
    readers = args.readers.split(",")
    table = score(read_formulas(args.split, readers), readers, args.verbose)
    print(f"{'':12}" + "".join(f"{reader:>30}" for reader in readers))
    print(f"{'':12}" + "".join(f"{'n  exact  rendered  NED':>30}" for _ in readers))
    for key in table[readers[0]]:
        cells = [table[r][key] for r in readers]
        print(f"{key:12}" + "".join(f"{c['n']:>10} {c['exact']:6.3f} {c['rendered']:9.3f} {c['ned']:5.3f}"
                                    for c in cells))
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
