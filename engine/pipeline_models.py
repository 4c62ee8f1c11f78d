"""The models a pipeline loads, found but not loaded, and the identity they give it: what `folio --version` and
reprocess need without importing the pipeline's stages (PyMuPDF among them)."""

from dataclasses import dataclass
from pathlib import Path

from engine import ENGINE_VERSION
from engine.config import PIPELINE_DEFAULTS, RESULT_FIELDS, EngineConfig
from engine.formula import FormulaChoice, find_formula_model
from engine.identity import Identity, identify
from engine.layout_model import find_cdla_model
from engine.ocr.models import OcrModelFiles, find_ocr_models
from engine.ocr.tesseract import TesseractReader


@dataclass(frozen=True)
class PipelineModels:
    """The models build_pipeline loads, found but not loaded."""

    ocr: OcrModelFiles
    layout: Path | None
    formula: FormulaChoice | None
    script_fallback: TesseractReader | None

    @classmethod
    def find(cls, config: EngineConfig) -> "PipelineModels":
        return cls(find_ocr_models(config.ocr_model_dir, config.ocr_models), find_cdla_model(config.layout_model_dir),
                   find_formula_model(config.formula_model), TesseractReader.find())

    def identity(self, config: EngineConfig) -> Identity:
        """The identity of a pipeline of these models under `config`."""
        tesseract = self.script_fallback
        files = {"text detection": [self.ocr.det], "text recognition": [self.ocr.rec, *filter(None, [self.ocr.keys])],
                 "text recognition again": self.ocr.reread and [self.ocr.reread],
                 "text direction": self.ocr.cls and [self.ocr.cls], "layout": self.layout and [self.layout],
                 "formula": self.formula and self.formula.files(), "script fallback": tesseract and tesseract.files()}
        label = tesseract and f"tesseract {tesseract.version} {'+'.join(tesseract.languages)}"
        return identify(ENGINE_VERSION, {name: getattr(config, name) for name in RESULT_FIELDS}, files,
                        config.engine_cache, {"script fallback": label} if label else None)


def pipeline_identity(config: EngineConfig = PIPELINE_DEFAULTS) -> Identity:
    """The identity build_pipeline(config) has, found without loading a model."""
    return PipelineModels.find(config).identity(config)
