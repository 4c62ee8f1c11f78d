"""Text-line recognition: PP-OCR rec with CTC decoding, crops batched by width."""

import cv2
import numpy as np

from engine.ocr.detector import normalize
from engine.ocr.models import REC_HEIGHT, REC_MAX_BATCH, REC_MAX_WIDTH
from engine.runtime import OnnxModel


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
                resized = cv2.resize(crops[i], (widths[i], REC_HEIGHT), interpolation=cv2.INTER_LINEAR)
                batch[row, :, :, : widths[i]] = normalize(resized)
            for i, probs in zip(chunk, self.model(batch)):
                results[i] = self._decode(probs)
        return results

    def _width(self, crop: np.ndarray) -> int:
        height, width = crop.shape[:2]
        return int(min(self.max_width, max(REC_HEIGHT // 2, np.ceil(REC_HEIGHT * width / max(height, 1)))))

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
