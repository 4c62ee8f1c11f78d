"""Tables per source on born-digital pages: folio's ruled-table rules, PyMuPDF's table finder, and the choice.

For every born-digital page of a split with true tables, each source's tables are scored against the
truth with the benchmark's TEDS (true tables matched one to one, best first; an unmatched true table
scores 0), so the criterion that picks a source per region can be checked against what each source
would have scored alone. Needs ../shared/bench on the path (its scorer) and apted and lxml installed.

    .venv/bin/python benchmarks/table_sources.py [--split ../shared/bench/real] [--split ../shared/bench/dev]
"""

import argparse
import json
import sys
from pathlib import Path

import pymupdf

from engine.stages.layout import LayoutStage
from engine.stages.tables import TableFrame, choose_tables, table_candidates
from engine.stages.text_layer import TextLayerStage
from engine.types import PageState
from pages.pdf import page_input


def page_tables(pdf: Path, page_no: int) -> dict[str, list[str]]:
    """The HTML of each source's tables on one page: own, finder, chosen."""
    with pymupdf.open(pdf) as document:
        item = page_input(document[page_no - 1], "page", pdf)
    [state] = LayoutStage(None)(TextLayerStage()([PageState(input=item)]))
    frame = TableFrame.of(state)
    own, found = table_candidates(state, frame)
    chosen = choose_tables(own, found, frame.lines, frame.rules)
    return {name: [table.html for _, table in tables]
            for name, tables in (("own", own), ("finder", found), ("chosen", chosen))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, action="append", help="benchmark split folders (repeatable)")
    args = parser.parse_args()
    splits = args.split or [Path("../shared/bench/real"), Path("../shared/bench/dev")]
    sys.path.insert(0, str(splits[0].resolve().parent))
    from benchlib.scoring import _table_scores  # the scorer's own matching and TEDS

    for split in splits:
        totals: dict[str, list[float]] = {"own": [], "finder": [], "chosen": []}
        manifest = json.loads((split / "manifest.json").read_text())
        for entry in manifest["files"]:
            if entry["kind"] != "born_digital" or not entry.get("tables"):
                continue
            truth = json.loads((split / entry["gt"]).read_text())
            for page in truth["pages"]:
                true_tables = [{"table": b["table"]} for b in page["blocks"] if b["type"] == "table"]
                if not true_tables:
                    continue
                predicted = page_tables(split / entry["file"], page["page_no"])
                scores = {name: _table_scores(true_tables, [{"table": {"html": h}} for h in html])[0]
                          for name, html in predicted.items()}
                for name, values in scores.items():
                    totals[name] += values
                print(f"{split.name:5} {entry['file']:45} p{page['page_no']:<3} "
                      + "  ".join(f"{name} {sum(v) / len(v):.3f}" for name, v in scores.items()))
        print(f"{split.name}: " + "  ".join(f"{name} {sum(v) / len(v):.3f} ({len(v)} tables)"
                                            for name, v in totals.items()))


if __name__ == "__main__":
    main()
