"""How often the OCR stage finds the right way up for a scan lying turned, and what finding it costs.

Every scanned page of the splits is rendered as the OCR stage renders it, laid turned by 0, 90, 180
and 270 degrees (the image turned, as a scan inserted on its side would be), its lines detected, and
its orientation decided by `LineDirection.page_turn`. Prints the share decided right and the time
per page of the orientation step next to that of the text detection it follows.

    .venv/bin/python benchmarks/scan_orientation.py [--split ../shared/bench/dev --split ../shared/bench/real]
"""

import argparse
import json
import time
from pathlib import Path

import pymupdf

from engine.ocr.detector import TextDetector
from engine.ocr.models import find_ocr_models
from engine.ocr.orientation import LineDirection
from engine.orientation import turn_image
from engine.render import render_page, render_scale
from engine.runtime import OnnxModel


def scanned_pages(split: Path) -> list[tuple[str, pymupdf.Page]]:
    manifest = json.loads((split / "manifest.json").read_text())
    pages = []
    for entry in manifest["files"]:
        if entry["kind"] == "scanned":
            document = pymupdf.open(split / entry["file"])
            pages.extend((f"{entry['file']}:{page.number + 1}", page) for page in document)
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=Path, action="append")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    files = find_ocr_models()
    detector = TextDetector(OnnxModel(files.det, args.device))
    direction = LineDirection(OnnxModel(files.cls, args.device))
    right = total = blank = 0
    detect_seconds = orient_seconds = 0.0
    for split in args.split or [Path("../shared/bench/dev")]:
        for name, page in scanned_pages(split):
            image = render_page(page, render_scale(page.rect.width, page.rect.height, 150, 25_000_000))
            for lying in (0, 90, 180, 270):
                turned = turn_image(image, (360 - lying) % 360)  # turning it `lying` clockwise sets it upright
                started = time.perf_counter()
                found = detector([turned])[0]
                detect_seconds += time.perf_counter() - started
                started = time.perf_counter()
                turn = direction.page_turn(turned, found)
                orient_seconds += time.perf_counter() - started
                if not found:
                    blank += 1
                    continue
                total += 1
                right += turn == lying
                if turn != lying:
                    print(f"wrong: {name} lying {lying}, turned {turn}")
    runs = total + blank
    print(f"right way up: {right}/{total} turned pages with text ({blank} without any detected line left out)")
    print(f"per page: orientation {1000 * orient_seconds / runs:.0f} ms, "
          f"text detection {1000 * detect_seconds / runs:.0f} ms ({args.device})")


if __name__ == "__main__":
    main()
