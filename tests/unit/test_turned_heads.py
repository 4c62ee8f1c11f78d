"""A table's turned column heads on a scan, each one piece (engine/stages/turned_heads.py)."""

from engine.stages.turned_heads import turned_heads
from engine.types import Line


def test_column_heads_turned_to_run_up_a_scan_are_one_piece_each():
    """OCR reads a turned head's lines apart: wrapped over two lines ("Total" | "population"), or one line the
    detector cut in two ("65" under "years and"). Each head is one piece, its lines left to right, each read from
    its foot up; a head of one line stays as it is, and a figure under a head, however short, is none of it."""
    def turned(value: str, x0: float, x1: float, y0: float, y1: float) -> Line:
        return Line(text=value, bbox=(x0, y0, x1, y1), size=9, confidence=0.9)

    lines = [turned("Total", 132, 143, 120, 147), turned("population", 145, 159, 91, 147),
             turned("years and", 258, 270, 81, 134), turned("65", 258.7, 268.3, 133.4, 147),
             turned("over", 273, 283, 123, 147), turned("Median", 306.7, 317.8, 104, 147),
             turned("48,909", 254, 287, 149, 161), turned("8.1", 305, 318, 149, 158)]
    heads = turned_heads(lines)
    assert [(head.text, head.bbox, len(parts)) for head, parts in heads] == [
        ("Total population", (132, 91, 159, 147), 2), ("65 years and over", (258, 81, 283, 147), 3)]
