"""Display formulas on pages this script makes itself, next to a benchmark split: formula NED per kind.

The dev split's formulas are few and fixed; tuning crop and decoding rules to them does not carry
over to other formulas. `make` writes a split of its own with pdfLaTeX (amsmath, CM math, Charter,
Palatino or Times text at 9-14 pt, one or two columns): numbered and unnumbered display equations,
fractions, sums and integrals with limits, matrices, cases and two-line aligned equations, prose with
inline math around them; each page also as a scan (rendered at 150-300 dpi, turned by up to 1.5
degrees, blurred, grey paper, noise, JPEG). `run` runs the engine on a split (this one or
../shared/bench/dev) and prints every true formula with its prediction and the formula NED per kind,
scored as the benchmark scores it (normalized LaTeX, best one-to-one match per page, unmatched = 1).

    .venv/bin/python benchmarks/formula_crops.py make /tmp/formula-set     # needs pdflatex (texlive)
    .venv/bin/python benchmarks/formula_crops.py run /tmp/formula-set [--cache /tmp/formula-cache]
    .venv/bin/python benchmarks/formula_crops.py run ../shared/bench/dev --only-formulas

`--cache` keeps each page after the text, OCR and layout stages (the slow ones), so that a second
run only repeats the stages from tables on; clear it when those stages change.
"""

import argparse
import hashlib
import json
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import pymupdf

BENCH = Path("../shared/bench")  # the benchmark (its scorer, benchlib), from the project root

# -- the split

FORMULAS = [  # (LaTeX as set on the page and as the truth, kind)
    (r"\int_{0}^{1} x^{2}\, dx = \frac{1}{3}", "integral"),
    (r"e^{i\pi} + 1 = 0", "short"),
    (r"\lim_{x \to 0} \frac{\sin x}{x} = 1", "limit"),
    (r"f(x) = \sum_{k=0}^{\infty} \frac{f^{(k)}(a)}{k!} (x-a)^{k}", "sum"),
    (r"x = \frac{-b \pm \sqrt{b^{2} - 4ac}}{2a}", "fraction"),
    (r"\Gamma(z) = \int_{0}^{\infty} t^{z-1} e^{-t}\, dt", "integral"),
    (r"\sigma^{2} = \frac{1}{N} \sum_{i=1}^{N} (x_{i} - \mu)^{2}", "sum"),
    (r"H(p) = -\sum_{i} p_{i} \log p_{i}", "sum"),
    (r"\frac{\partial u}{\partial t} = \alpha \frac{\partial^{2} u}{\partial x^{2}}", "fraction"),
    (r"\binom{n}{k} = \frac{n!}{k!\,(n-k)!}", "fraction"),
    (r"a_{n+1} = a_{n} + d", "short"),
    (r"\|x\|_{2} = \left( \sum_{i=1}^{n} x_{i}^{2} \right)^{1/2}", "sum"),
    (r"\prod_{k=1}^{n} (1 + x_{k}) \leq \exp\left( \sum_{k=1}^{n} x_{k} \right)", "sum"),
    (r"\oint_{C} \mathbf{F} \cdot d\mathbf{r} = 0", "integral"),
    (r"A = \begin{bmatrix} a & b \\ c & d \end{bmatrix}", "matrix"),
    (r"\det \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix} = 1", "matrix"),
    (r"|x| = \begin{cases} x & x \geq 0 \\ -x & x < 0 \end{cases}", "cases"),
    (r"\mathbf{A}\mathbf{x} = \lambda \mathbf{x}", "short"),
    (r"p(x) = \frac{1}{\sqrt{2\pi\sigma^{2}}} e^{-\frac{(x-\mu)^{2}}{2\sigma^{2}}}", "fraction"),
    (r"\sum_{n=0}^{\infty} r^{n} = \frac{1}{1-r}", "sum"),
    (r"\nabla^{2} \phi = 0", "short"),
    (r"E = \frac{1}{2} m v^{2} + m g h", "fraction"),
    (r"\int_{a}^{b} f'(x)\, dx = f(b) - f(a)", "integral"),
    (r"\mathrm{Var}(X) = \mathbb{E}[X^{2}] - (\mathbb{E}[X])^{2}", "short"),
    (r"\begin{aligned} (a+b)^{2} &= a^{2} + 2ab + b^{2} \\ (a-b)^{2} &= a^{2} - 2ab + b^{2} \end{aligned}",
     "aligned"),
    (r"\begin{aligned} u_{t} &= k\, u_{xx} \\ u(0,t) &= u(L,t) = 0 \end{aligned}", "aligned"),
    (r"\begin{aligned} \dot{x} &= \sigma (y - x) \\ \dot{y} &= x (\rho - z) - y \end{aligned}", "aligned"),
    (r"\log_{b} (xy) = \log_{b} x + \log_{b} y", "short"),
]
PROSE = [
    "The measurements were taken over three seasons at the northern station, where the instrument "
    "drift stayed below the tolerance given by the manufacturer.",
    "We write $x_{i}$ for the $i$-th observation and $n$ for the size of the sample; unless stated "
    "otherwise, every sum runs over the whole sample.",
    "A short calculation shows that the estimate is unbiased, and its variance falls as the sample grows, "
    "which matches what the simulations in the appendix suggest.",
    "The boundary conditions fix the solution at both ends of the rod, so only the initial profile "
    "remains free; we take it to be a smooth bump centred at $x = L/2$.",
    "Readers who prefer matrices may skip this section: the argument in the next one does not depend on "
    "it, and the notation there is self-contained.",
    "The same bound holds for every $k \\geq 1$, with a constant that depends on the dimension but not on "
    "the step size $h$ of the grid.",
    "In practice the series converges quickly, and the first four terms already give an error smaller "
    "than the precision of the recorded values.",
    "The committee asked for the derivation to be spelled out in full, since earlier drafts left the "
    "key step to the reader.",
]
FONTS = {"charter": r"\usepackage{charter}", "palatino": r"\usepackage{mathpazo}", "times": r"\usepackage{times}"}
TEMPLATE = r"""\RequirePackage{fix-cm}
\documentclass{article}
\usepackage[letterpaper,margin=%(margin)sin]{geometry}
\usepackage{amsmath,amssymb}
%(font)s
\pagestyle{plain}
\begin{document}
%(columns)s
\fontsize{%(size)s}{%(leading)s}\selectfont
\section*{%(title)s}
%(body)s
\end{document}
"""


