"""Engine speed and quality per kind of page, next to Tesseract (OCRmyPDF's engine) on the scans.

Runs the engine directly (no Prefect, no database) on a benchmark split, in batches
as the flow does, and prints pages per second, seconds per page for each stage, and
the page-text NED, table TEDS and formula NED against the split's ground truth (scored by the bench's
own scorer, on the engine's pages as they come out: the document-level steps of the flow, such as
running headers across pages, are left out). Each worker reads its batch's pages
(text layer, PyMuPDF's layout analysis) and parses them, as the flow's tasks do. Stage times
are per page of the batch; with several workers they overlap, so they add up to more than the
wall time. With several workers they are engine worker processes, as in the flow (--threads: threads
of this process). CPU s/page is user + sys time over all threads of this process and of the workers while
they read and parse: what a page costs whatever else runs on the machine.

    .venv/bin/python benchmarks/engine_speed.py [--split ../shared/bench/dev] [--tesseract] [--workers 2]
        [--ocr-models small tiny two-pass]

On a GPU machine (ONNX Runtime with its CUDA provider, onnxruntime-gpu), `--device cuda` gives the GPU's pages/s to
compare with the same command on CPU.
"""

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from statistics import mean

import pymupdf

from engine.config import PIPELINE_DEFAULTS, EngineConfig
from engine.ocr.models import TIERS
from engine.runtime.onnx import threads_per_worker
from pages.budget import page_budget
from pages.engine_processes import EngineProcesses, load_engine
from pages.parsing import READING, PageJob, ParsedPages, pdf_source, read_and_parse
from runs.batches import batch_bounds

KINDS = ("born_digital", "scanned")


def pages_of(split: Path, kind: str) -> list[tuple[Path, int, dict]]:
    """(pdf, page index, ground-truth page) for every page of that kind in the split."""
    manifest = json.loads((split / "manifest.json").read_text())
    pages = []
    for entry in manifest["files"]:
        if entry["kind"] == kind:
            truth = json.loads((split / entry["gt"]).read_text())
            pages.extend((split / entry["file"], page["page_no"] - 1, page) for page in truth["pages"])
    return pages


def engine_run(pages, batch_size: int, workers: int, config: EngineConfig, threads: bool = False):
    """The pages in batches cut as the flow cuts them, `workers` batches at once, each batch's pages read and parsed
    by one worker as the flow does: in engine worker processes (or threads of this process on one pipeline). Returns
    wall seconds, CPU seconds (user + sys, every thread, of this process and of the workers while they read and
    parsed), seconds per page of each stage, and the parsed pages."""
    budget = page_budget()
    jobs = [PageJob(str(number), str(path), index) for number, (path, index, _) in enumerate(pages)]
    batches = [jobs[start:end] for start, end in batch_bounds(len(jobs), batch_size, workers)]
    in_process = threads or workers == 1
    if in_process:
        pipeline = load_engine(config)
    else:
        processes = EngineProcesses(partial(load_engine, config), workers, "")
        processes.start()

    def in_this_process(batch: list[PageJob]) -> ParsedPages:
        with pdf_source() as source:
            return read_and_parse(pipeline, source, batch, budget)

    started, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parsed = list(pool.map(in_this_process if in_process else partial(processes, budget=budget), batches))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if not in_process:
        cpu += sum(part.cpu_seconds for part in parsed)
        processes.close()
    stages: dict[str, float] = defaultdict(float)
    results = [part.results[job.key] for part, batch in zip(parsed, batches) for job in batch]
    for part in parsed:
        for key, result in part.results.items():
            for stage, seconds in {READING: part.reading_seconds[key], **result.stage_seconds}.items():
                stages[stage] += seconds
    return wall, cpu, {k: v / len(results) for k, v in stages.items()}, results


def tesseract_run(pages, jobs: int):
    """Tesseract 5 as OCRmyPDF runs it: one process per page, one thread each, `jobs` at a time."""
    def ocr(item):
        path, index, _ = item
        with pymupdf.open(path) as document:
            png = document[index].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
        result = subprocess.run(["tesseract", "stdin", "stdout", "-l", "eng", "--psm", "3"], input=png,
                                capture_output=True, check=True, env=dict(os.environ, OMP_THREAD_LIMIT="1"))
        return " ".join(result.stdout.decode("utf-8", errors="replace").split())

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        texts = list(pool.map(ocr, pages))
    return time.perf_counter() - started, texts


