"""Tables on born-digital pages the tests draw, through PyMuPDF's table finder and folio's rules."""

from pathlib import Path

import pymupdf

from engine.rules import Rule
from engine.stages.table_shape import reshaped
from engine.stages.tables import TableFrame, TableStage, choose_tables, shown_rows, table_candidates
from engine.stages.text_layer import TextLayerStage
from engine.table_grid import make_table
from engine.types import Line, PageState, TableCell
from pages.pdf import page_input
from tests.tex import PROSE as TEX_PROSE
from tests.tex import compile_tex

PROSE = ("The harbour board met four times in the year under review. Its accounts are summarised below, with the "
         "tonnage landed at each quay and the dues collected, as reported by the harbour master.")
BODY = [("Central Library", "120,390", "200,942", "98,952", "175,028"),
        ("Market Street", "131,726", "209,277", "213,752", "75,749"),
        ("Northgate", "240,757", "40,886", "40,565", "137,641")]


def tables_of(path: Path) -> list:
    with pymupdf.open(path) as document:
        item = page_input(document[0], "page", path)
    [page] = TableStage()(TextLayerStage()([PageState(input=item)]))
    return [block.table for block in page.blocks if block.type == "table"]


def rows_of(table) -> list[list[tuple[str, int, bool]]]:
    return [[(c.text, c.col_span, c.header) for c in table.cells if c.row == r] for r in range(table.rows)]


def test_borderless_table_aligned_by_whitespace(tmp_path):
    document = pymupdf.open()
    page = document.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 140), PROSE, fontsize=10)
    rows = [("Quay", "Vessels", "Tonnage", "Dues"), ("North Quay", "112", "48,210", "9,640"),
            ("South Quay", "87", "31,005", "6,201"), ("Coal Wharf", "45", "72,118", "14,423"),
            ("Total", "244", "151,333", "30,264")]
    for r, row in enumerate(rows):
        for x, cell in zip((72, 220, 320, 420), row):
            page.insert_text((x, 170 + r * 16), cell, fontsize=10, fontname="hebo" if r == 0 else "helv")
    page.insert_textbox(pymupdf.Rect(72, 280, 540, 340), PROSE, fontsize=10)
    document.save(tmp_path / "borderless.pdf")
    [table] = tables_of(tmp_path / "borderless.pdf")
    assert [[text for text, _, _ in row] for row in rows_of(table)] == [list(row) for row in rows]
    assert all(header for _, _, header in rows_of(table)[0]) and not any(h for _, _, h in rows_of(table)[1])


def test_booktabs_table_with_a_two_level_spanned_header(tmp_path):
    document = pymupdf.open()
    page = document.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 140), PROSE, fontsize=10)
    top = 160
    page.draw_line((72, top), (520, top), width=1)
    page.insert_text((80, top + 22), "Branch", fontsize=10, fontname="hebo")
    page.insert_text((260, top + 12), "1995", fontsize=10, fontname="hebo")
    page.insert_text((420, top + 12), "1996", fontsize=10, fontname="hebo")
    page.draw_line((220, top + 16), (360, top + 16), width=0.5)
    page.draw_line((380, top + 16), (520, top + 16), width=0.5)
    for x, label in zip((224, 304, 384, 464), ("Loans", "Visits", "Loans", "Visits")):
        page.insert_text((x, top + 28), label, fontsize=10, fontname="hebo")
    page.draw_line((72, top + 33), (520, top + 33), width=0.5)
    for r, row in enumerate(BODY):
        for x, cell in zip((80, 224, 304, 384, 464), row):
            page.insert_text((x, top + 48 + r * 15), cell, fontsize=10)
    page.draw_line((72, top + 90), (520, top + 90), width=1)
    page.insert_textbox(pymupdf.Rect(72, 300, 540, 360), PROSE, fontsize=10)
    document.save(tmp_path / "booktabs.pdf")
    [table] = tables_of(tmp_path / "booktabs.pdf")
    rows = rows_of(table)
    assert [(text, span) for text, span, _ in rows[0] if text] == [("Branch", 1), ("1995", 2), ("1996", 2)]
    assert [c.row_span for c in table.cells if c.text == "Branch"] == [2]  # the stub heads both header rows
    assert [text for text, _, _ in rows[1] if text] == ["Loans", "Visits", "Loans", "Visits"]
    assert all(header for row in rows[:2] for _, _, header in row)
    assert [[text for text, _, _ in row] for row in rows[2:]] == [list(row) for row in BODY]


