"""Tables as research papers set them: LaTeX compiled by pdfLaTeX, with exact truth from the source.

A third table set beside `table_classes.py` (drawn with PyMuPDF) and `html_tables.py` (printed by Chromium), made
by the typesetter papers use. Each one-page document holds prose and one or two tables the way papers set them:
results tables (methods against metrics, a dataset heading over its metrics by `\\multicolumn` with
`\\cmidrule`, a stub heading by `\\multirow` over both header rows, means with a `$\\pm$` spread, the best figure
in bold, `--` for a missing one), grouped results (a category cell spanning its rows by `\\multirow`) and
description tables (a `p{}` column whose text wraps over lines). Rules are booktabs', `\\hline`s, a full grid of
`|` and `\\hline`, or none; captions above or below; a note under the table; one or two text columns (a table in a
column scaled to its width, as papers do with `\\resizebox`); Computer Modern, Times or Latin Modern; each page is
also scanned. `make` writes the split in the benchmark's format:

    .venv/bin/python benchmarks/tex_tables.py make /tmp/tex-tables
    ../shared/bench/run.sh /tmp/tex-tables /tmp/tex-tables-run
    .venv/bin/python benchmarks/tex_tables.py report /tmp/tex-tables /tmp/tex-tables-run/scores.json

Needs pdflatex with booktabs and multirow: `make tex-bench-packages` installs them (Debian's texlive-latex-extra).
"""

import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pymupdf
from html_tables import grouped_report, make_folders, split_main, text_box, with_scan, write_manifest
from table_classes import Grid

from engine.types import TableCell

KINDS = ("results", "grouped", "described")
STYLES = ("booktabs", "hlines", "grid", "none")
FONTS = {"cm": "", "times": "\\usepackage{mathptmx}", "lmodern": "\\usepackage{lmodern}\\usepackage[T1]{fontenc}"}
SIZES = ("\\small", "\\footnotesize", "")
METHODS = ["Logistic regression", "Random forest", "SVM (RBF)", "ResNet-50", "ViT-B/16", "BERT-base",
           "RoBERTa-large", "LSTM", "Transformer", "GPT-2 small", "XGBoost", "k-NN", "Baseline", "Ours",
           "Ours (no pretraining)", "+ data augmentation", "+ label smoothing", "Linear probe", "MLP"]
DATASETS = ["CIFAR-10", "ImageNet", "SST-2", "MNLI", "SQuAD", "COCO", "PubMed", "Reddit", "WikiText"]
METRICS = ["Acc.", "F1", "Prec.", "Rec.", "BLEU", "mAP", "AUC", "Top-1", "Top-5", "EM", "Params (M)", "Time (s)",
           "FLOPs (G)", "Loss"]
CATEGORIES = ["Supervised", "Self-supervised", "Zero-shot", "Fine-tuned", "Kernel methods", "Ensembles"]
DESCRIBED = [("CIFAR-10", "Natural images of ten object classes at 32 by 32 pixels", "60,000"),
             ("SST-2", "Movie review sentences labelled with their sentiment", "70,042"),
             ("PubMed", "Abstracts of biomedical articles with their topic", "19,717"),
             ("SQuAD", "Questions on Wikipedia articles whose answer is a span of the text", "107,785"),
             ("MNLI", "Sentence pairs from ten genres labelled for entailment", "432,702"),
             ("Reddit", "Posts from community forums linked by their comments", "232,965"),
             ("COCO", "Everyday scenes with objects outlined and captioned", "328,000"),
             ("WikiText", "Long articles kept whole for language modelling", "28,475")]
TOPICS = ["Results on the test sets", "Comparison with earlier methods", "Ablation of the model's parts",
          "Accuracy and cost of each model", "Datasets used in the experiments", "Scores by method and task"]
PROSE = ["We compare our approach with several strong baselines under the same training budget and report the "
         "mean over five runs with different random seeds.",
         "All models were trained on a single machine with the hyperparameters given in the appendix; the "
         "learning rate was chosen on the validation set.",
         "The differences between the methods are small on the easier tasks but grow with the size of the "
         "dataset, which suggests that the larger models profit from more data.",
         "Removing the pretraining stage costs more than any other single change, while label smoothing helps "
         "only on the smaller datasets.",
         "Each dataset was split into training, validation and test parts as in the original papers, so that the "
         "figures can be compared with published ones."]