def quality(bench: Path, pages, parsed: list[list[dict]]) -> str:
    """Text NED over pages, TEDS over tables and formula NED over formulas of the truth, as the bench's scorer
    scores them; `parsed`: each page's blocks in the export's form."""
    sys.path.insert(0, str(bench))
    from benchlib.scoring import score_page

    scores = [score_page(truth, {"blocks": blocks}) for (_, _, truth), blocks in zip(pages, parsed)]
    figures = [("text NED", [score["text_ned"] for score in scores]),
               ("TEDS", [value for score in scores for value in score["teds"]]),
               ("formula NED", [value for score in scores for value in score["formula_ned"]])]
    return ", ".join(f"{name} {mean(values):.3f}" for name, values in figures if values)


def exported(result) -> list[dict]:
    """A parsed page's blocks as the export gives them (shared/contract/export-format.md)."""
    return [{"order": block.order, "type": block.type, "text": block.text,
             **({"table": {"html": block.table.html}} if block.table else {}),
             **({"latex": block.formula.latex} if block.formula else {})} for block in result.blocks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, default=Path("../shared/bench/dev"))
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=1, help="batches at once (FOLIO_WORKERS); each model then "
                        "gets cores/workers threads")
    parser.add_argument("--threads", action="store_true", help="workers as threads of this process on one engine, "
                        "not engine worker processes")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where the models run; on cuda "
                        "the workers are threads of this process on one engine, as in the flow")
    parser.add_argument("--ocr-models", nargs="+", choices=TIERS, default=[PIPELINE_DEFAULTS.ocr_models],
                        help="the OCR model tiers to run, one after the other (FOLIO_OCR_MODELS)")
    parser.add_argument("--ocr-float", action="store_true", help="the float recognizer on CPU, not its int8 variant")
    parser.add_argument("--f32", action="store_true", help="the formula encoder in float32 on CPU, not in bfloat16 "
                        "where the CPU computes it")
    parser.add_argument("--kind", choices=KINDS, action="append", help="only these kinds of page (repeatable)")
    parser.add_argument("--formula-model", default="auto", help="auto | none | junia | a checkpoint folder")
    parser.add_argument("--tesseract", action="store_true", help="also run Tesseract on the scanned pages")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel Tesseract processes")
    args = parser.parse_args()
    bench = args.split.resolve().parent
    config = EngineConfig(device=args.device, formula_model=args.formula_model,
                          threads=threads_per_worker(args.workers), ocr_int8=not args.ocr_float,
                          cpu_bf16=not args.f32)
    threads = args.threads or args.device == "cuda"
    kind_of_worker = "thread" if threads or args.workers == 1 else "process"
    print(f"device {args.device}, CPU threads: {os.cpu_count()}, batch size {args.batch_size}, "
          f"{args.workers} worker {kind_of_worker}(s) of "
          f"{config.threads} thread(s), formula model {args.formula_model}, "
          f"recognizer {'int8' if config.ocr_int8 else 'float'}, "
          f"bf16 {'where the CPU has it' if config.cpu_bf16 else 'off'}")
    for kind in args.kind or KINDS:
        pages = pages_of(args.split, kind)
        for tier in args.ocr_models:
            load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"
            wall, cpu, stages, results = engine_run(pages, args.batch_size, args.workers,
                                                    dataclasses.replace(config, ocr_models=tier), threads)
            print(f"\n{kind}, OCR models {tier}: {len(pages)} pages in {wall:.1f} s = {len(pages) / wall:.2f} "
                  f"pages/s, CPU {cpu / len(pages):.3f} s/page (load before: {load}), "
                  f"{quality(bench, pages, [exported(result) for result in results])}")
            for stage, seconds in stages.items():
                print(f"  {stage:32s} {seconds * 1000:8.1f} ms/page")
        if kind == "scanned" and args.tesseract:
            if shutil.which("tesseract") is None:
                print("  tesseract: not installed (apt-get install tesseract-ocr)")
                continue
            tess_wall, tess_texts = tesseract_run(pages, args.jobs)
            print(f"  tesseract ({args.jobs} processes): {len(pages) / tess_wall:.2f} pages/s, "
                  f"{quality(bench, pages, [[{'type': 'text', 'text': text}] for text in tess_texts])} "
                  "(one block of text per page, no layout)")


if __name__ == "__main__":
    main()
