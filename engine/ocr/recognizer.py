"""Text-line recognition: PP-OCR rec with CTC decoding, crops batched by width."""

from collections.abc import Iterator

import cv2
import numpy as np

from engine.ocr.calibration import calibration_lines
from engine.ocr.detector import normalize
from engine.ocr.models import REC_HEIGHT, REC_MAX_BATCH, REC_MAX_WIDTH
from engine.runtime import OnnxModel


def input_width(crop: np.ndarray, max_width: int = REC_MAX_WIDTH) -> int:
    """The width a crop is scaled to at the model's height, its aspect kept."""
    height, width = crop.shape[:2]
    return int(min(max_width, max(REC_HEIGHT // 2, np.ceil(REC_HEIGHT * width / max(height, 1)))))


def line_input(crop: np.ndarray, width: int) -> np.ndarray:
    """One RGB line crop as the model reads it: scaled to REC_HEIGHT x width, CHW in [-1, 1]."""
    return normalize(cv2.resize(crop, (width, REC_HEIGHT), interpolation=cv2.INTER_LINEAR))


def calibration_inputs() -> Iterator[np.ndarray]:
    """Inputs to calibrate an int8 recognizer with: the lines engine/ocr/calibration.py makes, one at a time."""
    for crop in calibration_lines():
        yield line_input(crop, input_width(crop))[None]


class TextRecognizer:
    """Reads line crops; crops are sorted by width and padded per batch so padding stays small."""

    def __init__(self, model: OnnxModel, max_batch: int = REC_MAX_BATCH, max_width: int = REC_MAX_WIDTH):
        self.model = model
        self.max_batch = max_batch
        self.max_width = max_width
        charset = model.metadata("character")
        if not charset:
            raise ValueError(f"{model.path} carries no 'character' metadata for CTC decoding")
        self.alphabet = np.array(["", *charset.split("\n"), " "], dtype=object)  # 0 is the CTC blank

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """(text, confidence) for each RGB crop of one text line."""
        widths = [self._width(crop) for crop in crops]
        order = sorted(range(len(crops)), key=widths.__getitem__)
        results: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for start in range(0, len(order), self.max_batch):
            chunk = order[start:start + self.max_batch]
            batch_width = max(widths[i] for i in chunk)
            batch = np.zeros((len(chunk), 3, REC_HEIGHT, batch_width), dtype=np.float32)
            for row, i in enumerate(chunk):
                batch[row, :, :, : widths[i]] = line_input(crops[i], widths[i])
            last = start + self.max_batch >= len(order)
            for i, probs in zip(chunk, self.model(batch, release=last)):
                results[i] = self._decode(probs)
        return results

    def _width(self, crop: np.ndarray) -> int:
        return input_width(crop, self.max_width)

    def _decode(self, probs: np.ndarray) -> tuple[str, float]:
        """Greedy CTC: best class per step, repeats collapsed, blanks dropped."""
        best = probs.argmax(axis=1)
        keep = best != 0
        keep[1:] &= best[1:] != best[:-1]
        if not keep.any():
            return "", 0.0
        text = "".join(self.alphabet[best[keep]])
        confidence = float(probs[keep, best[keep]].mean())
        return text.strip(), min(1.0, max(0.0, confidence))
