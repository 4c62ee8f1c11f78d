"""Statistical tables as office software and web pages print them: HTML set by Chromium, with exact truth.

A second table set beside `table_classes.py`, made by another typesetter so that folio is not judged only on
pages drawn the way its own tests draw them. Each one-page document holds one or two tables the way statistical
offices publish them: a numbered title, sometimes a units line, one or two header levels (a year or group heading
spanning its sub-columns, a stub heading spanning the header rows, long headings wrapping over lines), section
rows, parent rows without figures over indented sub-rows, row labels wrapping in a narrow stub, up to ten figure
columns right-aligned with separators, minus signs, brackets and the symbols for missing values, a note and a
source under the table, sometimes prose around it. Borders vary the way they do in practice: none, booktabs-like
rules, a full grid, rules under every row, zebra shading, a filled header, a boxed header over an open body.
Fonts and sizes vary, and each page is also scanned. `make` writes the split in the benchmark's format:

    .venv/bin/python benchmarks/html_tables.py make /tmp/html-tables
    ../shared/bench/run.sh /tmp/html-tables /tmp/html-tables-run
    .venv/bin/python benchmarks/html_tables.py report /tmp/html-tables /tmp/html-tables-run/scores.json

Needs Chromium (Debian's `chromium`) to print the pages.
"""

import argparse
import hashlib
import html
import json
import random
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pymupdf
from formula_crops import scan
from table_classes import LONG_LABELS, MEASURES, PROSE, REGIONS, SECTORS, TOPICS, Grid

from engine.types import TableCell

STYLES = ("none", "booktabs", "grid", "rows", "zebra", "filled", "boxed-head")
FONTS = ("Liberation Sans", "Liberation Serif", "DejaVu Sans", "Liberation Sans Narrow", "TeX Gyre Pagella",
         "Nimbus Sans")
MISSING = ("..", "–", "x", "n/a", "-")
CSS = {
    "none": "",
    "booktabs": "table{border-top:1.5px solid #000;border-bottom:1.5px solid #000}"
                "thead tr:last-child th{border-bottom:0.8px solid #000} th.group{border-bottom:0.6px solid #000}",
    "grid": "td,th{border:0.8px solid #333}",
    "rows": "tr{border-bottom:0.6px solid #888} thead tr:last-child{border-bottom:1.2px solid #000}",
    "zebra": "tbody tr:nth-child(odd){background:#e8eef5} thead{background:#c9d6e6}",
    "filled": "thead th{background:#1f4e79;color:#fff} tbody tr{border-bottom:0.5px solid #bbb}",
    "boxed-head": "thead th{border:0.8px solid #000} table{border-bottom:0.8px solid #000}",
}
LONG_HEADS = ["Persons in employment (thousands)", "Average monthly earnings (euro)", "Share of the total (%)",
              "Change on previous year (%)", "Number of enterprises", "Hours worked per week",
              "Rate per 1,000 inhabitants", "Households with internet access", "Median age (years)",
              "Value added at basic prices"]
PARENTS = ["Industry", "Services", "Households by size", "Age group"]
UNITS = ["(In thousands)", "(Percent)", "(Millions of euro, current prices)", "(Number of persons)"]


def figure(rng: random.Random) -> str:
    """A published figure: thousands separated, a decimal, a change with its sign, or a missing value."""
    kind = rng.random()
    if kind < 0.06:
        return rng.choice(MISSING)
    if kind < 0.45:
        return f"{rng.randint(1, 999_999):,}"
    if kind < 0.75:
        return f"{rng.uniform(0, 100):.1f}"
    value = rng.uniform(-25, 25)
    if rng.random() < 0.3:
        return f"({abs(value):.1f})" if value < 0 else f"{value:.1f}"
    return f"{value:+.1f}".replace("-", "−")


def header_rows(rng: random.Random) -> tuple[list[list[tuple[str, int]]], int]:
    """Header rows as (text, column span) after the stub, and the number of figure columns."""
    if rng.random() < 0.2:
        columns = rng.sample(LONG_HEADS, rng.randint(3, 6))
        return [[(text, 1) for text in columns]], len(columns)
    if rng.random() < 0.45:
        columns = rng.sample(MEASURES + [str(y) for y in range(2015, 2025)], rng.randint(2, 10))
        return [[(text, 1) for text in columns]], len(columns)
    first = rng.randint(2015, 2021)
    groups = [str(first + i) for i in range(rng.randint(2, 3))]
    subs = rng.sample(MEASURES, rng.randint(2, 3))
    return [[(group, len(subs)) for group in groups], [(sub, 1) for group in groups for sub in subs]], \
        len(groups) * len(subs)


