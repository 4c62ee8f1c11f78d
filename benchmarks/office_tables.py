"""Statistical tables with what statistical offices print and folio's other sets lack, printed by Chromium with
exact truth, as a benchmark split.

Each one-page document holds a numbered title and a table (two for `side-by-side`) of one class:

- leaders: row labels with dot leaders out to their figures (the truth: the label alone);
- digit-groups: figures whose digits are grouped by spaces ("7 590 669"), changes with a decimal comma;
- typed: a release typed in Courier, its columns lined up by spaces, a two-level header ruled off by dashes;
- side-by-side: two ruled tables next to each other, each under its own title;
- turned-heads: column headings turned to run up the page;
- narrow-gutters: up to ten right-aligned figure columns with 3 px of padding.

Fonts and sizes vary (a table too wide for the page is printed smaller until it fits inside the margins: the print
would clip it, and the scan would lack text the truth holds), and each page is also scanned. Score it with the
benchmark's own run.sh; `report` gives TEDS per class:

    .venv/bin/python benchmarks/office_tables.py make /tmp/office-tables
    ../shared/bench/run.sh /tmp/office-tables /tmp/office-tables-run
    .venv/bin/python benchmarks/office_tables.py report /tmp/office-tables /tmp/office-tables-run/scores.json

Needs Chromium (Debian's `chromium`) to print the pages.
"""

import html
import random
from functools import partial
from pathlib import Path

import pymupdf
from html_tables import grouped_report, make_folders, print_pdf, split_main, text_box, with_scan, write_manifest
from table_classes import REGIONS, SECTORS, TOPICS, Grid

from engine.types import TableCell

CLASSES = ("leaders", "digit-groups", "typed", "side-by-side", "turned-heads", "narrow-gutters")
FONTS = ("Liberation Sans", "Liberation Serif", "DejaVu Sans", "Nimbus Sans")
MARGIN = 50.4  # points: the page's margins (0.7 in)


def figure(rng: random.Random, spaced: bool = False) -> str:
    """A count as statistical offices print it: thousands by commas, or by spaces."""
    value = f"{rng.randint(100, 9_999_999):,}"
    return value.replace(",", " ") if spaced else value


def change(rng: random.Random, comma: bool = False) -> str:
    value = f"{rng.uniform(-9.9, 9.9):.1f}"
    return value.replace(".", ",") if comma else value


def spec(rng: random.Random, kind: str) -> dict:
    """What one table holds: its labels, its column headings and body rows of figures."""
    labels = rng.sample(SECTORS if rng.random() < 0.5 else REGIONS, rng.randint(5, 9))
    if kind == "narrow-gutters":
        years = [str(year) for year in range(2024 - rng.randint(6, 10), 2024)]
        rows = [[figure(rng) for _ in years] for _ in labels]
        return {"stub": "Sector" if labels[0] in SECTORS else "Region", "heads": years, "labels": labels,
                "rows": rows}
    heads = [str(year) for year in range(2021, 2021 + rng.randint(2, 3))]
    spaced = kind == "digit-groups"
    rows = [[figure(rng, spaced) for _ in heads] + [change(rng, spaced)] for _ in labels]
    return {"stub": "Sector" if labels[0] in SECTORS else "Region", "heads": [*heads, "Change (%)"],
            "labels": labels, "rows": rows}


def grid(table: dict) -> Grid:
    """The truth of a table of one header row."""
    cells = [TableCell(0, 0, table["stub"], header=True)]
    cells += [TableCell(0, c, head, header=True) for c, head in enumerate(table["heads"], start=1)]
    for r, (label, row) in enumerate(zip(table["labels"], table["rows"]), start=1):
        cells += [TableCell(r, c, text) for c, text in enumerate([label, *row])]
    return Grid(len(table["labels"]) + 1, len(table["heads"]) + 1, cells)


def typed_grid(table: dict) -> Grid:
    """The truth of a typed table: a stub heading and the change's (typed over two lines) over both header rows,
    the figures' heading over its years."""
    years = table["heads"][:-1]
    cells = [TableCell(0, 0, table["stub"], row_span=2, header=True),
             TableCell(0, 1, "Employed (thousands)", col_span=len(years), header=True),
             TableCell(0, len(years) + 1, "Change (%)", row_span=2, header=True)]
    cells += [TableCell(1, c, year, header=True) for c, year in enumerate(years, start=1)]
    for r, (label, row) in enumerate(zip(table["labels"], table["rows"]), start=2):
        cells += [TableCell(r, c, text) for c, text in enumerate([label, *row])]
    return Grid(len(table["labels"]) + 2, len(years) + 2, cells)


def typed_text(table: dict) -> str:
    """The typed release: columns lined up by spaces, the header ruled off by a line of dashes."""
    years = table["heads"][:-1]
    width = max(len(label) for label in table["labels"]) + 3
    figures = "".join(f"{year:>12}" for year in years)
    head = " " * width + f"{'Employed (thousands)':^{12 * len(years)}}" + f"{'Change':>9}"
    lines = [head, f"{table['stub']:<{width}}{figures}{'(%)':>9}", "-" * (width + 12 * len(years) + 9)]
    lines += [f"{label:<{width}}" + "".join(f"{value:>12}" for value in row[:-1]) + f"{row[-1]:>9}"
              for label, row in zip(table["labels"], table["rows"])]
    return "\n".join(lines)


