"""How well the VLM engine places a model's blocks on a split's pages, and whether what it stores keeps what the model
said.

No model runs here: each page's answer is written from the split's truth the way olmOCR writes a page (headings,
paragraphs, list items, HTML tables, \\[ \\] formulas, figures without their box; running heads, footers and page
numbers left out), so that the boxes the engine finds for blocks the answer gives without coordinates can be
compared with the true ones. Per page kind it prints: the share of blocks placed, the IoU of their boxes with the
truth (median, share >= 0.5), the text distance (normalized Levenshtein) between the answer's text and the text of
the blocks stored after the validation gate (0: nothing the model said was lost), pages whose answer was read into
another number of blocks than written, and pages failed or quarantined.

    .venv/bin/python benchmarks/vlm_placement.py [--split ../shared/bench/real]
"""

import argparse
import html
import json
import statistics
import sys
import time
from pathlib import Path

import pymupdf
from rapidfuzz.distance import Levenshtein

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.config import VlmConfig  # noqa: E402
from engine.geometry import center_inside, iou  # noqa: E402
from engine.vlm import build_vlm_engine  # noqa: E402
from engine.vlm.client import Completion  # noqa: E402
from pages.pdf import page_graphics, page_input  # noqa: E402
from validation.gate import validate_results  # noqa: E402

LEFT_OUT = ("header", "footer", "page_number")  # olmOCR's prompt drops running heads and footers


class RecordedAnswer:
    """Stands in for the server: answers every request with the page's recorded answer."""

    model = "recorded"
    answer = ""

    def complete(self, content: list, max_tokens: int | None = None) -> Completion:
        return Completion(text=self.answer, finish_reason="stop")


def markdown(blocks: list[dict], scale: float) -> tuple[str, list[dict]]:
    """The page as olmOCR would write it (a figure's file named after its box in pixels of the image, `scale`
    pixels per point), and the true blocks it wrote, in order."""
    parts, written = ["---\nprimary_language: en\nis_rotation_valid: True\nrotation_correction: 0\n---"], []
    for block in blocks:
        text = " ".join((block.get("text") or "").split())
        kind = block["type"]
        if kind in LEFT_OUT:
            continue
        if kind == "table" and block.get("table"):
            parts.append(block["table"]["html"])
        elif kind == "formula":
            if not block.get("latex"):
                continue
            parts.append(f"\\[\n{block['latex']}\n\\]")
        elif kind == "figure":
            x0, y0, x1, y1 = (round(v * scale) for v in block["bbox"])
            parts.append(f"![{html.escape(text)[:80]}](page_{x0}_{y0}_{x1 - x0}_{y1 - y0}.png)")
        elif not text:
            continue
        elif kind == "title":
            parts.append(f"# {text}")
        elif kind == "list_item":
            parts.append(f"- {text}")
        else:
            parts.append(text)
        written.append(block)
    return "\n\n".join(parts) + "\n", written


def _grown(box: list[float], margin: float) -> tuple[float, float, float, float]:
    return (box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin)


def said(blocks: list[dict]) -> str:
    """The text a model's answer holds: what is compared with the stored blocks."""
    return " ".join(" ".join((b.get("text") or "").split()) for b in blocks if b["type"] not in ("figure", "formula"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=Path, default=Path("../shared/bench/real"))
    args = parser.parse_args()

    engine = build_vlm_engine(VlmConfig(url="http://recorded.invalid/v1", model="recorded"), check_model=False)
    engine.client = RecordedAnswer()
    manifest = json.loads((args.split / "manifest.json").read_text())
    for kind in ("born_digital", "scanned"):
        ious, placed, total, distances, miscounted, lost, pages = [], 0, 0, [], 0, [], 0
        by_type: dict[str, list[float]] = {}
        centred = 0
        started = time.perf_counter()
        for entry in (e for e in manifest["files"] if e["kind"] == kind):
            truth = json.loads((args.split / entry["gt"]).read_text())
            with pymupdf.open(args.split / entry["file"]) as document:
                for page_truth in truth["pages"]:
                    page = document[page_truth["page_no"] - 1]
                    key = f"{entry['file']} p{page_truth['page_no']}"
                    item = page_input(page, key, args.split / entry["file"], page_graphics(page))
                    scale = engine.config.image_side / max(item.width, item.height)
                    engine.client.answer, written = markdown(page_truth["blocks"], scale)
                    (result,) = engine([item])
                    pages += 1
                    if result.error:
                        lost.append(f"{key}: {result.error}")
                        continue
                    total += len(result.blocks)
                    placed += sum(block.placed for block in result.blocks)
                    if len(result.blocks) == len(written):
                        for block, truth_block in zip(result.blocks, written):
                            if block.placed:
                                ious.append(iou(block.bbox, tuple(truth_block["bbox"])))
                                by_type.setdefault(block.type, []).append(ious[-1])
                                centred += center_inside(block.bbox, _grown(truth_block["bbox"], 3.0))
                    else:
                        miscounted += 1
                    verdict = validate_results([result], {key: item}).get(key)
                    if verdict is not None and verdict.quarantined:
                        lost.append(f"{key}: quarantined ({', '.join(i.check for i in verdict.issues)})")
                        continue
                    stored = verdict.result.blocks if verdict is not None else result.blocks
                    stored_text = " ".join(b.text for b in stored if b.type not in ("figure", "formula", "table"))
                    answer_text = said([b for b in written if b["type"] != "table"])
                    distances.append(Levenshtein.normalized_distance(answer_text, stored_text))
        seconds = time.perf_counter() - started
        print(f"\n{kind}: {pages} pages, {seconds:.1f} s")
        print(f"  blocks placed: {placed}/{total} ({placed / max(1, total):.1%})")
        if ious:
            print(f"  box IoU with the truth: median {statistics.median(ious):.3f}, >= 0.5: "
                  f"{sum(v >= 0.5 for v in ious) / len(ious):.1%} (n={len(ious)}); by type: " + ", ".join(
                      f"{name} {statistics.median(values):.2f} (n={len(values)})" for name, values in sorted(
                          by_type.items())))
            print(f"  box centre inside the true box (grown by 3 pt): {centred / len(ious):.1%}")
        if distances:
            print(f"  text stored vs the answer: mean NED {statistics.mean(distances):.4f}, "
                  f"max {max(distances):.4f}")
        print(f"  pages read into another number of blocks than written: {miscounted}")
        for line in lost:
            print(f"  lost: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
