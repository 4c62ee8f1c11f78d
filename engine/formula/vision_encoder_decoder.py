"""A transformers VisionEncoderDecoderModel saved in a local folder (TrOCR-, Nougat- or Texify-style checkpoints).

Decoded greedily by transformers' generate with the same length cap and repetition guard as
the built-in model; runs on PyTorch (CPU or CUDA). Nothing is downloaded: the folder must hold
the model, its tokenizer and its image processor.
"""

import math
from pathlib import Path

import cv2
import numpy as np

from engine.formula.decoding import RepetitionGuard

MAX_TOKENS = 256


def is_vision_encoder_decoder(folder: Path) -> bool:
    import json

    config = folder / "config.json"
    return config.is_file() and json.loads(config.read_text()).get("model_type") == "vision-encoder-decoder"


def torch_device(device: str):
    """auto|cpu|cuda as a torch device: auto takes CUDA when PyTorch sees a GPU."""
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("FOLIO_DEVICE=cuda but PyTorch sees no CUDA device")
    return torch.device("cuda" if device != "cpu" and torch.cuda.is_available() else "cpu")


class VisionEncoderDecoderFormulaModel:
    """Reads formula crops into LaTeX with a local VisionEncoderDecoderModel checkpoint."""

    def __init__(self, folder: Path, device: str = "auto", max_tokens: int = MAX_TOKENS):
        import torch
        import transformers
        from transformers import AutoImageProcessor, AutoTokenizer, VisionEncoderDecoderModel

        self.torch = torch
        self.device = torch_device(device)
        self.model = VisionEncoderDecoderModel.from_pretrained(folder, local_files_only=True).to(self.device).eval()
        self.processor = AutoImageProcessor.from_pretrained(folder, local_files_only=True)
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        self.max_tokens = max_tokens
        self.path = folder
        self.runtime = f"PyTorch {torch.__version__}, transformers {transformers.__version__}"
        self.providers = [str(self.device)]
        self.why = f"FOLIO_FORMULA_MODEL={folder} is a VisionEncoderDecoderModel"

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        if not crops:
            return []
        from transformers import StoppingCriteria, StoppingCriteriaList

        guards = [RepetitionGuard() for _ in crops]

        class Guarded(StoppingCriteria):
            """Stops each row whose tail loops, independently of the others."""

            def __init__(self):
                self.stopped = [False] * len(guards)

            def __call__(self, input_ids, scores, **kwargs):
                for row, token in enumerate(input_ids[:, -1].tolist()):
                    self.stopped[row] = self.stopped[row] or guards[row].looping(token)
                return input_ids.new_tensor(self.stopped, dtype=bool)

        images = [crop if crop.ndim == 3 else cv2.cvtColor(crop, cv2.COLOR_GRAY2RGB) for crop in crops]
        pixels = self.processor(images=images, return_tensors="pt").pixel_values.to(self.device)
        with self.torch.inference_mode():
            output = self.model.generate(pixels, max_new_tokens=self.max_tokens, do_sample=False, num_beams=1,
                                         stopping_criteria=StoppingCriteriaList([Guarded()]),
                                         output_scores=True, return_dict_in_generate=True)
            scores = self.model.compute_transition_scores(output.sequences, output.scores, normalize_logits=True)
        special = set(self.tokenizer.all_special_ids)
        results = []
        for row, guard in enumerate(guards):
            generated = output.sequences[row, 1:].tolist()  # after the decoder's start token
            ids = guard.trimmed(generated[:len(guard.tokens)])
            kept = [score for token, score in zip(ids, scores[row].tolist()) if token not in special]
            text = self.tokenizer.decode([t for t in ids if t not in special], skip_special_tokens=True)
            confidence = math.exp(sum(kept) / len(kept)) if kept else 0.0
            results.append((text.strip(), confidence))
        return results