def line(text: str, x0: float, y0: float, x1: float) -> Line:
    return Line(text=text, bbox=(x0, y0, x1, y0 + 8), size=8)


def flat(rows: list[list[str]]) -> object:
    cells = [TableCell(row=r, col=c, text=t) for r, row in enumerate(rows) for c, t in enumerate(row)]
    return make_table(len(rows), max(len(row) for row in rows), cells)


def test_stacked_lines_in_several_columns_are_rows_but_wrapped_text_is_not():
    stacked = [line("Centre", 100, 100, 140), line("12", 200, 100, 220), line("Market", 100, 112, 140),
               line("7", 200, 112, 220)]
    wrapped = [line("USAGE", 100, 100, 140), line("Usage setting of the", 200, 100, 300),
               line("function.", 200, 112, 240)]
    assert shown_rows(stacked, []) == 2
    assert shown_rows(wrapped, []) == 1


def test_in_a_ruled_grid_the_rules_draw_the_rows():
    lines = [line("OTSL", 100, 102, 140), line("0.965", 200, 102, 230), line("HTML", 100, 112, 140),
             line("0.969", 200, 112, 230)]
    grid = [Rule(90, 100, 300, 100), Rule(90, 125, 300, 125), Rule(180, 100, 180, 125), Rule(250, 100, 250, 125)]
    assert shown_rows(lines, grid) == 1


def test_overlapping_tables_one_kept_by_the_rows_the_page_shows():
    region = (90.0, 95.0, 300.0, 130.0)
    lines = [line("Centre", 100, 100, 140), line("12", 200, 100, 220), line("Market", 100, 112, 140),
             line("7", 200, 112, 220)]
    merged = flat([["Centre Market", "12 7"]])
    per_line = flat([["Centre", "12"], ["Market", "7"]])
    assert choose_tables([(region, per_line)], [(region, merged)], lines, []) == [(region, per_line)]
    assert choose_tables([(region, merged)], [(region, per_line)], lines, []) == [(region, per_line)]
    missing_text = flat([["Centre", ""], ["", ""]])
    assert choose_tables([(region, missing_text)], [(region, merged)], lines, []) == [(region, merged)]


def test_of_two_tables_alike_the_one_whose_rows_begin_at_their_keys_is_kept():
    """A description wrapped over two lines in each row: a finder that cut the rows between the lines of a
    description put its second line into the next row, whose key stands a line lower. The two tables hold the
    same text in as many rows; the one whose rows start where their keys do is kept, whichever proposed it."""
    region = (90.0, 95.0, 300.0, 135.0)
    lines = [line("SST-2", 100, 100, 130), line("Movie reviews labelled", 150, 100, 250), line("70,042", 270, 100, 295),
             line("with their sentiment", 150, 110, 240), line("MNLI", 100, 120, 130),
             line("Sentence pairs from ten", 150, 120, 250), line("432,702", 265, 120, 295),
             line("genres", 150, 130, 180)]

    def table(rows: list[tuple[float, float, list[str]]]) -> object:
        cells = [TableCell(row=r, col=c, text=text, bbox=(x0, top, x1, bottom))
                 for r, (top, bottom, texts) in enumerate(rows)
                 for c, (text, (x0, x1)) in enumerate(zip(texts, [(95, 140), (145, 260), (262, 300)]))]
        return make_table(len(rows), 3, cells)

    keyed = table([(98, 119, ["SST-2", "Movie reviews labelled with their sentiment", "70,042"]),
                   (119, 139, ["MNLI", "Sentence pairs from ten genres", "432,702"])])
    cut = table([(98, 109, ["SST-2", "Movie reviews labelled", "70,042"]),
                 (109, 139, ["MNLI", "with their sentiment Sentence pairs from ten genres", "432,702"])])
    assert choose_tables([(region, keyed)], [(region, cut)], lines, []) == [(region, keyed)]
    assert choose_tables([(region, cut)], [(region, keyed)], lines, []) == [(region, keyed)]


