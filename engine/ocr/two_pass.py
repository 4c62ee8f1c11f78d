"""Text lines read twice only where it helps: a fast recognizer (PP-OCRv6 tiny) reads every line, and a better one
(small) reads again the lines the first is unsure of: a low confidence, very few characters (a number in a table
cell, a label; cheap to read again, as a recognizer's cost grows with a line's width) or much mathematics."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.mathiness import text_math_share

LineReader = Callable[[list[np.ndarray]], list[tuple[str, float]]]  # (text, confidence) of each line crop


@dataclass(frozen=True)
class Unsure:
    """Which first readings are read again."""

    min_confidence: float = 0.95
    max_short: int = 3  # characters, spaces not counted
    math_share: float = 0.3  # share of operators, Greek, lone letters and digits (engine/mathiness.py)

    def __call__(self, text: str, confidence: float) -> bool:
        return (confidence < self.min_confidence or len(text.replace(" ", "")) <= self.max_short
                or text_math_share(text) >= self.math_share)


class TwoPassReader:
    """Reads line crops with `first`, and with `second` the lines `unsure` picks out of the first's readings."""

    def __init__(self, first: LineReader, second: LineReader, unsure: Unsure = Unsure()):
        self.first, self.second, self.unsure = first, second, unsure

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        readings = self.first(crops)
        again = [index for index, (text, confidence) in enumerate(readings) if self.unsure(text, confidence)]
        for index, reading in zip(again, self.second([crops[index] for index in again]) if again else []):
            readings[index] = reading
        return readings
