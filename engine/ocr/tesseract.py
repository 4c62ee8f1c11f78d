"""Tesseract, run through its command line, for pages in scripts that PP-OCR's dictionary lacks.

Debian packages it (`tesseract-ocr`) with one package of trained data per language
(`tesseract-ocr-kor`, ...) and one for orientation and script detection (`tesseract-ocr-osd`).
The engine uses whatever languages are installed; nothing is downloaded at run time.
"""

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.ocr.detector import PixelBox

# OSD's script names and the Tesseract languages that read them, most widely used first.
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Korean": ("kor",), "Hangul": ("kor",),
    "Cyrillic": ("rus", "ukr", "bul", "srp", "bel"),
    "Arabic": ("ara", "fas", "urd"),
    "Devanagari": ("hin", "mar", "nep"),
    "Greek": ("ell",), "Hebrew": ("heb",), "Thai": ("tha",), "Armenian": ("hye",), "Georgian": ("kat",),
    "Bengali": ("ben",), "Tamil": ("tam",), "Telugu": ("tel",), "Kannada": ("kan",), "Malayalam": ("mal",),
    "Gujarati": ("guj",), "Gurmukhi": ("pan",), "Ethiopic": ("amh",), "Khmer": ("khm",), "Myanmar": ("mya",),
    "Japanese": ("jpn",), "Han": ("chi_sim", "chi_tra"), "HanS": ("chi_sim",), "HanT": ("chi_tra",),
    "Latin": ("eng",),
}
PAGE_SEGMENTATION = "3"  # fully automatic layout analysis
GUTTER = 2.5  # a gap between words wider than this many word heights separates two columns
NOT_TEXT = {"osd", "equ", "snum"}  # trained data that is not a language to read


@dataclass(frozen=True)
class ReadLine:
    """One line Tesseract read: its words joined, their mean confidence in [0, 1], its box in image pixels."""

    text: str
    confidence: float
    box: PixelBox
    word_height: float = 0.0  # the median height of its words' boxes, in pixels