NOTE = "Note: mean over five runs; the best result in each column is in bold."


@dataclass
class TexTable:
    """A table to set: its LaTeX, its truth grid, and the words that find it on the page."""

    latex: str
    grid: Grid
    first: str
    last: str


def value(rng: random.Random, spread: bool) -> tuple[str, str]:
    """A result as LaTeX and as the text the page shows: a score, sometimes with its spread, or a missing one."""
    if rng.random() < 0.05:
        return "--", "\u2013"
    mean = f"{rng.uniform(40, 99):.1f}" if rng.random() < 0.7 else f"{rng.uniform(0.1, 0.99):.3f}"
    if spread:
        sd = f"{rng.uniform(0.1, 2.5):.1f}"
        return f"{mean} $\\pm$ {sd}", f"{mean} \u00b1 {sd}"
    return mean, mean


def rule_lines(style: str) -> tuple[str, str, str]:
    """The rules above the table, under its header and under its last row."""
    return {"booktabs": ("\\toprule", "\\midrule", "\\bottomrule"), "hlines": ("\\hline", "\\hline", "\\hline"),
            "grid": ("\\hline", "\\hline", "\\hline"), "none": ("", "", "")}[style]


def column_spec(style: str, aligns: list[str]) -> str:
    return "|" + "|".join(aligns) + "|" if style == "grid" else "".join(aligns)


def results_table(rng: random.Random, style: str, grouped: bool) -> TexTable:
    """Methods against metrics; a dataset heading over its metrics; in `grouped`, a category cell spanning rows."""
    two_level = rng.random() < 0.5
    metrics = rng.sample(METRICS, rng.randint(2, 3) if two_level else rng.randint(2, 5))
    groups = rng.sample(DATASETS, rng.randint(2, 3)) if two_level else [""]
    spread = rng.random() < 0.3
    lead = 2 if grouped else 1
    columns = lead + len(groups) * len(metrics)
    header_rows = 2 if two_level else 1
    top, mid, bottom = rule_lines(style)
    lines = [top] if top else []
    cells: list[TableCell] = []
    stubs = ["Category", "Method"][-lead:]
    if two_level:
        heads = " & ".join(f"\\multirow{{2}}{{*}}{{{stub}}}" for stub in stubs)
        heads += " & " + " & ".join(f"\\multicolumn{{{len(metrics)}}}{{c{'|' if style == 'grid' else ''}}}{{{g}}}"
                                    for g in groups) + " \\\\"
        lines.append(heads)
        if style == "booktabs":
            lines.append(" ".join(f"\\cmidrule(lr){{{lead + 1 + i * len(metrics)}-{lead + (i + 1) * len(metrics)}}}"
                                  for i in range(len(groups))))
        elif style == "grid":
            lines.append(f"\\cline{{{lead + 1}-{columns}}}")
        lines.append(" & " * lead + " & ".join(m.replace("%", "\\%") for _ in groups for m in metrics) + " \\\\")
        cells += [TableCell(0, c, stub, row_span=2, header=True) for c, stub in enumerate(stubs)]
        cells += [TableCell(0, lead + i * len(metrics), g, col_span=len(metrics), header=True)
                  for i, g in enumerate(groups)]
        cells += [TableCell(1, lead + i, m, header=True) for i, m in enumerate(metrics * len(groups))]
    else:
        lines.append(" & ".join(stubs + metrics) + " \\\\")
        cells += [TableCell(0, c, text, header=True) for c, text in enumerate(stubs + metrics)]
    lines.append(mid)
    methods = rng.sample(METHODS, rng.randint(4, 9))
    sizes = [len(methods)]
    if grouped:
        cut = sorted(rng.sample(range(2, len(methods) - 1), 1)) if len(methods) >= 5 else []
        sizes = [b - a for a, b in zip([0, *cut], [*cut, len(methods)])]
    body = [[value(rng, spread) for _ in range(columns - lead)] for _ in methods]
    for col in range(columns - lead):  # the best of each column in bold
        best = max(range(len(body)), key=lambda r: body[r][col][1])
        latex, text = body[best][col]
        body[best][col] = (f"\\textbf{{{latex}}}", text) if text != "\u2013" else (latex, text)
    row = header_rows
    start = 0
    for group, size in enumerate(sizes):
        category = rng.choice(CATEGORIES)
        for offset in range(size):
            r = start + offset
            lead_latex = [methods[r]]
            if grouped:
                lead_latex.insert(0, f"\\multirow{{{size}}}{{*}}{{{category}}}" if offset == 0 else "")
                if offset == 0:
                    cells.append(TableCell(row, 0, category, row_span=size))
            cells += [TableCell(row, lead - 1, methods[r])]
            cells += [TableCell(row, lead + c, text) for c, (_, text) in enumerate(body[r])]
            lines.append(" & ".join(lead_latex + [latex for latex, _ in body[r]]) + " \\\\")
            if style == "grid" and not (grouped and offset < size - 1):
                lines.append("\\hline" if r < len(methods) - 1 else "")
            elif style == "grid":
                lines.append(f"\\cline{{2-{columns}}}")
            row += 1
        start += size
        if group < len(sizes) - 1 and style == "booktabs":
            lines.append("\\midrule")
        elif group < len(sizes) - 1 and style == "hlines":
            lines.append("\\hline")
    lines.append(bottom)
    aligns = ["l"] * lead + ["c" if rng.random() < 0.7 else "r"] * (columns - lead)
    latex = f"\\begin{{tabular}}{{{column_spec(style, aligns)}}}\n" + "\n".join(x for x in lines if x) + \
        "\n\\end{tabular}"
    first = cells[0].text if not two_level else groups[0]
    return TexTable(latex, Grid(row, columns, cells), first, body[-1][-1][1])


