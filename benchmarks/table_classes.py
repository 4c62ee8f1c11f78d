"""Statistical tables of the kinds real documents get wrong, made with PyMuPDF with exact truth, as a benchmark split.

Five classes, each a few one-page documents in two fonts, with a scanned copy of each:

- stacked: two or three tables on a page, each under its own title line, a blank band between them, column
  structures that differ from one table to the next;
- wrapped: row labels that wrap over two or three lines, the figures on the label's first or last line;
- headers: two-level column headers (a year over its sub-columns), a stub header spanning both header rows;
- aligned: right-aligned figures of very different widths, headers wider than their columns;
- furniture: a one-page report with a running header, a revision line and a page number around prose and a
  table, which are no body text.

Tables are set without rules, with booktabs-style rules (top, under the header, bottom; partial rules under
spanning headers) or as a full grid. `make` writes the split in the benchmark's format; score it with the
benchmark's own run.sh, then `report` gives TEDS and text per class:

    .venv/bin/python benchmarks/table_classes.py make /tmp/table-classes
    ../shared/bench/run.sh /tmp/table-classes /tmp/table-classes-run
    .venv/bin/python benchmarks/table_classes.py report /tmp/table-classes /tmp/table-classes-run/scores.json
"""

import argparse
import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf
from formula_crops import scan

from engine.table_grid import table_html
from engine.types import TableCell

CLASSES = ("stacked", "wrapped", "headers", "aligned", "furniture")
FONTS = {"helv": ("helv", "hebo"), "times": ("tiro", "tibo")}
REGIONS = ["North", "South", "East", "West", "Central", "Coastal", "Highlands", "Lakeside", "Valley", "Metropolitan",
           "Northern Islands", "Border districts", "Capital region", "Rural west", "Upper basin"]
SECTORS = ["Agriculture, forestry and fishing", "Mining and quarrying", "Manufacturing",
           "Electricity, gas and steam supply", "Water supply and waste management", "Construction",
           "Wholesale and retail trade", "Transportation and storage", "Accommodation and food services",
           "Information and communication", "Financial and insurance activities", "Real estate activities",
           "Professional, scientific and technical activities", "Public administration and defence",
           "Education", "Human health and social work activities", "Arts, entertainment and recreation"]
LONG_LABELS = ["Households with at least one member in paid employment during the reference week",
               "Persons aged 15 to 64 years not in education, employment or training",
               "Dwellings connected to the public sewerage network or an independent system",
               "Enterprises reporting expenditure on research and experimental development",
               "Students enrolled in upper secondary vocational programmes",
               "Recipients of unemployment benefits for more than twelve months",
               "Share of renewable sources in gross final energy consumption",
               "Passenger cars registered for the first time in the reporting year",
               "Visits to general practitioners per inhabitant and year",
               "Municipal waste collected separately for recycling or composting"]
MEASURES = ["Total", "Men", "Women", "Employed", "Unemployed", "Inactive", "Urban", "Rural", "Public", "Private"]
TOPICS = ["Employment by sector", "Population by region", "Household income", "Energy consumption",
          "Labour force survey", "Enterprise statistics", "Housing conditions", "Education and training",
          "Health care resources", "Transport and mobility"]
PROSE = ["The figures in this release are provisional and will be revised when the annual survey is complete. "
         "Totals may differ from the sum of their parts because of rounding.",
         "Compared with the previous quarter, the number of persons in employment rose slightly, while the "
         "unemployment rate remained stable in most regions.",
         "Estimates are based on a sample of households and are subject to sampling error; differences between "
         "regions smaller than two percentage points should be read with care.",
         "The methodology follows the international recommendations adopted in the previous revision of the "
         "classification, so that the series are comparable over time."]
PAGE = pymupdf.paper_rect("letter")
MARGIN = 54.0


@dataclass
class Grid:
    """A table's truth: cells on a grid (every slot covered once), which rows are header rows."""

    rows: int
    cols: int
    cells: list[TableCell]

    def html(self) -> str:
        return table_html(self.rows, self.cells)

    def block(self, bbox: tuple[float, float, float, float]) -> dict:
        return {"type": "table", "bbox": [round(v, 1) for v in bbox],
                "text": " ".join(c.text for c in sorted(self.cells, key=lambda c: (c.row, c.col)) if c.text),
                "table": {"rows": self.rows, "cols": self.cols, "html": self.html(),
                          "cells": [{"row": c.row, "col": c.col, "row_span": c.row_span, "col_span": c.col_span,
                                     "text": c.text, "header": c.header} for c in self.cells]}}