def display(latex: str, numbered: bool) -> str:
    """The formula as a display on the page: aligned ones as an align environment (one number, last line)."""
    if latex.startswith(r"\begin{aligned}"):
        inner = latex[len(r"\begin{aligned}"):-len(r"\end{aligned}")]
        if numbered:
            return "\\begin{align}" + inner.replace(r"\\", r"\nonumber \\") + "\\end{align}"
        return "\\begin{align*}" + inner + "\\end{align*}"
    return f"\\begin{{equation}}\n{latex}\n\\end{{equation}}" if numbered else f"\\[\n{latex}\n\\]"


def document_specs(seed: int = 11) -> list[dict]:
    """Eight one-page documents: font, size, columns and 3-4 formulas each (every formula used once)."""
    rng = random.Random(seed)
    formulas = FORMULAS[:]
    rng.shuffle(formulas)
    sizes = [9, 10, 10.5, 11, 12, 12, 13, 14]
    specs, fours = [], len(formulas) - 3 * len(sizes)
    for index, size in enumerate(sizes):
        count = 4 if index < fours else 3
        chosen, formulas = formulas[:count], formulas[count:]
        specs.append({"name": f"own-{index + 1:03d}", "size": size, "font": list(FONTS)[index % 3],
                      "columns": 2 if size <= 10.5 and index % 2 == 0 else 1,
                      "formulas": [(latex, rng.random() < 0.5) for latex, _ in chosen]})
    return specs


def latex_source(spec: dict, seed: int) -> str:
    prose = random.Random(seed).sample(PROSE, len(spec["formulas"]) + 1)
    parts = []
    for (latex, numbered), paragraph in zip(spec["formulas"], prose):
        parts += [paragraph, display(latex, numbered)]
    parts.append(prose[-1])
    size = spec["size"]
    return TEMPLATE % {"margin": 0.9, "font": FONTS[spec["font"]], "size": size, "leading": round(size * 1.22, 1),
                       "columns": r"\twocolumn" if spec["columns"] == 2 else "",
                       "title": "Notes on a worked example", "body": "\n\n".join(parts)}


def truth(spec: dict, pdf: Path, source: str) -> dict:
    with pymupdf.open(pdf) as document:
        assert len(document) == 1, f"{pdf}: {len(document)} pages"
        page = document[0]
        width, height = page.rect.width, page.rect.height
    blocks, number = [], 0
    for latex, numbered in spec["formulas"]:
        number += numbered
        blocks.append({"type": "formula", "latex": latex + (f" \\tag{{{number}}}" if numbered else "")})
    return {"document": {"source": source, "page_count": 1},
            "pages": [{"page_no": 1, "width": width, "height": height, "blocks": blocks}]}