def test_a_caption_the_finder_took_into_its_table_is_left_out_with_its_box():
    from pages.pdf_layout import _without_caption_rows

    def cell(row: int, col: int, text: str, y: float) -> TableCell:
        return TableCell(row=row, col=col, text=text, bbox=(100.0 + 50 * col, y, 150.0 + 50 * col, y + 10))

    placed = [cell(0, 0, "Area", 100), cell(0, 1, "Loans", 100), cell(1, 0, "Centre", 112), cell(1, 1, "12", 112),
              cell(2, 0, "Table 2: Loans", 130), cell(2, 1, "by branch.", 130)]
    kept = _without_caption_rows(placed)
    assert [(c.row, c.text) for c in kept] == [(0, "Area"), (0, "Loans"), (1, "Centre"), (1, "12")]
    assert max(c.bbox[3] for c in kept) == 122


def test_group_labels_centred_on_their_rows_in_a_borderless_table(tmp_path):
    """A paper's results table without rules: each group's label set in the middle of its rows (LaTeX's
    \\multirow), between the two rows of a group of two. Every method keeps its row and each label spans its
    group."""
    document = pymupdf.open()
    page = document.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 140), PROSE, fontsize=10)
    header = ("Category", "Method", "Acc.", "F1")
    body = [("ResNet-50", "76.1", "0.712"), ("ViT-B/16", "81.3", "0.774"), ("Ours", "83.0", "0.791"),
            ("CLIP", "68.3", "0.655"), ("Ours (zero-shot)", "70.2", "0.668")]
    top, pitch = 170, 13
    for x, text in zip((72, 170, 300, 380), header):
        page.insert_text((x, top), text, fontsize=9, fontname="hebo")
    for r, row in enumerate(body, start=1):
        for x, text in zip((170, 300, 380), row):
            page.insert_text((x, top + r * pitch), text, fontsize=9)
    page.insert_text((72, top + 2 * pitch), "Supervised", fontsize=9)
    page.insert_text((72, top + 4.5 * pitch), "Zero-shot", fontsize=9)
    page.insert_textbox(pymupdf.Rect(72, 270, 540, 330), PROSE, fontsize=10)
    document.save(tmp_path / "results.pdf")
    [table] = tables_of(tmp_path / "results.pdf")
    cells = {(c.row, c.col): (c.text, c.row_span) for c in table.cells if c.text}
    assert table.rows == 6
    assert cells[1, 0] == ("Supervised", 3) and cells[4, 0] == ("Zero-shot", 2)
    assert [cells[r, 1][0] for r in range(1, 6)] == [method for method, _, _ in body]


def test_the_finders_cells_are_boxed_by_their_text_so_raised_group_labels_span_their_groups(tmp_path):
    """pdfLaTeX's booktabs table whose group labels are raised half a row, between the rows of their groups, as
    \\multirow sets them. PyMuPDF's finder puts such a label in one row's slot and boxes it by the slot; boxed by its
    words instead, its label is centred on its group and spans it, as in folio's own table."""
    raised = "\\raisebox{1.5ex}[0pt][0pt]{Ensembles}"
    rows = [("", "Ours", "92.4"), ("", "k-NN", "0.653"), (raised, "ResNet-50", "62.0"), ("", "BERT-base", "0.880"),
            ("", "Ours (no pretraining)", "45.1"), ("Baselines", "MLP", "63.0"), ("", "Transformer", "74.8")]
    body = "\n".join(" & ".join(row) + " \\\\" + (" \\midrule" if index == 3 else "")
                     for index, row in enumerate(rows))
    tabular = (f"\\begin{{tabular}}{{llr}}\\toprule\nCategory & Method & mAP \\\\ \\midrule\n{body}\n\\bottomrule"
               "\\end{tabular}")
    path = compile_tex(tmp_path, "groups", f"{TEX_PROSE}\n\n{tabular}\n\n{TEX_PROSE}", "\\usepackage{booktabs}")
    with pymupdf.open(path) as document:
        [page] = TextLayerStage()([PageState(input=page_input(document[0], "page", path))])
    _, found = table_candidates(page, TableFrame.of(page))
    [(region, table)] = found
    [(_, shaped)] = reshaped(region, table)
    assert [(c.row, c.text, c.row_span) for c in shaped.cells if c.col == 0 and c.text] == [
        (0, "Category", 1), (1, "Ensembles", 4), (5, "Baselines", 3)]