@dataclass
class TableSpec:
    """A table to set: header rows of (text, column span), body rows of cells, where the label column wraps."""

    header: list[list[tuple[str, int]]]
    body: list[list[str]]
    stub: str = ""  # the first column's header, spanning every header row
    rules: str = "booktabs"  # none | booktabs | grid
    label_width: float = 150.0
    figures_on_last_line: bool = False
    size: float = 9.0
    numeric_widths: list[float] = field(default_factory=list)

    @property
    def cols(self) -> int:
        return 1 + sum(span for _, span in self.header[-1])

    def grid(self) -> Grid:
        cells = [TableCell(0, 0, self.stub, row_span=len(self.header), header=True)]
        for r, row in enumerate(self.header):
            col = 1
            for text, span in row:
                cells.append(TableCell(r, col, text, col_span=span, header=True))
                col += span
        top = len(self.header)
        for r, row in enumerate(self.body):
            cells += [TableCell(top + r, c, text) for c, text in enumerate(row)]
        return Grid(top + len(self.body), self.cols, cells)


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and pymupdf.get_text_length(trial, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line]


def draw_table(page: pymupdf.Page, spec: TableSpec, x: float, y: float, fonts: tuple[str, str]) -> float:
    """Sets the table with its top-left corner at (x, y); returns the y under it."""
    regular, bold = fonts
    size, leading, pad = spec.size, spec.size * 1.25, 6.0
    widths = [spec.label_width] + spec.numeric_widths
    xs = [x]
    for width in widths:
        xs.append(xs[-1] + width)
    right = xs[-1]
    rules: list[tuple[float, float, float]] = [(x, right, y)] if spec.rules != "none" else []
    cursor = y + 3.0
    header_top = cursor
    inner_edges: dict[int, float] = {}  # column edges inside a spanning header: drawn from under it
    for r, row in enumerate(spec.header):
        col, depth = 1, 1
        baseline = cursor + size
        for text, span in row:
            left, end = xs[col], xs[col + span]
            lines = wrap(text, bold, size, end - left - pad)
            for i, line in enumerate(lines):
                width = pymupdf.get_text_length(line, bold, size)
                page.insert_text(((left + end) / 2 - width / 2, baseline + i * leading), line, fontname=bold,
                                 fontsize=size)
            if span > 1 and spec.rules != "none" and r < len(spec.header) - 1:
                inset = 2 if spec.rules == "booktabs" else 0
                rules.append((left + inset, end - inset, baseline + (len(lines) - 1) * leading + 3))
                inner_edges.update({k: baseline + (len(lines) - 1) * leading + 3 for k in range(col + 1, col + span)})
            col += span
            depth = max(depth, len(lines))
        cursor += depth * leading + 3.0
    page.insert_text((x + 2, header_top + size), spec.stub, fontname=bold, fontsize=size)
    if spec.rules != "none":
        rules.append((x, right, cursor))
    cursor += 3.0
    row_lines = []
    for row in spec.body:
        label = wrap(row[0], regular, size, spec.label_width - pad)
        figure_line = len(label) - 1 if spec.figures_on_last_line else 0
        for i, line in enumerate(label):
            page.insert_text((x + 2, cursor + size + i * leading), line, fontname=regular, fontsize=size)
        for c, text in enumerate(row[1:], start=1):
            width = pymupdf.get_text_length(text, regular, size)
            page.insert_text((xs[c + 1] - pad / 2 - width, cursor + size + figure_line * leading), text,
                             fontname=regular, fontsize=size)
        cursor += len(label) * leading + 2.0
        row_lines.append(cursor)
    cursor += 2.0
    if spec.rules != "none":
        rules.append((x, right, cursor))
    if spec.rules == "grid":
        rules += [(x, right, line) for line in row_lines[:-1]]
        for index, edge in enumerate(xs):
            page.draw_line((edge, inner_edges.get(index, y)), (edge, cursor), width=0.5)
    for x0, x1, ry in rules:
        page.draw_line((x0, ry), (x1, ry), width=0.6)
    return cursor


def figure(rng: random.Random, scale: int) -> str:
    value = rng.uniform(0.2, 1.0) * 10 ** scale
    if rng.random() < 0.3:
        return f"{value:,.1f}"
    return f"{round(value):,}"


def numeric_widths(spec_rows: list[list[str]], columns: int, size: float, font: str, header_min: float,
                   headers: list[str] | None = None, bold: str = "") -> list[float]:
    """Column widths that fit the figures, at least `header_min`, and the headers given (unwrapped)."""
    widths = []
    for c in range(1, columns + 1):
        widest = max(pymupdf.get_text_length(row[c], font, size) for row in spec_rows)
        if headers:
            widest = max(widest, pymupdf.get_text_length(headers[c - 1], bold, size))
        widths.append(max(widest + 14.0, header_min))
    return widths


