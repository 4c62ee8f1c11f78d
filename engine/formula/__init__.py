"""Display-formula recognition: formula images to LaTeX, with a pluggable model."""

from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Literal, Protocol

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


JUNIA_FILES = ("best.pt", "model_config.json", "tokenizer.json")  # a latex-ocr-junia checkpoint


@dataclass(frozen=True)
class FormulaChoice:
    """The formula model a FOLIO_FORMULA_MODEL value names, found but not loaded."""

    kind: Literal["junia", "vision-encoder-decoder"]
    folder: Path

    def files(self) -> list[Path]:
        """The files its results depend on: the checkpoint's, or every file in a VisionEncoderDecoderModel's folder."""
        if self.kind == "junia":
            return [self.folder / name for name in JUNIA_FILES]
        return sorted(path for path in self.folder.rglob("*") if path.is_file()
                      and not any(part.startswith(".") for part in path.relative_to(self.folder).parts))


def find_formula_model(spec: str) -> FormulaChoice | None:
    """The model FOLIO_FORMULA_MODEL names: auto (latex-ocr-junia if installed), none, junia, or a folder.

    A folder holds either a transformers VisionEncoderDecoderModel (config.json, weights, tokenizer,
    image processor) or a latex-ocr-junia style checkpoint (best.pt, model_config.json, tokenizer.json).
    """
    if spec == "none":
        return None
    if spec == "auto" and (find_spec("torch") is None or find_spec("latex_ocr_junia") is None):
        return None
    if spec in ("auto", "junia"):
        from engine.formula.junia import default_assets

        return FormulaChoice("junia", default_assets())
    folder = Path(spec).expanduser()
    from engine.formula.vision_encoder_decoder import is_vision_encoder_decoder

    if is_vision_encoder_decoder(folder):
        return FormulaChoice("vision-encoder-decoder", folder)
    missing = [name for name in JUNIA_FILES if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"formula model folder {folder} is no VisionEncoderDecoderModel (config.json) "
                                f"and lacks {', '.join(missing)} of a latex-ocr-junia checkpoint")
    return FormulaChoice("junia", folder)


def load_formula_model(choice: FormulaChoice | None, device: str = "auto", cache_dir: Path | None = None,
                       threads: int = 0, bf16: bool = True) -> FormulaModel | None:
    """The chosen model, loaded; a latex-ocr-junia checkpoint's ONNX export is kept in `cache_dir` and its encoder runs
    in bfloat16 on a CPU that computes it where `bf16`."""
    if choice is None:
        return None
    if choice.kind == "vision-encoder-decoder":
        from engine.formula.vision_encoder_decoder import VisionEncoderDecoderFormulaModel

        return VisionEncoderDecoderFormulaModel(choice.folder, device=device)
    from engine.formula.junia import JuniaFormulaModel

    return JuniaFormulaModel(assets=choice.folder, device=device, cache_dir=cache_dir, threads=threads, bf16=bf16)