def body_rows(rng: random.Random, columns: int) -> list[tuple[str, str, list[str]]]:
    """Body rows as (kind, label, figures); kind is 'row', 'sub' (indented), 'section' (a bold label spanning the
    table) or 'parent' (a label without figures over indented sub-rows)."""
    labels = rng.choice([REGIONS, SECTORS, LONG_LABELS + SECTORS[:4]])
    rows: list[tuple[str, str, list[str]]] = []
    sections = rng.random() < 0.3
    for index, label in enumerate(rng.sample(labels, min(len(labels), rng.randint(4, 10)))):
        if sections and index % 4 == 0:
            rows.append(("section", rng.choice(["Urban areas", "Rural areas", "All households", "Persons aged 15+",
                                                "Public sector", "Private sector"]), []))
        if rng.random() < 0.1:
            rows.append(("parent", rng.choice(PARENTS), [""] * columns))
            rows += [("sub", sub, [figure(rng) for _ in range(columns)]) for sub in rng.sample(MEASURES, 3)]
            continue
        rows.append(("row", label, [figure(rng) for _ in range(columns)]))
        if rng.random() < 0.2:
            for sub in rng.sample(["Men", "Women", "Full-time", "Part-time"], 2):
                rows.append(("sub", sub, [figure(rng) for _ in range(columns)]))
    if rng.random() < 0.5:
        rows.append(("row", "Total", [figure(rng) for _ in range(columns)]))
    return rows


def table_spec(rng: random.Random) -> dict:
    header, columns = header_rows(rng)
    return {"header": header, "columns": columns, "body": body_rows(rng, columns),
            "stub": rng.choice(["", "Region", "Category", "Sector", "Item"]),
            "style": rng.choice(STYLES), "label_width": rng.choice([None, 160, 220]),
            "head_align": rng.choice(["center", "right", "left"]),
            "units": rng.choice(UNITS) if rng.random() < 0.25 else ""}