def described_table(rng: random.Random, style: str) -> TexTable:
    """Datasets with a description that wraps in a `p{}` column, and their size."""
    chosen = rng.sample(DESCRIBED, rng.randint(3, 6))
    heads = ["Dataset", "Description", "Examples"]
    top, mid, bottom = rule_lines(style)
    lines = [top, " & ".join(heads) + " \\\\", mid]
    cells = [TableCell(0, c, text, header=True) for c, text in enumerate(heads)]
    for r, (name, text, size) in enumerate(chosen, start=1):
        lines.append(f"{name} & {text} & {size} \\\\")
        cells += [TableCell(r, 0, name), TableCell(r, 1, text), TableCell(r, 2, size)]
        if style == "grid" and r < len(chosen):
            lines.append("\\hline")
    lines.append(bottom)
    width = rng.choice(["3.2cm", "4cm", "5cm"])
    latex = f"\\begin{{tabular}}{{{column_spec(style, ['l', f'p{{{width}}}', 'r'])}}}\n" + \
        "\n".join(x for x in lines if x) + "\n\\end{tabular}"
    return TexTable(latex, Grid(len(chosen) + 1, 3, cells), "Dataset", chosen[-1][2])


def make_table(rng: random.Random, kind: str, style: str) -> TexTable:
    if kind == "described":
        return described_table(rng, style)
    return results_table(rng, style, grouped=kind == "grouped")


@dataclass
class PageSpec:
    kind: str
    style: str
    font: str
    size: str
    two_columns: bool
    caption_below: bool
    note: bool
    tables: list[TexTable]
    titles: list[str]
    numbers: list[int]
    prose: list[str]


def page_spec(rng: random.Random) -> PageSpec:
    kind, style = rng.choice(KINDS), rng.choice(STYLES)
    count = 1 if rng.random() < 0.7 else 2
    first = rng.randint(1, 6)
    return PageSpec(kind=kind, style=style, font=rng.choice(list(FONTS)), size=rng.choice(SIZES),
                    two_columns=rng.random() < 0.4, caption_below=rng.random() < 0.3, note=rng.random() < 0.4,
                    tables=[make_table(rng, kind, style) for _ in range(count)],
                    titles=rng.sample(TOPICS, count), numbers=[first + i for i in range(count)],
                    prose=rng.sample(PROSE, rng.randint(count, 3)))


