"""Whether the text OCR recognized on a page can be trusted, from its confidences and how much it read.

A recognizer whose dictionary lacks a page's script does not fail loudly: PP-OCR's Chinese/English
model reads a Hangul line as nothing, a few punctuation marks or the line's Latin fragments, often
with a high confidence (a Cyrillic line comes out as "." at 0.9). What gives it away is how little
text comes out of the lines the detector found: a line box of width w and height h holds about
w/h "ems" of text, which is 2-3 characters of Latin and about 1 of Chinese or Japanese. The
measure is taken over the lines of one page.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from engine.ocr.detector import PixelBox

MIN_CONFIDENCE = 0.5  # recognized lines below this are noise (specks, rules, stamps); the OCR stage drops them
MIN_CHARS_PER_EM = 0.4  # Latin scans 1.9-2.8, Chinese/Japanese 0.8-0.9; Hangul, Cyrillic, Greek through PP-OCR <0.2
MAX_UNREAD = 0.5  # share of detected lines with no text or too low a confidence: English 0-0.01, Korean 0.6-0.9
MIN_EMS = 20.0  # less detected text than this (a caption, a page number) is too little to judge


@dataclass(frozen=True)
class Trust:
    """What OCR made of one page's detected lines."""

    lines: int
    ems: float  # the detected lines' widths in line heights: how much text the page shows
    characters: int  # characters read (spaces not counted) on lines that were kept
    unread: float  # share of lines that gave no text or a confidence below MIN_CONFIDENCE
    mean_confidence: float  # over all lines, 0 for a line that gave no text

    @property
    def chars_per_em(self) -> float:
        return self.characters / self.ems if self.ems else 0.0

    @property
    def trusted(self) -> bool:
        return self.ems < MIN_EMS or (self.chars_per_em >= MIN_CHARS_PER_EM and self.unread <= MAX_UNREAD)

    def describe(self) -> str:
        return (f"{self.chars_per_em:.2f} characters read per em of detected text, {self.unread:.0%} of "
                f"{self.lines} lines unread, mean confidence {self.mean_confidence:.2f}")


def measure(readings: Iterable[tuple[str, float, PixelBox]]) -> Trust:
    """The trust measure of a page from its lines: (recognized text, confidence, box in pixels) each."""
    lines = unread = characters = 0
    ems = confidence_sum = 0.0
    for text, confidence, (x0, y0, x1, y1) in readings:
        lines += 1
        ems += (x1 - x0) / max(1, y1 - y0)
        text = text.strip()
        if not text or confidence < MIN_CONFIDENCE:
            unread += 1
        else:
            characters += sum(1 for c in text if not c.isspace())
        confidence_sum += confidence if text else 0.0
    return Trust(lines, ems, characters, unread / lines if lines else 0.0,
                 confidence_sum / lines if lines else 0.0)
