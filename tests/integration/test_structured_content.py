"""Tables and formulas of born-digital documents through the real flow into PostgreSQL: stacked tables stored apart,
a two-level header stored with its spans, a paper's group labels centred on their rows stored spanning them, a
statistical office's row labels stored without their dot leaders, a table typed in Courier stored in its cells, a
table whose figures stand a word space apart stored cell by cell, a TeX formula's LaTeX built from its glyphs."""

from pathlib import Path

from sqlalchemy import Engine, text

from flows.digitize import digitize
from tests import pdfs
from tests.tex import PROSE, compile_tex, display

FORMULA = r"\hat{\beta} = \left( X^{\top} X \right)^{-1} X^{\top} y"
RESULTS = r"""\begin{table}[h]\centering
\begin{tabular}{llrr}
Category & Method & Acc. & F1 \\[2pt]
 & ResNet-50 & 76.1 & 0.712 \\
Supervised & ViT-B/16 & 81.3 & 0.774 \\
 & Ours & 83.0 & 0.791 \\
\smash{\raisebox{-.5\normalbaselineskip}{Zero-shot}} & CLIP & 68.3 & 0.655 \\
 & Ours (zero-shot) & 70.2 & 0.668 \\
\end{tabular}
\caption{Results on the test sets}
\end{table}"""  # no rules; each group's label set in the middle of its rows, as \multirow sets it


def rows(database: Engine, query: str) -> list:
    with database.connect() as connection:
        return connection.execute(text(query)).all()


def test_stacked_tables_headers_and_a_tex_formula_are_stored_as_read(database: Engine, tmp_path: Path):
    folder = tmp_path / "release"
    folder.mkdir()
    pdfs.statistics_pdf(folder)
    pdfs.leaders_pdf(folder)
    pdfs.typed_table_pdf(folder)
    pdfs.narrow_gutters_pdf(folder)
    compile_tex(folder, "paper", f"{PROSE}\n{display(FORMULA)}\n{PROSE}")
    compile_tex(folder, "results", f"{PROSE}\n{RESULTS}\n{PROSE}")
    assert digitize(source=str(folder)).documents_done == 6

    tables = rows(database, "SELECT t.id, t.n_rows, t.n_cols FROM tables t JOIN blocks b ON b.id = t.block_id "
                            "JOIN pages p ON p.id = b.page_id JOIN documents d ON d.id = p.document_id "
                            "WHERE d.first_source LIKE '%statistics.pdf' ORDER BY b.y0")
    assert [(n_rows, n_cols) for _, n_rows, n_cols in tables] == [(5, 5), (4, 5)]  # two tables, not one of ten rows
    cells = rows(database, "SELECT row, col, text, is_header, row_span, col_span FROM table_cells "
                           f"WHERE table_id = {tables[0][0]}")
    first = {(row, col): (cell, header, row_span, col_span) for row, col, cell, header, row_span, col_span in cells}
    assert first[0, 0] == ("Region", True, 2, 1)
    assert first[0, 1] == ("2019", True, 1, 2) and first[0, 3] == ("2020", True, 1, 2)
    assert [first[1, col][0] for col in range(1, 5)] == ["Men", "Women", "Men", "Women"]
    assert first[4, 0] == ("Capital", False, 1, 1) and first[4, 4][0] == "662"
    captions = {caption for (caption,) in rows(database, "SELECT text FROM blocks WHERE type = 'caption'")}
    assert captions == {"Table 1. Employment by region (thousands)", "Table 2. Enterprises by size class",
                        "Table 1: Results on the test sets", "Tableau 2 - Emploi salarie par secteur",
                        "Table 3. Civilian labor force by state", "Table 4. Residents by region"}
    leaders = rows(database, "SELECT text FROM table_cell_details WHERE source LIKE '%leaders.pdf' AND row > 0 "
                             "ORDER BY row, col")
    assert [cell for (cell,) in leaders] == [cell for row in pdfs.LEADERS_TABLE for cell in row]
    typed = rows(database, "SELECT row, col, text, is_header, row_span, col_span FROM table_cell_details "
                           "WHERE source LIKE '%typed.pdf' AND text <> '' ORDER BY row, col")
    assert typed[:7] == [(0, 0, "State", True, 2, 1), (0, 1, "Labor force", True, 1, 2),
                         (0, 3, "Unemployed", True, 1, 2), (1, 1, "2021", True, 1, 1), (1, 2, "2022", True, 1, 1),
                         (1, 3, "2021", True, 1, 1), (1, 4, "2022", True, 1, 1)]
    assert [cell for _, _, cell, header, _, _ in typed if not header] == [
        cell for row in pdfs.TYPED_TABLE for cell in row]

    narrow = rows(database, "SELECT row, col, text, is_header FROM table_cell_details WHERE source LIKE '%narrow.pdf' "
                            "ORDER BY row, col")
    assert [(row, col, cell) for row, col, cell, _ in narrow] == [
        (row, col, cell) for row, cells in enumerate(pdfs.NARROW_TABLE) for col, cell in enumerate(cells)]
    assert {row for row, _, _, header in narrow if header} == {0}

    results = rows(database, "SELECT row, col, text, row_span FROM table_cell_details WHERE source LIKE '%results.pdf' "
                             "AND col < 2 AND text <> '' ORDER BY row, col")
    assert results == [(0, 0, "Category", 1), (0, 1, "Method", 1), (1, 0, "Supervised", 3), (1, 1, "ResNet-50", 1),
                       (2, 1, "ViT-B/16", 1), (3, 1, "Ours", 1), (4, 0, "Zero-shot", 2), (4, 1, "CLIP", 1),
                       (5, 1, "Ours (zero-shot)", 1)]

    [(latex, confidence)] = rows(database, "SELECT latex, confidence FROM formulas")
    assert latex.replace(" ", "") == r"\hat{\beta}=\left(X^{\top}X\right)^{-1}X^{\top}y"
    assert confidence == 1.0