def table_html(table: dict, kind: str) -> str:
    """A table of one header row as the class sets it."""
    turned = "style='writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;height:7em'"
    heads = "".join(f"<th {turned if kind == 'turned-heads' else ''}>{html.escape(head)}</th>"
                    for head in table["heads"])
    rows = []
    for label, row in zip(table["labels"], table["rows"]):
        shown = f"{label} {'.' * max(6, 45 - len(label))}" if kind == "leaders" else label
        rows.append(f"<tr><td class='label'>{html.escape(shown)}</td>"
                    + "".join(f"<td class='num'>{html.escape(value)}</td>" for value in row) + "</tr>")
    return (f"<table><tr class='head'><th class='stub'>{html.escape(table['stub'])}</th>{heads}</tr>"
            f"{''.join(rows)}</table>")


def page_html(rng: random.Random, kind: str, tables: list[dict], titles: list[str]) -> str:
    font, size = rng.choice(FONTS), rng.choice([7, 8, 9])
    padding = "1px 3px" if kind == "narrow-gutters" else "1px 6px"
    style = (f"@page{{size:letter;margin:{MARGIN}pt}} body{{font-family:'{font}';font-size:{size}pt}}"
             f"table{{border-collapse:collapse}} td,th{{padding:{padding};vertical-align:bottom}}"
             "th{font-weight:normal;text-align:right} th.stub{text-align:left} td.num{text-align:right;"
             "white-space:nowrap} td.label{white-space:nowrap}"
             "tr.head{border-top:1px solid black;border-bottom:1px solid black} table{border-bottom:1px solid black}"
             "pre{font-family:'Liberation Mono';font-size:8pt} p.title{font-weight:bold;margin:10px 0 4px 0}")
    if kind == "typed":
        body = (f"<p class='title'>Table 1. {html.escape(titles[0])}</p>"
                f"<pre>{html.escape(typed_text(tables[0]))}</pre>")
    else:
        parts = [f"<div><p class='title'>Table {n}. {html.escape(title)}</p>{table_html(table, kind)}</div>"
                 for n, (table, title) in enumerate(zip(tables, titles), start=1)]
        body = f"<div style='display:flex;gap:36px'>{''.join(parts)}</div>" if kind == "side-by-side" \
            else "".join(parts)
    body += "<p>Source: National Statistics Office, annual survey. Figures for the last year are provisional.</p>"
    return f"<html><head><meta charset='utf-8'><style>{style}</style></head><body>{body}</body></html>"


def blocks(kind: str, tables: list[dict], titles: list[str], page: pymupdf.Page) -> list[dict]:
    """The page's truth blocks in reading order; boxes from where Chromium put their words."""
    box = partial(text_box, page)
    out = []
    for n, (table, title) in enumerate(zip(tables, titles), start=1):
        out.append({"type": "caption", "bbox": box(f"Table {n}."), "text": f"Table {n}. {title}"})
        truth = typed_grid(table) if kind == "typed" else grid(table)
        out.append(truth.block(tuple(box(table["labels"][0], table["labels"][-1], table["rows"][-1][-1]))))
    source = "Source: National Statistics Office, annual survey. Figures for the last year are provisional."
    out.append({"type": "footnote", "bbox": box(source[:40]), "text": source})
    return [{"order": i, **block} for i, block in enumerate(out)]


def print_inside_margins(markup: str, pdf: Path) -> None:
    """Print the page, its tables' type smaller by a tenth at a time while a word runs past the right margin: the
    print clips it there, and a scan would not show what the truth holds."""
    for percent in range(100, 40, -10):
        smaller = f"table{{font-size:{percent}%}}</style>"
        print_pdf(markup.replace("</style>", smaller) if percent < 100 else markup, pdf)
        with pymupdf.open(pdf) as document:
            page = document[0]
            if all(word[2] <= page.rect.width - MARGIN + 0.5 for word in page.get_text("words")):
                return
    raise SystemExit(f"{pdf}: a table runs past the right margin even at half its type size")


def make_split(folder: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    make_folders(folder)
    files = []
    for index in range(count):
        kind = CLASSES[index % len(CLASSES)]
        tables = [spec(rng, kind) for _ in range(2 if kind == "side-by-side" else 1)]
        if kind == "side-by-side":
            for table in tables:
                table["labels"], table["rows"] = table["labels"][:6], [row[:2] for row in table["rows"][:6]]
                table["heads"] = table["heads"][:2]
        titles = rng.sample(TOPICS, len(tables))
        pdf = folder / "born_digital" / f"office-{index + 1:02d}.pdf"
        print_inside_margins(page_html(rng, kind, tables, titles), pdf)
        with pymupdf.open(pdf) as document:
            if document.page_count != 1:
                raise SystemExit(f"{pdf} ran over one page")
            page = document[0]
            truth = blocks(kind, tables, titles, page)
            size = (page.rect.width, page.rect.height)
        files += with_scan(folder, pdf, size, truth, rng, {"class": kind})
    write_manifest(folder, "office-tables", seed, files)


def report(folder: Path, scores: Path) -> None:
    """TEDS and TEDS-structure per class, from run.sh's scores."""
    grouped_report(folder, scores, lambda entry: [entry["class"]])


if __name__ == "__main__":
    split_main(__doc__, make_split, report, seed=7, groups="class")
