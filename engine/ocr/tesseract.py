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
LINE_SEGMENTATION = "6"  # one uniform block of text: the stacked line crops, one line each
LINE_HEIGHT = 48  # pixels a line crop is scaled to: Tesseract reads best with glyphs 20-40 pixels high
MAX_UPSCALE = 4.0  # a crop is enlarged at most this much (a speck would otherwise fill the line height)
LINE_GAP = 24  # white pixels between stacked crops, so that no two are read as one line
MAX_STACK_HEIGHT = 16_000  # pixels of one stacked image; more lines go to another call
READ_DPI = 300  # the resolution Tesseract is told: LINE_HEIGHT pixels are a 10-12 pt line at 300 dpi
NOT_TEXT = {"osd", "equ", "snum"}  # trained data that is not a language to read


@dataclass(frozen=True)
class ReadLine:
    """One line Tesseract read: its words joined, their mean confidence in [0, 1], its box in image pixels."""

    text: str
    confidence: float
    box: PixelBox


class TesseractReader:
    """The `tesseract` binary with the languages it has data for; one process per call, one thread each."""

    def __init__(self, binary: str, version: str, languages: tuple[str, ...], timeout: float = 120.0,
                 data_dir: Path | None = None):
        self.binary = binary
        self.version = version
        self.languages = languages
        self.data_dir = data_dir  # where its trained data is, when it says
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
        data_dir = re.match(r'List of available languages in "(.+?)"', listed)
        return cls(path, first[1] if len(first) > 1 else "unknown", languages,
                   data_dir=Path(data_dir.group(1)) if data_dir else None)

    def files(self) -> list[Path]:
        """The trained data of its languages, where Tesseract says it is."""
        if self.data_dir is None:
            return []
        return [path for path in (self.data_dir / f"{lang}.traineddata" for lang in self.languages) if path.is_file()]

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

    def read_lines(self, crops: list[np.ndarray], language: str) -> list[tuple[str, float]]:
        """The text and confidence of each upright line crop (RGB), read with `language` (`kor+eng` form).

        The crops, scaled to one line height, are stacked into as few images as Tesseract takes and read
        as blocks of lines: one process per image instead of one per line, and the text detector's line
        boxes (which keep table cells apart) instead of Tesseract's own page layout analysis.
        """
        readings: list[tuple[str, float]] = []
        for start, end in _stacks([crop.shape[0] for crop in crops], [_factor(crop) for crop in crops]):
            image, bands = stack_lines(crops[start:end])
            with tempfile.TemporaryDirectory(prefix="folio-tesseract-") as folder:
                base = Path(folder) / "lines"
                self._run(image, READ_DPI, ["-l", language, "--psm", LINE_SEGMENTATION, "tsv", "txt"],
                          output=str(base))
                tsv = base.with_suffix(".tsv").read_text(encoding="utf-8", errors="replace")
                txt = base.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")
            readings += lines_in_bands(parse_tsv(tsv, txt), bands)
        return readings

    def _run(self, image: np.ndarray, dpi: int, arguments: list[str], check: bool = True,
             output: str = "stdout") -> str:
        ok, png = cv2.imencode(".png", np.ascontiguousarray(image[..., ::-1] if image.ndim == 3 else image))
        if not ok:
            raise RuntimeError("could not encode the page image for Tesseract")
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # pages run one per process; no nested threads
        done = subprocess.run([self.binary, "stdin", output, "--dpi", str(dpi), *arguments], input=png.tobytes(),
                              capture_output=True, timeout=self.timeout, env=environment)
        if check and done.returncode != 0:
            raise RuntimeError(f"tesseract failed ({done.returncode}): {done.stderr.decode(errors='replace')[-300:]}")
        return done.stdout.decode("utf-8", errors="replace")


def _factor(crop: np.ndarray) -> float:
    return min(MAX_UPSCALE, LINE_HEIGHT / max(1, crop.shape[0]))


