"""What the validation gate sees on a benchmark split: its measures per page, what it flags and quarantines, its cost.

Runs the engine on every page of the split in batches as the flow does, then the gate on each
batch's output, and prints: the distribution of each measure the thresholds apply to (text
coverage of born-digital pages, ink share of rendered pages, box overshoot, thinnest box), the
blocks the gate would repair, demote or drop and the pages it would quarantine, with their
failed checks and what was done, and validation time as a share of engine time per batch.

    .venv/bin/python benchmarks/validation_gate.py [--split ../shared/bench/dev] [--batch-size 8]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.config import EngineConfig  # noqa: E402
from engine.pipeline import build_pipeline  # noqa: E402
from pages.pdf import page_input  # noqa: E402
from validation.gate import batch_rows, get_validator, needs_blocks, repair_page  # noqa: E402


def split_pages(split: Path) -> list[tuple[str, Path, int]]:
    """(kind, pdf, page index) for every page of the split's born-digital and scanned files."""
    manifest = json.loads((split / "manifest.json").read_text())
    pages = []
    for entry in manifest["files"]:
        if entry["kind"] in ("born_digital", "scanned"):
            with pymupdf.open(split / entry["file"]) as document:
                pages.extend((entry["kind"], split / entry["file"], index) for index in range(document.page_count))
    return pages


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    pick = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.0, 0.05, 0.5, 0.95)]
    return "min {:.4f}  p5 {:.4f}  median {:.4f}  p95 {:.4f}  max {:.4f}  (n={})".format(*pick, ordered[-1],
                                                                                        len(ordered))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=Path, default=Path("../shared/bench/dev"))
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()

    pages = split_pages(args.split)
    pipeline = build_pipeline(EngineConfig())
    started = time.perf_counter()
    validator = get_validator()
    print(f"Great Expectations set up in {time.perf_counter() - started:.1f} s (once per worker)")
    measures: dict[str, dict[str, list[float]]] = {}
    engine_seconds = validation_seconds = 0.0
    flagged = []
    for kind in ("born_digital", "scanned"):
        of_kind = [(path, index) for page_kind, path, index in pages if page_kind == kind]
        kind_measures = measures.setdefault(kind, {"coverage": [], "ink": [], "overshoot": [], "min_side": []})
        kind_engine = kind_validation = 0.0
        for start in range(0, len(of_kind), args.batch_size):
            batch = of_kind[start:start + args.batch_size]
            inputs = {}
            for path, index in batch:
                with pymupdf.open(path) as document:
                    key = f"{path.name} p{index + 1}"
                    inputs[key] = page_input(document[index], key, path)
            tick = time.perf_counter()
            results = pipeline(list(inputs.values()))
            tock = time.perf_counter()
            rows = batch_rows(results, inputs)
            found = validator(rows)
            verdicts = {result.key: repair_page(result, found[result.key], needs_blocks(result, inputs[result.key]))
                        for result in results if result.key in found}
            kind_engine += tock - tick
            kind_validation += time.perf_counter() - tock
            for row in rows:
                for measure in ("coverage", "overshoot", "min_side"):
                    if row.get(measure) is not None:
                        kind_measures[measure].append(row[measure])
            kind_measures["ink"].extend(result.ink for result in results if result.ink is not None)
            flagged.extend(verdicts.items())
        engine_seconds += kind_engine
        validation_seconds += kind_validation
        print(f"\n{kind}: engine {kind_engine:.1f} s, validation {kind_validation:.2f} s "
              f"({100 * kind_validation / kind_engine:.1f}% of engine time)")
        for measure, values in kind_measures.items():
            print(f"  {measure:10s} {quantiles(values)}")
    print(f"\nall: validation {validation_seconds:.2f} s = {100 * validation_seconds / engine_seconds:.1f}% of "
          f"engine time {engine_seconds:.1f} s")
    quarantined = sum(verdict.quarantined for _, verdict in flagged)
    print(f"\npages the gate quarantines: {quarantined}; blocks it flags on pages it keeps: "
          f"{sum(verdict.flagged_blocks for _, verdict in flagged)}")
    for key, verdict in flagged:
        for issue in verdict.issues:
            print(f"  {key}: {issue.check} (blocks {list(issue.blocks)}, observed {list(issue.observed)}): "
                  f"{issue.action}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