def simple_table(rng: random.Random, labels: list[str], size: float, font: str, rules: str,
                 bold: str = "hebo") -> TableSpec:
    columns = rng.randint(2, 5)
    measures = rng.sample(MEASURES, columns)
    scales = [rng.randint(1, 6) for _ in range(columns)]
    body = [[label] + [figure(rng, scales[c]) for c in range(columns)] for label in labels]
    spec = TableSpec(header=[[(m, 1) for m in measures]], body=body, stub=rng.choice(["Region", "Sector", "Item", ""]),
                     rules=rules, size=size, label_width=rng.choice([110.0, 130.0, 160.0]))
    spec.numeric_widths = numeric_widths(body, columns, size, font, 42.0, measures, bold)
    return spec


def stacked_page(rng: random.Random, fonts: tuple[str, str]) -> tuple[list[dict], list]:
    """Two or three tables, each under a title line."""
    blocks, draws = [], []
    y = MARGIN + 20
    rules = rng.choice(["none", "booktabs"])
    size = rng.choice([8.0, 9.0])
    same_columns = rng.random() < 0.5  # the tables share their column layout (a series of the same table)
    first = None
    for number in range(rng.randint(2, 3)):
        title = f"Table {rng.randint(1, 40)}.{number + 1} {rng.choice(TOPICS)}, {rng.randint(2015, 2024)}"
        labels = rng.sample(REGIONS, rng.randint(4, 7))
        spec = simple_table(rng, labels, size, fonts[0], rules, fonts[1])
        if same_columns and first is not None:
            spec.header, spec.stub, spec.label_width = first.header, first.stub, first.label_width
            spec.body = [[label] + [figure(rng, 3) for _ in first.numeric_widths] for label in labels]
            spec.numeric_widths = first.numeric_widths
        first = first or spec
        draws.append(("text", (MARGIN, y), title, fonts[1], size + 1))
        blocks.append({"type": "caption", "text": title, "bbox": [MARGIN, y - size, MARGIN + 300, y + 2]})
        top = y + 8
        draws.append(("table", spec, MARGIN, top))
        bottom = top + estimate_height(spec, fonts)
        blocks.append(spec.grid().block((MARGIN, top, MARGIN + spec.label_width + sum(spec.numeric_widths), bottom)))
        y = bottom + rng.choice([28, 36, 48])
    return blocks, draws


def estimate_height(spec: TableSpec, fonts: tuple[str, str]) -> float:
    """The height draw_table will give the table (drawn on a scratch page)."""
    scratch = pymupdf.open()
    height = draw_table(scratch.new_page(width=PAGE.width, height=PAGE.height), spec, 0, 0, fonts)
    scratch.close()
    return height


def wrapped_page(rng: random.Random, fonts: tuple[str, str]) -> tuple[list[dict], list]:
    size = rng.choice([8.0, 9.0])
    labels = rng.sample(LONG_LABELS + SECTORS, rng.randint(6, 9))
    spec = simple_table(rng, labels, size, fonts[0], rng.choice(["none", "booktabs", "grid"]), fonts[1])
    spec.label_width = rng.choice([120.0, 150.0])
    spec.figures_on_last_line = rng.random() < 0.4
    return single_table_page(rng, fonts, spec)


def headers_page(rng: random.Random, fonts: tuple[str, str]) -> tuple[list[dict], list]:
    size = rng.choice([8.0, 9.0])
    years = sorted(rng.sample(range(2012, 2025), rng.randint(2, 3)))
    subs = rng.sample(MEASURES, rng.randint(2, 3))
    columns = len(years) * len(subs)
    scales = [rng.randint(1, 5)] * columns
    labels = rng.sample(REGIONS, rng.randint(5, 8))
    body = [[label] + [figure(rng, scales[c]) for c in range(columns)] for label in labels]
    spec = TableSpec(header=[[(str(year), len(subs)) for year in years], [(s, 1) for s in subs] * len(years)],
                     body=body, stub=rng.choice(["Region", "Area"]), rules=rng.choice(["none", "booktabs", "grid"]),
                     size=size, label_width=110.0)
    spec.numeric_widths = numeric_widths(body, columns, size, fonts[0], 36.0, subs * len(years), fonts[1])
    return single_table_page(rng, fonts, spec)