def latex_source(spec: PageSpec) -> str:
    """The page: prose and tables in source order, each table placed where it stands (`[H]`)."""
    parts = []
    for index, paragraph in enumerate(spec.prose):
        parts.append(paragraph + "\n")
        if index < len(spec.tables):
            table, title, number = spec.tables[index], spec.titles[index], spec.numbers[index]
            body = table.latex
            if spec.two_columns and table.grid.cols > 3:
                body = f"\\resizebox{{\\columnwidth}}{{!}}{{{body}}}"
            caption = f"\\setcounter{{table}}{{{number - 1}}}\\caption{{{title}}}"
            note = f"\n\n\\vspace{{2pt}}{{\\footnotesize {NOTE}}}" if spec.note else ""
            inner = f"{body}\n{caption}" if spec.caption_below else f"{caption}\n{body}"
            parts.append(f"\\begin{{table}}[H]\\centering{spec.size}\n{inner}{note}\n\\end{{table}}\n")
    options = "twocolumn," if spec.two_columns else ""
    return (f"\\documentclass[{options}10pt]{{article}}\\usepackage{{amsmath,booktabs,multirow,float,graphicx}}"
            f"{FONTS[spec.font]}\\usepackage[margin=2cm]{{geometry}}\\pagestyle{{empty}}\n"
            "\\begin{document}\n" + "\n".join(parts) + "\\end{document}\n")


def compile_page(source: str, out: Path) -> int:
    """pdfLaTeX's PDF of the source at `out`; its page count."""
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "page.tex").write_text(source)
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "page.tex"], cwd=work,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pdflatex failed:\n{done.stdout[-2000:]}")
        shutil.copy(Path(work) / "page.pdf", out)
    with pymupdf.open(out) as document:
        return document.page_count


def truth_blocks(spec: PageSpec, page: pymupdf.Page) -> list[dict]:
    """The page's blocks in reading order (the source's order); boxes from where pdfLaTeX put their words."""
    box = partial(text_box, page)
    out = []
    for index, paragraph in enumerate(spec.prose):
        out.append({"type": "text", "bbox": box(paragraph[:20], paragraph[-12:]), "text": paragraph})
        if index < len(spec.tables):
            table, title, number = spec.tables[index], spec.titles[index], spec.numbers[index]
            caption = {"type": "caption", "bbox": box(title), "text": f"Table {number}: {title}"}
            block = table.grid.block(tuple(box(table.first, table.last)))
            out += [block, caption] if spec.caption_below else [caption, block]
            if spec.note:
                out.append({"type": "footnote", "bbox": box(NOTE[:30]), "text": NOTE})
    return [{"order": i, **block} for i, block in enumerate(out)]


def make_split(folder: Path, count: int, seed: int) -> None:
    if shutil.which("pdflatex") is None:
        sys.exit("make needs pdflatex with multirow: run `make tex-bench-packages`")
    rng = random.Random(seed)
    make_folders(folder)
    files = []
    for index in range(count):
        stem = f"tex-{index + 1:02d}"
        pdf = folder / "born_digital" / f"{stem}.pdf"
        spec = page_spec(rng)
        while compile_page(latex_source(spec), pdf) > 1:
            spec = page_spec(rng)
        with pymupdf.open(pdf) as document:
            page = document[0]
            blocks = truth_blocks(spec, page)
            size = (page.rect.width, page.rect.height)
        files += with_scan(folder, pdf, size, blocks, rng, {
            "table_kind": spec.kind, "style": spec.style, "columns": 2 if spec.two_columns else 1, "font": spec.font,
            "tables": len(spec.tables)})
    write_manifest(folder, "tex-tables", seed, files)


def report(folder: Path, scores: Path) -> None:
    """TEDS and TEDS-structure per table kind, rule style and text columns, from run.sh's scores."""
    grouped_report(folder, scores, lambda entry: [f"kind {entry['table_kind']}", f"style {entry['style']}",
                                                  f"{entry['columns']} column(s)"])


if __name__ == "__main__":
    split_main(__doc__, make_split, report, seed=5, groups="table kind, rule style and text columns")