def table_html(spec: dict, number: int, title: str) -> str:
    """The table as a statistical office's HTML: its title, the table, a note and a source."""
    esc = html.escape
    levels = len(spec["header"])
    parts = [f'<p class="title"><b>Table {number}.</b> {esc(title)}</p>']
    if spec["units"]:
        parts.append(f'<p class="units">{esc(spec["units"])}</p>')
    parts.append("<table><thead>")
    for level, row in enumerate(spec["header"]):
        parts.append("<tr>")
        if level == 0:
            width = f' style="width:{spec["label_width"]}px"' if spec["label_width"] else ""
            parts.append(f'<th rowspan="{levels}" class="stub"{width}>{esc(spec["stub"])}</th>')
        for text, span in row:
            group = ' class="group"' if span > 1 else ""
            narrow = ' style="width:70px"' if len(text) > 12 else ""  # a long heading wraps over lines
            parts.append(f'<th colspan="{span}"{group}>{esc(text)}</th>' if span > 1 else
                         f"<th{narrow}>{esc(text)}</th>")
        parts.append("</tr>")
    parts.append("</thead><tbody>")
    for kind, label, values in spec["body"]:
        if kind == "section":
            parts.append(f'<tr><td class="section" colspan="{spec["columns"] + 1}"><b>{esc(label)}</b></td></tr>')
            continue
        cls = ' class="sub"' if kind == "sub" else (' class="total"' if label == "Total" else "")
        cells = "".join(f'<td class="num">{esc(v)}</td>' for v in values)
        parts.append(f"<tr{cls}><td class=\"label\">{esc(label)}</td>{cells}</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


def grid(spec: dict) -> Grid:
    """The truth of a table: what each cell holds, with its spans. A section row spans the table where the grid's
    rules show it; without them it reads as a label with empty cells beside it."""
    levels = len(spec["header"])
    cells = [TableCell(0, 0, spec["stub"], row_span=levels, header=True)]
    for r, row in enumerate(spec["header"]):
        col = 1
        for text, span in row:
            cells.append(TableCell(r, col, text, col_span=span, header=True))
            col += span
    for r, (kind, label, values) in enumerate(spec["body"], start=levels):
        if kind == "section" and spec["style"] == "grid":
            cells.append(TableCell(r, 0, label, col_span=spec["columns"] + 1))
        elif kind == "section":
            cells += [TableCell(r, 0, label)] + [TableCell(r, c, "") for c in range(1, spec["columns"] + 1)]
        else:
            cells += [TableCell(r, c, text) for c, text in enumerate([label, *values])]
    return Grid(levels + len(spec["body"]), spec["columns"] + 1, cells)


def page_html(rng: random.Random, specs: list[dict], titles: list[str], prose: list[str], first: int) -> str:
    font, size = rng.choice(FONTS), rng.choice([7, 8, 8.5, 9, 10, 11])
    landscape = max(spec["columns"] for spec in specs) > 6 and rng.random() < 0.5
    style = (f"@page{{size:letter{' landscape' if landscape else ''};margin:0.8in}}"
             f"body{{font-family:'{font}';font-size:{size}pt}}"
             "table{border-collapse:collapse;margin:4px 0 6px 0} td,th{padding:2px 7px;vertical-align:bottom}"
             f"th{{text-align:{specs[0]['head_align']};font-weight:bold}} th.stub{{text-align:left}}"
             "td.num{text-align:right;white-space:nowrap} tr.sub td.label{padding-left:20px}"
             "tr.total td{font-weight:bold} p.note{font-size:0.85em;margin:2px 0} p.title{margin:14px 0 4px 0}"
             "p.units{font-size:0.9em;margin:0 0 2px 0;text-align:right;width:100%}"
             + CSS[specs[0]["style"]])
    body = []
    if prose:
        body.append(f"<p>{html.escape(prose[0])}</p>")
    for number, (spec, title) in enumerate(zip(specs, titles), start=first):
        body.append(table_html(spec, number, title))
        body.append('<p class="note">Note: figures may not add up to totals because of rounding.</p>'
                    '<p class="note">Source: National Statistics Office, annual survey.</p>')
    if len(prose) > 1:
        body.append(f"<p>{html.escape(prose[1])}</p>")
    return f"<html><head><meta charset='utf-8'><style>{style}</style></head><body>{''.join(body)}</body></html>"


def print_pdf(markup: str, out: Path) -> None:
    """Chromium's print of the page to PDF."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "page.html"
        source.write_text(markup, encoding="utf-8")
        subprocess.run([shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-pdf-header-footer", f"--user-data-dir={folder}/profile", f"--print-to-pdf={out}",
                        source.as_uri()], check=True, capture_output=True, timeout=120)


def text_box(page: pymupdf.Page, *texts: str) -> list[float]:
    """The box around where the page shows the texts (the first place of each); the page's box if it shows none."""
    found = [r for text in texts if text for r in page.search_for(text)[:1]]  # PyMuPDF finds nothing for ""
    area = pymupdf.Rect(found[0]) if found else pymupdf.Rect(page.rect)
    for rect in found[1:]:
        area |= rect
    return [round(v, 1) for v in area]


def blocks(specs: list[dict], titles: list[str], prose: list[str], first: int, page: pymupdf.Page) -> list[dict]:
    """The page's truth blocks in reading order; boxes from where Chromium put their words."""
    box = partial(text_box, page)
    out = []
    if prose:
        out.append({"type": "text", "bbox": box(prose[0][:40]), "text": prose[0]})
    for number, (spec, title) in enumerate(zip(specs, titles), start=first):
        table = grid(spec)
        out.append({"type": "caption", "bbox": box(title[:40]), "text": f"Table {number}. {title}"})
        if spec["units"]:
            out.append({"type": "text", "bbox": box(spec["units"]), "text": spec["units"]})
        last = spec["body"][-1]
        out.append(table.block(tuple(box(*(t for t, _ in spec["header"][0][:1]), (last[2] or [last[1]])[-1]))))
        out += [{"type": "footnote", "bbox": box(text[:30]), "text": text}
                for text in ("Note: figures may not add up to totals because of rounding.",
                             "Source: National Statistics Office, annual survey.")]
    if len(prose) > 1:
        out.append({"type": "text", "bbox": box(prose[1][:40]), "text": prose[1]})
    return [{"order": i, **block} for i, block in enumerate(out)]


def shortened(prose: list[str], specs: list[dict]) -> tuple[list[str], list[dict]]:
    """Less on the page when it ran over one: the prose first, then the second table, then half the rows."""
    if prose:
        return [], specs
    if len(specs) > 1:
        return prose, specs[:1]
    return prose, [{**specs[0], "body": specs[0]["body"][:max(3, len(specs[0]["body"]) // 2)]}]


def make_split(folder: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    make_folders(folder)
    files = []
    for index in range(count):
        specs = [table_spec(rng) for _ in range(1 if rng.random() < 0.7 else 2)]
        titles = rng.sample(TOPICS, len(specs))
        prose = rng.sample(PROSE, rng.choice([0, 0, 1, 2]))
        first = rng.randint(1, 30)
        stem = f"html-{index + 1:02d}"
        pdf = folder / "born_digital" / f"{stem}.pdf"
        markup = page_html(rng, specs, titles, prose, first)
        while True:
            print_pdf(markup, pdf)
            with pymupdf.open(pdf) as document:
                if document.page_count == 1:
                    page = document[0]
                    truth_blocks = blocks(specs, titles, prose, first, page)
                    size = (page.rect.width, page.rect.height)
                    break
            prose, specs = shortened(prose, specs)
            titles = titles[:len(specs)]
            markup = page_html(rng, specs, titles, prose, first)
        files += with_scan(folder, pdf, size, truth_blocks, rng, {
            "style": specs[0]["style"], "header_levels": max(len(s["header"]) for s in specs), "tables": len(specs)})
    write_manifest(folder, "html-tables", seed, files)


def make_folders(folder: Path) -> None:
    """The split's folders, one a kind, that `with_scan` writes into."""
    for kind in ("born_digital", "scanned"):
        (folder / kind).mkdir(parents=True, exist_ok=True)


def with_scan(folder: Path, pdf: Path, size: tuple[float, float], blocks: list[dict], rng: random.Random,
              details: dict) -> list[dict]:
    """The one-page PDF scanned into `folder/scanned`, the truth of both written beside them: their manifest
    entries, with `details` (and the scan's degradation)."""
    scanned = folder / "scanned" / f"{pdf.stem}-scan.pdf"
    degradation = scan(pdf, scanned, rng)
    entries = []
    for kind, path in (("born_digital", pdf), ("scanned", scanned)):
        gt = folder / kind / f"{path.stem}.gt.json"
        gt.write_text(json.dumps({"document": {"source": f"{kind}/{path.name}", "page_count": 1},
                                  "pages": [{"page_no": 1, "width": size[0], "height": size[1],
                                             "blocks": blocks}]}, indent=1))
        entries.append({"file": f"{kind}/{path.name}", "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                        "kind": kind, "gt": f"{kind}/{gt.name}", "pages": 1, **details,
                        **(degradation if kind == "scanned" else {})})
    return entries


def write_manifest(folder: Path, split: str, seed: int, files: list[dict]) -> None:
    manifest = {"split": split, "seed": seed, "documents": len(files), "expected_distinct_documents": len(files),
                "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(files)} documents in {folder}")


def report(folder: Path, scores: Path) -> None:
    """TEDS and TEDS-structure per border style, header depth and kind, from run.sh's scores."""
    grouped_report(folder, scores, lambda entry: [f"style {entry['style']}",
                                                  f"{entry['header_levels']} header level(s)"])


def grouped_report(folder: Path, scores: Path, groups_of: Callable[[dict], list[str]]) -> None:
    """TEDS and TEDS-structure per group (the names `groups_of` gives a manifest entry), all and kind."""
    entries = {entry["file"]: entry for entry in json.loads((folder / "manifest.json").read_text())["files"]}
    groups: dict[tuple[str, str], dict[str, list[float]]] = {}
    for document in json.loads(scores.read_text())["documents"]:
        for key in [*groups_of(entries[document["file"]]), "all"]:
            into = groups.setdefault((key, document["kind"]), {"teds": [], "struct": []})
            for page in document["pages"]:
                into["teds"] += page.get("teds", [])
                into["struct"] += page.get("teds_struct", [])
    print(f"{'group':22}{'kind':14}{'tables':>7}{'TEDS':>8}{'TEDS-s':>8}")
    for (key, kind), values in sorted(groups.items()):
        teds, struct = (sum(xs) / len(xs) if xs else float("nan") for xs in (values["teds"], values["struct"]))
        print(f"{key:22}{kind:14}{len(values['teds']):7d}{teds:8.3f}{struct:8.3f}")


def split_main(description: str, make: Callable[[Path, int, int], None], report: Callable[[Path, Path], None],
               seed: int, groups: str) -> None:
    """The command line of a generated table split: `make FOLDER [--count N] [--seed S]`, `report FOLDER SCORES`."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    maker = commands.add_parser("make", help="write the split")
    maker.add_argument("folder", type=Path)
    maker.add_argument("--count", type=int, default=24)
    maker.add_argument("--seed", type=int, default=seed)
    summary = commands.add_parser("report", help=f"TEDS per {groups} from run.sh's scores.json")
    summary.add_argument("folder", type=Path)
    summary.add_argument("scores", type=Path)
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder, args.count, args.seed)
    else:
        report(args.folder, args.scores)


if __name__ == "__main__":
    split_main(__doc__, make_split, report, seed=11, groups="style and header depth")