class TesseractReader:
    """The `tesseract` binary with the languages it has data for; one process per call, one thread each."""

    def __init__(self, binary: str, version: str, languages: tuple[str, ...], timeout: float = 120.0):
        self.binary = binary
        self.version = version
        self.languages = languages
        self.timeout = timeout
        self.texts = [lang for lang in languages if lang not in NOT_TEXT]  # languages it can read
        # what `folio engine info` shows for a model
        self.path = binary
        self.runtime = f"tesseract {version}"
        self.providers = ["cpu"]
        self.why = f"pages whose script PP-OCR cannot read; languages {', '.join(self.texts)}"

    @classmethod
    def find(cls, binary: str = "tesseract") -> "TesseractReader | None":
        """The installed Tesseract with its languages, or None when there is no binary or no language data."""
        path = shutil.which(binary)
        if path is None:
            return None
        try:
            version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
            listed = subprocess.run([path, "--list-langs"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        languages = tuple(line.strip() for line in listed.splitlines()[1:] if line.strip())
        if not any(lang not in NOT_TEXT for lang in languages):
            return None
        first = version.split()
        return cls(path, first[1] if len(first) > 1 else "unknown", languages)

    def installed(self, language: str) -> bool:
        return all(part in self.languages for part in language.split("+"))

    def script(self, image: np.ndarray, dpi: int) -> tuple[str, float] | None:
        """The page's script by Tesseract's orientation and script detection, with its confidence."""
        if "osd" not in self.languages:
            return None
        output = self._run(image, dpi, ["--psm", "0", "-l", "osd"], check=False)
        found = re.search(r"^Script: (\S+)\s*$", output, re.MULTILINE)
        confidence = re.search(r"^Script confidence: ([\d.]+)", output, re.MULTILINE)
        if not found:
            return None
        return found.group(1), float(confidence.group(1)) if confidence else 0.0

    def languages_for(self, script: str) -> list[str]:
        """The installed languages that read `script`, most widely used first."""
        return [lang for lang in SCRIPT_LANGUAGES.get(script, ()) if lang in self.languages]

    def read(self, image: np.ndarray, dpi: int, language: str) -> list[ReadLine]:
        """The lines of an RGB page image, read with `language` (Tesseract's `kor+eng` form).

        One recognition writes words with boxes and confidences (TSV) and the plain text, whose
        spacing is Tesseract's own (Hangul comes out as one TSV word per syllable at times).
        """
        with tempfile.TemporaryDirectory(prefix="folio-tesseract-") as folder:
            base = Path(folder) / "page"
            self._run(image, dpi, ["-l", language, "--psm", PAGE_SEGMENTATION, "tsv", "txt"], output=str(base))
            tsv = base.with_suffix(".tsv").read_text(encoding="utf-8", errors="replace")
            txt = base.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")
        return parse_tsv(tsv, txt)

    def _run(self, image: np.ndarray, dpi: int, arguments: list[str], check: bool = True,
             output: str = "stdout") -> str:
        ok, png = cv2.imencode(".png", np.ascontiguousarray(image[..., ::-1]))
        if not ok:
            raise RuntimeError("could not encode the page image for Tesseract")
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # pages run one per process; no nested threads
        done = subprocess.run([self.binary, "stdin", output, "--dpi", str(dpi), *arguments], input=png.tobytes(),
                              capture_output=True, timeout=self.timeout, env=environment)
        if check and done.returncode != 0:
            raise RuntimeError(f"tesseract failed ({done.returncode}): {done.stderr.decode(errors='replace')[-300:]}")
        return done.stdout.decode("utf-8", errors="replace")


def parse_tsv(tsv: str, txt: str = "") -> list[ReadLine]:
    """Tesseract's word rows grouped into lines; empty words and words without a confidence left out.

    Words are spaced as in `txt` (Tesseract's plain text) where its line has the same characters,
    else joined with spaces. A line that runs across a gap wider than GUTTER word heights (two
    columns side by side) becomes one line per side.
    """
    plain = {_squeezed(line): line for line in txt.splitlines() if line.strip()}
    words: dict[tuple[str, str, str, str], list[tuple[str, float, PixelBox]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5":
            continue
        text, confidence = cells[11].strip(), float(cells[10])
        if not text or confidence < 0:
            continue
        left, top, width, height = (int(value) for value in cells[6:10])
        words.setdefault(tuple(cells[1:5]), []).append((text, confidence / 100.0, (left, top, left + width,
                                                                                      top + height)))
    lines = []
    for line_words in words.values():
        spaces = _spaces_before([word for word, _, _ in line_words],
                                plain.get(_squeezed("".join(word for word, _, _ in line_words))))
        median = float(np.median([box[3] - box[1] for _, _, box in line_words]))
        start = 0
        for end in range(1, len(line_words) + 1):
            if end == len(line_words) or line_words[end][2][0] - line_words[end - 1][2][2] > GUTTER * median:
                lines.append(_line(line_words[start:end], spaces[start:end]))
                start = end
    return lines


def _line(words: list[tuple[str, float, PixelBox]], spaces: list[bool]) -> ReadLine:
    text = "".join((" " if space and i else "") + word for i, ((word, _, _), space) in enumerate(zip(words, spaces)))
    characters = sum(len(word) for word, _, _ in words)
    confidence = sum(len(word) * conf for word, conf, _ in words) / characters
    boxes = np.array([box for _, _, box in words])
    heights = boxes[:, 3] - boxes[:, 1]
    median = float(np.median(heights))
    upright = boxes[heights <= 1.5 * median]  # a syllable boxed with the line below would stretch the line
    box = (int(boxes[:, 0].min()), int(upright[:, 1].min()), int(boxes[:, 2].max()), int(upright[:, 3].max()))
    return ReadLine(text, confidence, box, median)


def _spaces_before(words: list[str], plain: str | None) -> list[bool]:
    """Whether a space comes before each word, as Tesseract's plain text line has it (None: always)."""
    if plain is None:
        return [True] * len(words)
    spaces, position = [], 0
    for word in words:
        found = plain.find(word, position)
        if found < 0:
            return [True] * len(words)
        spaces.append(found > position and plain[position:found].isspace())
        position = found + len(word)
    return spaces


def _squeezed(text: str) -> str:
    return "".join(text.split())