def aligned_page(rng: random.Random, fonts: tuple[str, str]) -> tuple[list[dict], list]:
    size = rng.choice([8.0, 9.0])
    columns = rng.randint(3, 5)
    headers = [rng.choice(["Gross value added", "Number of enterprises", "Persons employed", "Turnover (million)",
                           "Change on previous year (%)", "Average monthly earnings"]) for _ in range(columns)]
    labels = rng.sample(SECTORS, rng.randint(6, 10))
    body = [[label] + [figure(rng, rng.randint(0, 7)) for _ in range(columns)] for label in labels]
    spec = TableSpec(header=[[(h, 1) for h in headers]], body=body, stub="Sector",
                     rules=rng.choice(["none", "booktabs"]), size=size, label_width=175.0)
    spec.numeric_widths = numeric_widths(body, columns, size, fonts[0], 30.0)
    return single_table_page(rng, fonts, spec)


def single_table_page(rng: random.Random, fonts: tuple[str, str], spec: TableSpec) -> tuple[list[dict], list]:
    title = f"Table {rng.randint(1, 30)}. {rng.choice(TOPICS)}"
    y = MARGIN + 30
    top = y + 10
    bottom = top + estimate_height(spec, fonts)
    draws = [("text", (MARGIN, y), title, fonts[1], spec.size + 1), ("table", spec, MARGIN, top)]
    blocks = [{"type": "caption", "text": title, "bbox": [MARGIN, y - spec.size, MARGIN + 300, y + 2]},
              spec.grid().block((MARGIN, top, MARGIN + spec.label_width + sum(spec.numeric_widths), bottom))]
    return blocks, draws


