"""A second reader for pages whose PP-OCR text fails the trust measure: Tesseract in the page's script."""

import subprocess
from dataclasses import dataclass, field

import numpy as np

from engine.ocr.tesseract import SCRIPT_LANGUAGES, ReadLine, TesseractReader
from engine.ocr.trust import MIN_CONFIDENCE, Trust, measure

INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-osd and the script's language data, e.g. tesseract-ocr-kor"


@dataclass
class FallbackReading:
    """What the fallback made of a page: its lines (in the image's pixels) when one reading is trusted, else why not."""

    lines: list[ReadLine] = field(default_factory=list)
    language: str = ""
    trust: Trust | None = None
    reason: str | None = None  # set when no reading could be trusted
    tried: list[str] = field(default_factory=list)


class ScriptFallback:
    """Reads an untrusted page with Tesseract: the script its detection names first, then the other languages.

    Each language runs with English (`kor+eng`), since pages in other scripts carry Latin words
    and numbers. The first reading that passes the trust measure is kept.
    """

    def __init__(self, reader: TesseractReader | None):
        self.reader = reader

    def __call__(self, image: np.ndarray, dpi: int, trust: Trust) -> FallbackReading:
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
                lines = self.reader.read(image, dpi, language)
                found = measure((line.text, line.confidence, line.box) for line in lines)
                tried.append(language)
                if found.trusted and found.characters:
                    kept = [line for line in lines if line.text and line.confidence >= MIN_CONFIDENCE]
                    return FallbackReading(kept, language, found, None, tried)
        except (OSError, RuntimeError, subprocess.SubprocessError) as error:
            return FallbackReading(reason=f"{problem}; the fallback OCR failed: {error}", tried=tried)
        where = f"script {script}" if script else "script not detected"
        if script in SCRIPT_LANGUAGES and not first:
            packages = " ".join(f"tesseract-ocr-{lang.replace('_', '-')}" for lang in SCRIPT_LANGUAGES[script][:1])
            where += f" (no Tesseract language data for it: apt-get install {packages})"
        return FallbackReading(reason=f"{problem}; {where}; Tesseract read it no better with {', '.join(tried)}",
                               tried=tried)
