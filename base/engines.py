"""The engine FOLIO_ENGINE names, configured from the settings in one place: its configuration and its identity."""

from base.settings import Settings, get_settings
from engine.config import ELEMENT_FORMAT, EngineConfig, VlmConfig
from engine.identity import Identity
from engine.runtime.onnx import threads_per_worker


def engine_config(settings: Settings | None = None) -> EngineConfig:
    """The pipeline's configuration, from FOLIO_* variables."""
    settings = settings or get_settings()
    return EngineConfig(device=settings.device, ocr_dpi=settings.ocr_dpi, formula_model=settings.formula_model,
                        max_page_pixels=settings.max_page_pixels, engine_cache=settings.engine_cache,
                        threads=threads_per_worker(settings.workers), ocr_int8=settings.ocr_int8,
                        cpu_bf16=settings.cpu_bf16, ocr_models=settings.ocr_models,
                        ocr_model_dir=settings.ocr_model_dir)


def vlm_config(settings: Settings | None = None) -> VlmConfig:
    """The VLM engine's configuration, from FOLIO_VLM_* variables."""
    settings = settings or get_settings()
    if not (settings.vlm_url and settings.vlm_model):
        raise ValueError("FOLIO_ENGINE=vlm needs FOLIO_VLM_URL (the server's OpenAI-compatible base URL, e.g. "
                         "http://gpu-1:8000/v1) and FOLIO_VLM_MODEL (the model it serves)")
    key = settings.vlm_api_key.get_secret_value() if settings.vlm_api_key else None
    pipeline = engine_config(settings) if settings.vlm_format == ELEMENT_FORMAT else None
    return VlmConfig(url=settings.vlm_url, model=settings.vlm_model, format=settings.vlm_format, api_key=key,
                     concurrency=settings.vlm_concurrency, timeout=settings.vlm_timeout_seconds,
                     image_side=settings.vlm_image_side, anchor_text=settings.vlm_anchor_text,
                     device=settings.device, engine_cache=settings.engine_cache,
                     threads=threads_per_worker(settings.workers), ocr_model_dir=settings.ocr_model_dir,
                     text=settings.vlm_text, pipeline=pipeline)


def configured_engine(settings: Settings | None = None) -> EngineConfig | VlmConfig:
    """The configuration of the engine FOLIO_ENGINE names."""
    settings = settings or get_settings()
    return vlm_config(settings) if settings.engine == "vlm" else engine_config(settings)


def engine_identity(settings: Settings | None = None) -> Identity:
    """The identity of the engine FOLIO_ENGINE names, whose version it stores with its pages; found without loading
    a model."""
    config = configured_engine(settings)
    if isinstance(config, VlmConfig):
        from engine.vlm import vlm_identity

        return vlm_identity(config)
    from engine.pipeline_models import pipeline_identity

    return pipeline_identity(config)