def scan(pdf: Path, out: Path, rng: random.Random) -> dict:
    """The page as a scanner might give it: an image-only page, turned, blurred, on grey paper, noisy, JPEG."""
    dpi = rng.choice([150, 200, 200, 200, 300])
    angle = rng.uniform(-1.5, 1.5)
    with pymupdf.open(pdf) as document:
        page = document[0]
        pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        grey = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width).astype(np.float32)
        width, height = page.rect.width, page.rect.height
    h, w = grey.shape
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    grey = cv2.warpAffine(grey, turn, (w, h), flags=cv2.INTER_LINEAR, borderValue=255.0)
    grey = cv2.GaussianBlur(grey, (0, 0), rng.uniform(0.4, 1.0) * dpi / 200)
    paper, ink = rng.uniform(215, 245), rng.uniform(15, 60)
    light = 1.0 - 0.06 * np.linspace(0, 1, w)[None, :] * rng.choice([-1, 1])  # uneven lighting
    grey = ink + (grey / 255.0) * (paper - ink) * light
    grey += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(3, 8), grey.shape)
    ok, jpeg = cv2.imencode(".jpg", np.clip(grey, 0, 255).astype(np.uint8),
                            [cv2.IMWRITE_JPEG_QUALITY, rng.randint(55, 85)])
    assert ok
    document = pymupdf.open()
    document.new_page(width=width, height=height).insert_image(pymupdf.Rect(0, 0, width, height),
                                                                stream=jpeg.tobytes())
    document.save(out, deflate=True)
    document.close()
    return {"dpi": dpi, "angle": round(angle, 2)}


def make_split(folder: Path, seed: int = 11) -> None:
    if shutil.which("pdflatex") is None:
        sys.exit("make needs pdflatex (Debian: apt-get install texlive-latex-base texlive-latex-recommended "
                 "texlive-fonts-recommended)")
    (folder / "born_digital").mkdir(parents=True, exist_ok=True)
    (folder / "scanned").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    manifest = []
    for index, spec in enumerate(document_specs(seed)):
        with tempfile.TemporaryDirectory() as work:
            tex = Path(work) / "page.tex"
            tex.write_text(latex_source(spec, seed + index))
            done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "page.tex"], cwd=work,
                                  capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"pdflatex failed on {spec['name']}:\n{done.stdout[-2000:]}")
            pdf = folder / "born_digital" / f"{spec['name']}.pdf"
            shutil.copy(Path(work) / "page.pdf", pdf)
        gt = truth(spec, pdf, f"born_digital/{pdf.name}")
        (folder / "born_digital" / f"{spec['name']}.gt.json").write_text(json.dumps(gt, indent=1))
        scanned = folder / "scanned" / f"{spec['name']}-scan.pdf"
        degradation = scan(pdf, scanned, rng)
        gt["document"]["source"] = f"scanned/{scanned.name}"
        (folder / "scanned" / f"{spec['name']}-scan.gt.json").write_text(json.dumps(gt, indent=1))
        for kind, path in (("born_digital", pdf), ("scanned", scanned)):
            manifest.append({"file": f"{kind}/{path.name}", "kind": kind, "gt": f"{kind}/{path.stem}.gt.json",
                             "pages": 1, "size": spec["size"], "font": spec["font"], "columns": spec["columns"],
                             "formulas": len(spec["formulas"]), **(degradation if kind == "scanned" else {})})
    (folder / "manifest.json").write_text(json.dumps({"split": "formula-crops", "seed": seed, "files": manifest},
                                                     indent=1))
    print(f"{len(manifest)} documents in {folder}")


# -- running the engine


def early_and_late(pipeline) -> tuple[list, list]:
    """The pipeline's stages before tables (text layer, OCR, layout: slow, cached) and from tables on."""
    names = [type(stage).__name__ for stage in pipeline.stages]
    cut = names.index("TableStage")
    return pipeline.stages[:cut], pipeline.stages[cut:]


