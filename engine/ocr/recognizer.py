"""Text-line recognition: PP-OCR rec with CTC decoding, crops batched by width."""

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from engine.ocr.calibration import calibration_lines
from engine.ocr.detector import normalize
from engine.ocr.models import REC_HEIGHT, REC_MAX_BATCH, REC_MAX_WIDTH
from engine.ocr.reading_graph import FLOAT_NODES, reading_graph
from engine.ocr.word_gaps import spaced
from engine.runtime import OnnxModel
from engine.runtime.quantize import int8_variant

# For a model OpenVINO runs compiled for any shape, a line's input width is rounded up to a multiple of this: it then
# meets a few dozen input shapes rather than one for every line width, and prepares its kernels once for each shape it
# meets (tiny's recognizer on dev's scans: 7.4 -> 6.0 ms CPU a line on pages after the first ones, 8.8 -> 7.2 on the
# first ones). ONNX Runtime gains nothing from it: there each line is read at its own width.
WIDTH_STEP = 64


def input_width(crop: np.ndarray, max_width: int = REC_MAX_WIDTH) -> int:
    """The width a crop is scaled to at the model's height, its aspect kept."""
    height, width = crop.shape[:2]
    return int(min(max_width, max(REC_HEIGHT // 2, np.ceil(REC_HEIGHT * width / max(height, 1)))))


def line_input(crop: np.ndarray, width: int, out: np.ndarray | None = None) -> np.ndarray:
    """One RGB line crop as the model reads it: scaled to REC_HEIGHT x width, CHW in [-1, 1] (into `out`)."""
    return normalize(cv2.resize(crop, (width, REC_HEIGHT), interpolation=cv2.INTER_LINEAR), out)


def calibration_inputs() -> Iterator[np.ndarray]:
    """Inputs to calibrate an int8 recognizer with: the lines engine/ocr/calibration.py makes, one at a time."""
    for crop in calibration_lines():
        yield line_input(crop, input_width(crop))[None]


def cpu_recognizer(path: Path, cache_dir: Path | None, int8: bool) -> Path:
    """The recognizer file ONNX Runtime reads lines with on CPU: the reading graph of the one at `path`
    (engine/ocr/reading_graph.py), quantized to int8 where asked."""
    graph = reading_graph(path, cache_dir)
    if not int8:
        return graph
    return int8_variant(graph, cache_dir, calibration_inputs, keep_float=FLOAT_NODES)


class TextRecognizer:
    """Reads line crops, each at its own width rounded up to `width_step`: crops of one rounded width are batched
    together, so a line's reading never depends on the other lines read with it (the padding moves readings)."""

    def __init__(self, model: OnnxModel, keys: Path | None = None, max_batch: int = REC_MAX_BATCH,
                 max_width: int = REC_MAX_WIDTH, width_step: int = 1):
        """`keys`: the model's characters, one a line, where its file does not carry them ('character' metadata);
        `width_step`: input widths are rounded up to a multiple of it (WIDTH_STEP for OpenVINO)."""
        self.model = model
        self.max_batch = max_batch
        self.max_width = max_width
        self.width_step = width_step
        charset = keys.read_text(encoding="utf-8").removesuffix("\n") if keys else model.metadata("character")
        if not charset:
            raise ValueError(f"{model.path} carries no 'character' metadata for CTC decoding and no keys were given")
        self.alphabet = np.array(["", *charset.split("\n"), " "], dtype=object)  # 0 is the CTC blank

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """(text, confidence) for each RGB crop of one text line."""
        widths = [self._width(crop) for crop in crops]
        batches = self._batches(widths)
        results: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for number, (batch_width, chunk) in enumerate(batches):
            batch = np.zeros((len(chunk), 3, REC_HEIGHT, batch_width), dtype=np.float32)
            for row, i in enumerate(chunk):
                line_input(crops[i], widths[i], batch[row, :, :, : widths[i]])
            last = number == len(batches) - 1
            best, best_prob = best_classes(self.model.all_outputs(batch, release=last))
            for i, classes, probs in zip(chunk, best, best_prob):
                step = batch_width / classes.shape[0] * crops[i].shape[1] / widths[i]  # crop columns a step
                results[i] = self._decode(classes, probs, crops[i], step)
        return results

    def _batches(self, widths: list[int]) -> list[tuple[int, list[int]]]:
        """(input width, crop indices) of each batch: crops grouped by their width rounded up to the step, widest
        last, at most max_batch a batch."""
        groups: dict[int, list[int]] = {}
        for i, width in enumerate(widths):
            groups.setdefault(min(self.max_width, -(-width // self.width_step) * self.width_step), []).append(i)
        return [(width, group[start:start + self.max_batch]) for width, group in sorted(groups.items())
                for start in range(0, len(group), self.max_batch)]

    def _width(self, crop: np.ndarray) -> int:
        return input_width(crop, self.max_width)

    def _decode(self, best: np.ndarray, best_prob: np.ndarray, crop: np.ndarray, step: float) -> tuple[str, float]:
        """Greedy CTC from the best class of each step (`step` crop columns wide): repeats collapsed, blanks
        dropped, and the spaces the model left out of word gaps put back (engine/ocr/word_gaps.py)."""
        keep = best != 0
        keep[1:] &= best[1:] != best[:-1]
        if not keep.any():
            return "", 0.0
        places = np.flatnonzero(keep)
        text = spaced(list(self.alphabet[best[places]]), (places + 0.5) * step, crop)
        confidence = float(best_prob[keep].mean())
        return text.strip(), min(1.0, max(0.0, confidence))


def best_classes(outputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The best class of each step of each line (N x T) and its probability, from a recognizer's outputs: every
    class's probability (N x T x classes), or a reading graph's best probability and class (N x T x 1 each)."""
    if len(outputs) == 1:
        best = outputs[0].argmax(axis=2)
        return best, np.take_along_axis(outputs[0], best[..., None], axis=2)[..., 0]
    best_prob, best = outputs
    return best[..., 0], best_prob[..., 0]
