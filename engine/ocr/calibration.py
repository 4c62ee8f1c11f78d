"""Text-line images made here, to calibrate the int8 recognizer: no page of any benchmark or archive is used.

Lines of prose, numbers, codes and CJK text are set in PyMuPDF's base fonts at the sizes and resolutions
scans come in, and cut out with the margin the text detector leaves around a line.
"""

from collections.abc import Iterator

import numpy as np
import pymupdf

LINES = [
    "The committee met on 14 March 1931 to discuss the harbour accounts.",
    "Total expenditure (in thousands): 12,480.5 against 11,902.0 budgeted",
    "See section 4.2, pages 117-121, and the notes to Table 7.",
    "INVENTORY No. 1931/0457-B, box 12 of 40; condition: fair",
    "Mean absolute error 0.0345 +/- 0.0021 (n = 1,024; p < 0.05)",
    "www.example.org/archive?id=8817&lang=en  ISBN 978-3-16-148410-0",
    "Revenue grew by 7.5% year on year, while costs fell by 2.1%.",
    "CHAPTER III. THE LAND SURVEY MAPS OF THE EASTERN DISTRICT",
    "a) letters, b) ledgers, c) photographs; [d] minutes - 'draft' \"final\"",
    "Temperature 21.4 C, humidity 63 %, pressure 1013 hPa at 06:30",
]
CJK_LINES = ["档案馆收到港务局的记录共四十米", "二〇二〇年一月一日起施行"]
FONTS = ("Times-Roman", "Helvetica", "Courier", "Times-Bold")
SIZES = (8.0, 10.0, 12.0, 16.0)
DPIS = (150, 200)
MARGIN = 0.3  # of the font size, around the line's ink, as the detector's unclipped boxes leave it


def calibration_lines() -> Iterator[np.ndarray]:
    """RGB crops of single text lines, dark on light, in varied fonts, sizes and resolutions."""
    for index, text in enumerate(LINES + CJK_LINES):
        font = "china-s" if text in CJK_LINES else FONTS[index % len(FONTS)]
        for size in SIZES:
            for dpi in DPIS:
                yield _line_image(text, font, size, dpi)


def _line_image(text: str, font: str, size: float, dpi: int) -> np.ndarray:
    width = pymupdf.get_text_length(text, fontname=font, fontsize=size) if font != "china-s" else len(text) * size
    document = pymupdf.open()
    page = document.new_page(width=width + 4 * size, height=3 * size)
    page.insert_text((2 * size, 2 * size), text, fontname=font, fontsize=size)
    clip = pymupdf.Rect(2 * size, 2 * size - size * (0.8 + MARGIN), 2 * size + width, 2 * size + size * (0.2 + MARGIN))
    pixmap = page.get_pixmap(dpi=dpi, clip=clip, colorspace=pymupdf.csRGB, alpha=False)
    image = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width, 3).copy()
    document.close()
    return image
