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