def run_pages(pipeline, pdf: Path, cache: Path | None):
    from dataclasses import replace

    from engine.page_source import PageSource
    from engine.pipeline import _result
    from engine.types import PageState
    from pages.pdf import page_input

    early, late = early_and_late(pipeline)
    key = hashlib.sha256(pdf.read_bytes()).hexdigest()[:24]
    cached = cache / f"{key}.pkl" if cache else None
    with PageSource() as source:
        if cached and cached.is_file():
            pages = [replace(page, source=source) for page in pickle.loads(cached.read_bytes())]
        else:
            pages = [PageState(input=page_input(page, str(index), pdf), source=source)
                     for index, page in enumerate(source.document(str(pdf)))]
            for stage in early:
                pages = stage(pages)
            if cached:  # without the open PDFs, which the late stages take from the source again
                cache.mkdir(parents=True, exist_ok=True)
                cached.write_bytes(pickle.dumps([replace(page, source=None) for page in pages]))
        seconds = {}
        for stage in late:
            started = time.perf_counter()
            pages = stage(pages)
            seconds[type(stage).__name__] = time.perf_counter() - started
    return [_result(page, pipeline.version) for page in pages], seconds


def score(split: Path, cache: Path | None, only_formulas: bool, kinds: list[str], verbose: bool,
          bench: Path = BENCH) -> dict:
    sys.path.insert(0, str(bench.resolve()))
    from benchlib.metrics import formula_ned, normalize_latex
    from benchlib.scoring import _greedy_match

    from engine.config import EngineConfig
    from engine.pipeline import build_pipeline

    manifest = json.loads((split / "manifest.json").read_text())
    pipeline = build_pipeline(EngineConfig(device="cpu"))
    summary = {}
    for kind in kinds:
        entries = [e for e in manifest["files"] if e["kind"] == kind and (not only_formulas or e.get("formulas"))]
        if kind == "scanned" and only_formulas:  # dev's scans do not say how many formulas they hold
            with_formulas = {Path(e["file"]).stem for e in manifest["files"]
                             if e["kind"] == "born_digital" and e.get("formulas")}
            entries = [e for e in manifest["files"] if e["kind"] == kind
                       and Path(e["file"]).stem.removesuffix("-scan") in with_formulas]
        scores, predicted, formula_seconds = [], 0, 0.0
        for entry in entries:
            gt = json.loads((split / entry["gt"]).read_text())
            results, seconds = run_pages(pipeline, split / entry["file"], cache)
            formula_seconds += seconds.get("FormulaStage", 0.0)
            for gt_page, result in zip(gt["pages"], results):
                truths = [b["latex"] for b in gt_page["blocks"] if b["type"] == "formula"]
                preds = [b for b in result.blocks if b.type == "formula"]
                predicted += len(preds)
                latex = [(b.formula.latex if b.formula else "") for b in preds]
                pairs = {(g, p): formula_ned(t, latex[p]) for g, t in enumerate(truths) for p in range(len(preds))}
                matches = _greedy_match(pairs, higher_is_better=False)
                for g, true_latex in enumerate(truths):
                    value = pairs[g, matches[g]] if g in matches else 1.0
                    scores.append(value)
                    if verbose:
                        got = normalize_latex(latex[matches[g]]) if g in matches else "(not found)"
                        box = preds[matches[g]].bbox if g in matches else None
                        where = f"[{', '.join(f'{v:.0f}' for v in box)}]" if box else ""
                        print(f"{value:5.2f} {Path(entry['file']).stem:14} p{gt_page['page_no']} {where:22} "
                              f"{normalize_latex(true_latex)}\n{'':44}{got}")
        summary[kind] = {"formulas": len(scores), "predicted": predicted,
                         "formula_ned": round(float(np.mean(scores)), 3) if scores else None,
                         "unmatched": sum(1 for s in scores if s == 1.0),
                         "seconds_per_formula": round(formula_seconds / max(1, predicted), 2)}
        print(f"{kind}: {summary[kind]}", flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make", help="write the split")
    make.add_argument("folder", type=Path)
    make.add_argument("--seed", type=int, default=11)
    run = commands.add_parser("run", help="run the engine on a split and score its formulas")
    run.add_argument("split", type=Path)
    run.add_argument("--cache", type=Path, help="keep pages after the text, OCR and layout stages here")
    run.add_argument("--kinds", default="born_digital,scanned")
    run.add_argument("--only-formulas", action="store_true", help="only documents that hold formulas")
    run.add_argument("--json", type=Path, help="write the summary here")
    run.add_argument("-q", "--quiet", action="store_true", help="no line per formula")
    run.add_argument("--bench", type=Path, default=BENCH, help="the benchmark folder (for its scorer)")
    args = parser.parse_args()
    if args.command == "make":
        make_split(args.folder, args.seed)
        return
    summary = score(args.split, args.cache, args.only_formulas, args.kinds.split(","), not args.quiet,
                    args.bench)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
