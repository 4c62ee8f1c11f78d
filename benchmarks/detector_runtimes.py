"""The text detector on CPU under each runtime: CPU time per page and how far its lines agree with ONNX Runtime's.

Every scanned page of the splits is rendered as the OCR stage renders it and its lines are detected by
PP-OCRv6's detector run by ONNX Runtime in float32 (what folio ran before), OpenVINO in float32 compiled for any
shape, OpenVINO in float32 compiled for each page size (what folio runs: a smaller peak, its compiling counted here)
and OpenVINO in bfloat16 (where the CPU computes it), each on `--threads` threads. A line agrees when the other
runtime found a line whose box overlaps it by IoU > 0.9. Peak memory: benchmarks/memory.py.

    .venv/bin/python benchmarks/detector_runtimes.py [--split ../shared/bench/dev --split ../shared/bench/real]
"""

import argparse
import resource
from pathlib import Path

import numpy as np
import openvino as ov
from scan_orientation import scanned_pages

from engine.config import PIPELINE_DEFAULTS
from engine.geometry import iou
from engine.ocr.detector import Detection, TextDetector
from engine.ocr.models import find_ocr_models
from engine.render import render_page, render_scale
from engine.runtime import OnnxModel
from engine.runtime.openvino import OpenVinoModel, bf16_capable


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def agreement(reference: list[list[Detection]], other: list[list[Detection]]) -> tuple[int, int]:
    """Lines of `reference` that `other` found too (IoU > 0.9), and all lines of `reference`."""
    found = sum(any(iou(line.box, theirs.box) > 0.9 for theirs in page_other)
                for page_reference, page_other in zip(reference, other) for line in page_reference)
    return found, sum(map(len, reference))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=Path, action="append")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    splits = args.split or [Path("../shared/bench/dev"), Path("../shared/bench/real")]
    config = PIPELINE_DEFAULTS
    images = []
    for split in splits:
        for _, page in scanned_pages(split):
            scale = render_scale(page.rect.width, page.rect.height, config.ocr_dpi, config.max_page_pixels)
            images.append(render_page(page, scale))
    path = find_ocr_models(config.ocr_model_dir).det
    runtimes = {"ONNX Runtime f32": OnnxModel(path, "cpu", args.threads, arena=False),
                "OpenVINO f32": OpenVinoModel(path, args.threads, bf16=False),
                "OpenVINO f32, compiled per shape": OpenVinoModel(path, args.threads, bf16=False, static_shapes=True)}
    if bf16_capable(ov.Core()):
        runtimes["OpenVINO bf16"] = OpenVinoModel(path, args.threads, bf16=True)
    print(f"{len(images)} scanned pages, {args.threads} thread(s); bf16: {'OpenVINO bf16' in runtimes}")
    lines = {}
    for name, model in runtimes.items():
        detector = TextDetector(model)
        detector(images[:1])
        started = cpu_seconds()
        lines[name] = [detector([image])[0] for image in images]
        spent = (cpu_seconds() - started) / len(images)
        found, total = agreement(lines["ONNX Runtime f32"], lines[name])
        print(f"{name}: {spent * 1000:.0f} ms CPU/page, {sum(map(len, lines[name]))} lines, "
              f"{found}/{total} of ONNX Runtime's lines found ({np.round(100 * found / total, 2)} %)")


if __name__ == "__main__":
    main()