def furniture_page(rng: random.Random, fonts: tuple[str, str]) -> tuple[list[dict], list]:
    """A one-page report: running header, revision line and page number around a title, prose and a table."""
    regular, bold = fonts
    header = f"{rng.choice(['Statistical Bulletin', 'Quarterly Release', 'Monthly Report'])} " \
             f"{rng.randint(1, 52)}/{rng.randint(2019, 2025)} — {rng.choice(TOPICS)}"
    revision = rng.choice([f"Revised {rng.randint(1, 28)} {rng.choice(['March', 'June', 'October'])} "
                           f"{rng.randint(2020, 2025)}", f"Rev. {rng.randint(1, 5)}, {rng.randint(2020, 2025)}-"
                           f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", f"Version {rng.randint(1, 4)}.0"])
    number = rng.choice(["1", "Page 1 of 1", "- 1 -", "1/1"])
    top = rng.choice([40.0, 56.0, 72.0])  # the running head's baseline: in the top margin or just below it
    blocks: list[dict] = [{"type": "header", "text": header, "bbox": [MARGIN, top - 10, MARGIN + 300, top + 2]}]
    draws: list = [("text", (MARGIN, top), header, regular, 8.0)]
    revision_at_top = rng.random() < 0.5
    if revision_at_top:
        width = pymupdf.get_text_length(revision, regular, 8.0)
        draws.append(("text", (PAGE.width - MARGIN - width, top), revision, regular, 8.0))
        blocks.append({"type": "header", "text": revision, "bbox": [PAGE.width - MARGIN - width, top - 10,
                                                                   PAGE.width - MARGIN, top + 2]})
    title = rng.choice(TOPICS)
    draws.append(("text", (MARGIN, top + 42), title, bold, 16.0))
    blocks.append({"type": "title", "text": title, "bbox": [MARGIN, top + 26, MARGIN + 300, top + 46]})
    y = top + 62
    for paragraph in rng.sample(PROSE, 2):
        lines = wrap(paragraph, regular, 10.0, PAGE.width - 2 * MARGIN)
        for i, line in enumerate(lines):
            draws.append(("text", (MARGIN, y + 10 + i * 13), line, regular, 10.0))
        blocks.append({"type": "text", "text": " ".join(lines), "bbox": [MARGIN, y, PAGE.width - MARGIN,
                                                                          y + 13 * len(lines)]})
        y += 13 * len(lines) + 12
    spec = simple_table(rng, rng.sample(REGIONS, 5), 9.0, regular, "booktabs", bold)
    table_blocks, table_draws = single_table_page(rng, fonts, spec)
    shift = y - MARGIN
    for kind, *rest in table_draws:
        if kind == "text":
            (tx, ty), *more = rest
            draws.append(("text", (tx, ty + shift), *more))
        else:
            draws.append(("table", rest[0], rest[1], rest[2] + shift))
    for block in table_blocks:
        x0, y0, x1, y1 = block["bbox"]
        blocks.append({**block, "bbox": [x0, y0 + shift, x1, y1 + shift]})
    footer_y = PAGE.height - rng.choice([36.0, 50.0, 64.0])
    width = pymupdf.get_text_length(number, regular, 8.0)
    draws.append(("text", ((PAGE.width - width) / 2, footer_y), number, regular, 8.0))
    blocks.append({"type": "page_number", "text": number, "bbox": [(PAGE.width - width) / 2, footer_y - 8,
                                                                  (PAGE.width + width) / 2, footer_y + 2]})
    if not revision_at_top:
        draws.append(("text", (MARGIN, footer_y), revision, regular, 8.0))
        blocks.append({"type": "footer", "text": revision, "bbox": [MARGIN, footer_y - 8, MARGIN + 150,
                                                                   footer_y + 2]})
    return blocks, draws


MAKERS = {"stacked": stacked_page, "wrapped": wrapped_page, "headers": headers_page, "aligned": aligned_page,
          "furniture": furniture_page}


def render(path: Path, draws: list, fonts: tuple[str, str]) -> None:
    document = pymupdf.open()
    page = document.new_page(width=PAGE.width, height=PAGE.height)
    for kind, *rest in draws:
        if kind == "text":
            point, text, font, size = rest
            page.insert_text(point, text, fontname=font, fontsize=size)
        else:
            spec, x, y = rest
            draw_table(page, spec, x, y, fonts)
    document.save(path)
    document.close()


def truth(blocks: list[dict], source: str) -> dict:
    ordered = [{"order": i, **block} for i, block in enumerate(blocks)]
    return {"document": {"source": source, "page_count": 1},
            "pages": [{"page_no": 1, "width": PAGE.width, "height": PAGE.height, "blocks": ordered}]}


def make_split(folder: Path, per_class: int, seed: int) -> None:
    rng = random.Random(seed)
    for kind in ("born_digital", "scanned"):
        (folder / kind).mkdir(parents=True, exist_ok=True)
    files = []
    for name in CLASSES:
        for index in range(per_class):
            font_name = list(FONTS)[index % len(FONTS)]
            blocks, draws = MAKERS[name](rng, FONTS[font_name])
            stem = f"{name}-{index + 1:02d}"
            pdf = folder / "born_digital" / f"{stem}.pdf"
            render(pdf, draws, FONTS[font_name])
            scanned = folder / "scanned" / f"{stem}-scan.pdf"
            degradation = scan(pdf, scanned, rng)
            for kind, path in (("born_digital", pdf), ("scanned", scanned)):
                gt = folder / kind / f"{path.stem}.gt.json"
                gt.write_text(json.dumps(truth(blocks, f"{kind}/{path.name}"), indent=1))
                files.append({"file": f"{kind}/{path.name}", "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                              "kind": kind, "gt": f"{kind}/{gt.name}", "pages": 1, "class": name, "font": font_name,
                              "tables": sum(1 for b in blocks if b["type"] == "table"),
                              **(degradation if kind == "scanned" else {})})
    manifest = {"split": "table-classes", "seed": seed, "documents": len(files),
                "expected_distinct_documents": len(files), "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(files)} documents in {folder}")


def report(folder: Path, scores: Path) -> None:
    """TEDS (tables matched one to one on the page, an unmatched one 0) and text NED per class and kind."""
    classes = {entry["file"]: entry["class"] for entry in json.loads((folder / "manifest.json").read_text())["files"]}
    results: dict[tuple[str, str], dict[str, list[float]]] = {}
    for document in json.loads(scores.read_text())["documents"]:
        key = (classes[document["file"]], document["kind"])
        into = results.setdefault(key, {"teds": [], "text": []})
        for page in document["pages"]:
            into["teds"] += page.get("teds", [])
            into["text"].append(page["text_ned"])
    print(f"{'class':12}{'kind':14}{'tables':>7}{'TEDS':>8}{'text NED':>10}")
    for name in CLASSES:
        for kind in ("born_digital", "scanned"):
            values = results.get((name, kind), {"teds": [], "text": []})
            teds = sum(values["teds"]) / len(values["teds"]) if values["teds"] else float("nan")
            text = sum(values["text"]) / len(values["text"]) if values["text"] else float("nan")
            print(f"{name:12}{kind:14}{len(values['teds']):7d}{teds:8.3f}{text:10.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("make", help="write the split")
    make.add_argument("folder", type=Path)
    make.add_argument("--per-class", type=int, default=6)
    make.add_argument("--seed", type=int, default=5)
    summary = commands.add_parser("report", help="TEDS and text per class from run.sh's scores.json")
    summary.add_argument("folder", type=Path)
    summary.add_argument("scores", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        make_split(args.folder, args.per_class, args.seed)
    else:
        report(args.folder, args.scores)


if __name__ == "__main__":
    main()
