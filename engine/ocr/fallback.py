"""A second reader for pages whose PP-OCR text fails the trust measure: Tesseract in the page's script."""

import subprocess
from dataclasses import dataclass, field

import numpy as np

from engine.ocr.detector import PixelBox
from engine.ocr.tesseract import SCRIPT_LANGUAGES, TesseractReader
from engine.ocr.trust import Trust, measure

INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-osd and the script's language data, e.g. tesseract-ocr-kor"


@dataclass
class FallbackReading:
    """What the fallback made of a page's lines: the text and confidence of each when one reading is trusted,
    else why not."""

    readings: list[tuple[str, float]] = field(default_factory=list)
    language: str = ""
    trust: Trust | None = None
    reason: str | None = None  # set when no reading could be trusted
    tried: list[str] = field(default_factory=list)


class ScriptFallback:
    """Reads the detected lines of an untrusted page with Tesseract: the script its detection names first,
    then the other languages.

    Each language runs with English (`kor+eng`), since pages in other scripts carry Latin words
    and numbers. The first reading that passes the trust measure is kept.
    """

    def __init__(self, reader: TesseractReader | None):
        self.reader = reader

    def __call__(self, image: np.ndarray, dpi: int, trust: Trust, crops: list[np.ndarray],
                 boxes: list[PixelBox]) -> FallbackReading:
        """Reads `crops` (the page's upright line crops, whose boxes in `image` are `boxes`)."""
        problem = f"text not readable by the OCR model ({trust.describe()})"
        if self.reader is None:
            return FallbackReading(reason=f"{problem}; no fallback OCR installed ({INSTALL_HINT})")
        tried: list[str] = []
        try:
            detected = self.reader.script(image, dpi)
            script = detected[0] if detected else None
            first = self.reader.languages_for(script) if script else []
            others = [lang for lang in self.reader.texts if lang not in ("eng", *first)]
            for lang in [*first, *others] or ["eng"]:
                language = f"{lang}+eng" if lang != "eng" and "eng" in self.reader.languages else lang
                readings = self.reader.read_lines(crops, language)
                found = measure((text, confidence, box) for (text, confidence), box in zip(readings, boxes))
                tried.append(language)
                if found.trusted and found.characters:
                    return FallbackReading(readings, language, found, None, tried)
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            return FallbackReading(reason=f"{problem}; the fallback OCR failed: {error}", tried=tried)
        where = f"script {script}" if script else "script not detected"
        if script in SCRIPT_LANGUAGES and not first:
            packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-')}" for lang in SCRIPT_LANGUAGES[script][:1])
            where += f" (no Tesseract language data for it: apt-get install {packages})"
        return FallbackReading(reason=f"{problem}; {where}; Tesseract read it no better with {', '.join(tried)}",
                               tried=tried)
