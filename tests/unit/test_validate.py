"""The validation gate's measures: LaTeX balance, table HTML against cells, text-layer coverage, ink."""

import numpy as np
import pytest

from engine.ink import ink_share
from engine.stages.tables import make_table
from engine.types import TableCell
from tasks.validate import braces_balanced, environments_balanced, html_agrees, text_coverage


@pytest.mark.parametrize(("latex", "balanced"), [
    (r"\frac{a}{b}", True), (r"\left\{ x \right\}", True), (r"x^{2", False), (r"a}{b", False), ("", True),
])
def test_braces(latex: str, balanced: bool):
    assert braces_balanced(latex) is balanced


@pytest.mark.parametrize(("latex", "balanced"), [
    (r"\begin{array}{cc} a & b \end{array}", True),
    (r"\begin{pmatrix}\begin{matrix} a \end{matrix}\end{pmatrix}", True),
    (r"\begin{matrix} a \end{array}", False),
    (r"\begin{cases} x", False),
    (r"x \end{cases}", False),
])
def test_environments(latex: str, balanced: bool):
    assert environments_balanced(latex) is balanced


def test_html_made_from_the_cells_agrees_and_an_edited_one_does_not():
    table = make_table(3, 3, [TableCell(0, 0, "Year", header=True, col_span=2), TableCell(0, 2, "A & B", header=True),
                              TableCell(1, 0, "1901", row_span=2), TableCell(1, 1, "<5"), TableCell(2, 2, "7")])
    assert html_agrees(table)
    table.html = table.html.replace("<td>7</td>", "<td>8</td>")
    assert not html_agrees(table)
    table.html = "<table><tr><td>broken"
    assert not html_agrees(table)


def test_coverage_ignores_spacing_hyphenation_and_ligatures():
    assert text_coverage("The ﬁrst regis-\nter of 1901", "The first register of 1901") == 1.0
    assert text_coverage("abcd", "ab") == 0.5
    assert text_coverage("   ", "") == 1.0


def test_ink_share_of_blank_speckled_and_written_pages():
    paper = np.full((400, 300, 3), 235, dtype=np.uint8)
    assert ink_share(paper) == 0.0
    speckled = paper.copy()
    speckled[np.random.default_rng(1).random((400, 300)) < 0.0005] = 120  # scanner dust
    assert ink_share(speckled) < 0.002
    written = paper.copy()
    written[50:60, 20:280] = 20  # a line of text
    assert 0.015 < ink_share(written) < 0.03
