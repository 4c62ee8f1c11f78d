"""The table tools folio is measured against, on the born-digital pages of a benchmark split: TEDS per tool.

camelot (stream and lattice), pdfplumber (its default lines strategy and its text strategy) and PyMuPDF's
`find_tables`, each scored with the benchmark's own matching and TEDS against the split's truth, the way
run.sh scores folio (true tables matched one to one on a page, an unmatched one 0). A cell a tool reports
as covered by its left neighbour (None) widens that neighbour. These tools are not folio's dependencies;
run this from an environment that has them and the scorer's apted and lxml:

    python -m venv /tmp/tools && /tmp/tools/bin/pip install camelot-py pdfplumber pymupdf apted lxml
    /tmp/tools/bin/python benchmarks/table_tools.py --split /tmp/html-tables [--split ../shared/bench/real]
"""

import argparse
import html
import json
import sys
from collections.abc import Callable
from pathlib import Path

Rows = list[list[str | None]]


def rows_html(rows: Rows) -> str:
    """A tool's rows as HTML; a None cell joins the cell on its left as a column span."""
    parts = ["<table>"]
    for row in rows:
        cells: list[list] = []
        for value in row:
            if value is None and cells:
                cells[-1][1] += 1
            else:
                cells.append([value or "", 1])
        parts.append("<tr>" + "".join(f"<td{f' colspan={span}' if span > 1 else ''}>"
                                      f"{html.escape(' '.join(text.split()))}</td>" for text, span in cells)
                     + "</tr>")
    return "".join(parts) + "</table>"


def camelot_tables(flavor: str) -> Callable[[Path, int], list[Rows]]:
    def read(pdf: Path, page_no: int) -> list[Rows]:
        import camelot
        return [table.df.values.tolist() for table in camelot.read_pdf(str(pdf), pages=str(page_no), flavor=flavor)]
    return read


def pdfplumber_tables(strategy: str) -> Callable[[Path, int], list[Rows]]:
    def read(pdf: Path, page_no: int) -> list[Rows]:
        import pdfplumber
        settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}
        with pdfplumber.open(pdf) as document:
            return document.pages[page_no - 1].extract_tables(settings)
    return read


def pymupdf_tables(pdf: Path, page_no: int) -> list[Rows]:
    import pymupdf
    with pymupdf.open(pdf) as document:
        return [table.extract() for table in document[page_no - 1].find_tables().tables]


TOOLS = {"camelot-stream": camelot_tables("stream"), "camelot-lattice": camelot_tables("lattice"),
         "pdfplumber-lines": pdfplumber_tables("lines"), "pdfplumber-text": pdfplumber_tables("text"),
         "pymupdf": pymupdf_tables}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, action="append", required=True, help="benchmark split (repeatable)")
    parser.add_argument("--bench", type=Path, default=Path("../shared/bench"), help="the benchmark (its scorer)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.bench.resolve()))
    from benchlib.scoring import _table_scores  # the scorer's own matching and TEDS

    for split in args.split:
        scores: dict[str, list[float]] = {name: [] for name in TOOLS}
        for entry in json.loads((split / "manifest.json").read_text())["files"]:
            if entry["kind"] != "born_digital":
                continue
            for page in json.loads((split / entry["gt"]).read_text())["pages"]:
                truth = [{"table": block["table"]} for block in page["blocks"] if block["type"] == "table"]
                if not truth:
                    continue
                for name, read in TOOLS.items():
                    try:
                        found = read(split / entry["file"], page["page_no"])
                    except Exception as error:  # a tool that fails on a page scores 0 there, as folio would
                        print(f"{name} failed on {entry['file']} p{page['page_no']}: {error}", file=sys.stderr)
                        found = []
                    scores[name] += _table_scores(truth, [{"table": {"html": rows_html(rows)}} for rows in found])[0]
        for name, values in scores.items():
            print(f"{split.name:16}{name:18}{len(values):5d} tables  TEDS {sum(values) / max(1, len(values)):.3f}")


if __name__ == "__main__":
    main()
