"""Display-formula recognition: formula images to LaTeX, with a pluggable model."""

from importlib.util import find_spec
from pathlib import Path
from typing import Protocol

import numpy as np


class FormulaModel(Protocol):
    """Anything that reads formula crops (RGB, dark on light) into (LaTeX, confidence) pairs.

    `path`, `runtime`, `providers` and `why` say what runs where, for `folio engine info`.
    """

    path: Path
    runtime: str
    providers: list[str]
    why: str

    def __call__(self, crops: list[np.ndarray]) -> list[tuple[str, float]]: ...


def load_formula_model(spec: str, device: str = "auto", cache_dir: Path | None = None,
                       threads: int = 0) -> FormulaModel | None:
    """The model FOLIO_FORMULA_MODEL names: auto (latex-ocr-junia if installed), none, junia, or a folder.

    A folder holds either a transformers VisionEncoderDecoderModel (config.json, weights, tokenizer,
    image processor) or a latex-ocr-junia style checkpoint (best.pt, model_config.json,
    tokenizer.json), whose ONNX export is kept in `cache_dir`.
    """
    if spec == "none":
        return None
    if spec == "auto" and (find_spec("torch") is None or find_spec("latex_ocr_junia") is None):
        return None
    from engine.formula.junia import JuniaFormulaModel

    if spec in ("auto", "junia"):
        return JuniaFormulaModel(device=device, cache_dir=cache_dir, threads=threads)
    folder = Path(spec).expanduser()
    from engine.formula.vision_encoder_decoder import VisionEncoderDecoderFormulaModel, is_vision_encoder_decoder

    if is_vision_encoder_decoder(folder):
        return VisionEncoderDecoderFormulaModel(folder, device=device)
    missing = [name for name in ("best.pt", "model_config.json", "tokenizer.json") if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"formula model folder {folder} is no VisionEncoderDecoderModel (config.json) "
                                f"and lacks {', '.join(missing)} of a latex-ocr-junia checkpoint")
    return JuniaFormulaModel(assets=folder, device=device, cache_dir=cache_dir, threads=threads)
