"""A vision-language model behind an OpenAI-compatible server (vLLM, SGLang) as folio's engine."""

from engine.vlm.engine import VlmEngine, build_vlm_engine, vlm_identity

__all__ = ["VlmEngine", "build_vlm_engine", "vlm_identity"]
