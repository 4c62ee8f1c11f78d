"""What a run measured for monitoring, batch by batch: page seconds by stage, batch seconds, retries, failed pages
by the class of their reason, pages read by OCR and by its fallback. runs.metrics renders them for Prometheus."""

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BatchMetrics:
    """One batch's measures (part of its report; it crosses process boundaries, so plain values only)."""

    seconds: float = 0.0
    retries: int = 0  # tries of the batch task after its first
    stage_seconds: tuple[tuple[str, float], ...] = ()  # (stage, seconds) of every page the engine parsed
    failed_pages: tuple[tuple[str, int], ...] = ()  # (reason class, pages)
    ocr_pages: int = 0  # pages read by OCR (no usable text layer)
    fallback_pages: int = 0  # of those, pages PP-OCR could not be trusted on, read again by the fallback OCR


@dataclass
class RunMetrics:
    """The run's measures so far: its batches' added up."""

    batch_seconds: list[float] = field(default_factory=list)
    stage_seconds: list[tuple[str, float]] = field(default_factory=list)
    failed_pages: Counter[str] = field(default_factory=Counter)
    failed_batches: int = 0
    retries: int = 0
    ocr_pages: int = 0
    fallback_pages: int = 0

    def add(self, batch: BatchMetrics) -> None:
        self.batch_seconds.append(batch.seconds)
        self.stage_seconds.extend(batch.stage_seconds)
        self.failed_pages.update(dict(batch.failed_pages))
        self.retries += batch.retries
        self.ocr_pages += batch.ocr_pages
        self.fallback_pages += batch.fallback_pages