def _stacks(heights: list[int], factors: list[float]) -> list[tuple[int, int]]:
    """Index ranges of crops whose scaled heights, with the gaps, fit one stacked image."""
    ranges, start, used = [], 0, LINE_GAP
    for index, (height, factor) in enumerate(zip(heights, factors)):
        needed = round(height * factor) + LINE_GAP
        if index > start and used + needed > MAX_STACK_HEIGHT:
            ranges.append((start, index))
            start, used = index, LINE_GAP
        used += needed
    if start < len(heights):
        ranges.append((start, len(heights)))
    return ranges


def stack_lines(crops: list[np.ndarray]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The crops made dark on white and scaled to LINE_HEIGHT (at most MAX_UPSCALE times), left-aligned one
    under the other on white with LINE_GAP between them (a grey image), and each crop's band of rows."""
    scaled = [cv2.resize(dark_on_white(crop), None, fx=_factor(crop), fy=_factor(crop),
                         interpolation=cv2.INTER_CUBIC) for crop in crops]
    width = max(crop.shape[1] for crop in scaled) + 2 * LINE_GAP
    height = sum(crop.shape[0] + LINE_GAP for crop in scaled) + LINE_GAP
    image = np.full((height, width), 255, dtype=np.uint8)
    bands, top = [], LINE_GAP
    for crop in scaled:
        image[top:top + crop.shape[0], LINE_GAP:LINE_GAP + crop.shape[1]] = crop
        bands.append((top, top + crop.shape[0]))
        top += crop.shape[0] + LINE_GAP
    return image, bands


def dark_on_white(crop: np.ndarray) -> np.ndarray:
    """An RGB line crop in grey, its background stretched to white and its text to black (light text on a dark
    band turned over), so that one threshold suits every crop of a stacked image (a shaded table header would
    otherwise go black with its text)."""
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    threshold, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if np.mean(grey <= threshold) > 0.5:  # the darker class is the larger one: it is the background
        grey = 255 - grey
        threshold = 254 - threshold
    light, dark = grey[grey > threshold], grey[grey <= threshold]
    if not len(light) or not len(dark):
        return grey
    background, ink = float(np.median(light)), float(np.median(dark))
    if background - ink < 1:
        return grey
    return np.clip((grey.astype(np.float32) - ink) * 255.0 / (background - ink), 0, 255).astype(np.uint8)


def lines_in_bands(lines: list[ReadLine], bands: list[tuple[int, int]]) -> list[tuple[str, float]]:
    """The text and confidence read in each band of a stacked image: the lines whose middle lies in it (or
    within half a gap of it), left to right; ("", 0.0) for a band where nothing was read."""
    found: list[list[ReadLine]] = [[] for _ in bands]
    for line in lines:
        middle = (line.box[1] + line.box[3]) / 2
        for index, (top, bottom) in enumerate(bands):
            if top - LINE_GAP / 2 <= middle < bottom + LINE_GAP / 2:
                found[index].append(line)
                break
    readings = []
    for pieces in found:
        pieces.sort(key=lambda line: line.box[0])
        characters = sum(len(line.text) for line in pieces)
        confidence = sum(len(line.text) * line.confidence for line in pieces) / characters if characters else 0.0
        readings.append((" ".join(line.text for line in pieces), confidence))
    return readings


def parse_tsv(tsv: str, txt: str = "") -> list[ReadLine]:
    """Tesseract's word rows grouped into its lines; empty words and words without a confidence left out.

    Words are spaced as in `txt` (Tesseract's plain text) where its line has the same characters,
    else joined with spaces (Hangul comes out as one TSV word per syllable at times).
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
        text = "".join((" " if space and i else "") + word
                       for i, ((word, _, _), space) in enumerate(zip(line_words, spaces)))
        characters = sum(len(word) for word, _, _ in line_words)
        confidence = sum(len(word) * conf for word, conf, _ in line_words) / characters
        boxes = np.array([box for _, _, box in line_words])
        box = (int(boxes[:, 0].min()), int(boxes[:, 1].min()), int(boxes[:, 2].max()), int(boxes[:, 3].max()))
        lines.append(ReadLine(text, confidence, box))
    return lines


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
