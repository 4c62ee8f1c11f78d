"""PDFs the tests make with pdfLaTeX (Debian's texlive packages, which `make test` installs): real TeX output."""

import subprocess
from pathlib import Path

PREAMBLES = {  # font setups: Computer Modern, Latin Modern, txfonts (Times with its own math fonts)
    "cm": "",
    "lmodern": "\\usepackage{lmodern}\\usepackage[T1]{fontenc}",
    "txfonts": "\\usepackage{txfonts}",
}
PROSE = ("The estimates below were checked against the survey tables of the previous year, where the same "
         "quantities were reported with one decimal less.")


def compile_tex(folder: Path, name: str, body: str, preamble: str = "") -> Path:
    """`body` set by pdfLaTeX as an article (amsmath, amssymb) without page numbers: `<folder>/<name>.pdf`."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"{name}.tex"
    source.write_text("\\documentclass{article}\\usepackage{amsmath,amssymb}" + preamble +
                      "\\pagestyle{empty}\\begin{document}\n" + body + "\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name], cwd=folder,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"pdflatex failed on {name}:\n{done.stdout[-1500:]}"
    return folder / f"{name}.pdf"


def display(latex: str) -> str:
    """A formula as a display: an aligned block as align*, anything else as \\[ \\]."""
    if latex.startswith("\\begin{aligned}"):
        return "\\begin{align*}" + latex[len("\\begin{aligned}"):-len("\\end{aligned}")] + "\\end{align*}"
    return f"\\[ {latex} \\]"


def formula_pages(folder: Path, name: str, formulas: list[str], preamble: str = "") -> Path:
    """A PDF with one display formula a page."""
    return compile_tex(folder, name, "\n\\newpage\n".join(display(latex) for latex in formulas), preamble)


DESCRIBED = [("Harbour", "Tonnage landed at the three quays of the harbour in the year", "12,480"),
             ("Markets", "Stalls let at the covered market and the weekly street market", "3,215"),
             ("Libraries", "Loans of books and recordings by the four branch libraries", "240,757"),
             ("Baths", "Admissions to the public baths and the open air pool", "98,952")]


def described_table_pdf(folder: Path, width: str = "3.2cm", two_columns: bool = True) -> Path:
    """A paper's page (in two columns, or one) with a captioned description table set without rules: a name, its
    description wrapped (and justified) in a `p{}` column of the width, a count; prose above and below."""
    rows = "\n".join(f"{name} & {text} & {count} \\\\" for name, text, count in DESCRIBED)
    body = (f"{PROSE} {PROSE}\n\n\\begin{{table}}[h]\\centering\\caption{{Services of the borough}}\n"
            f"\\begin{{tabular}}{{l p{{{width}}} r}}\nService & Description & Count \\\\\n{rows}\n"
            f"\\end{{tabular}}\n\\end{{table}}\n\n{PROSE}")
    return compile_tex(folder, "described", body, "\\twocolumn" if two_columns else "")
