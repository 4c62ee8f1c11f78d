"""LaTeX for display-formula blocks, read from crops of the page rendered at the model's resolution."""

import re

import cv2
import numpy as np
import pymupdf

from engine.formula import FormulaModel
from engine.orientation import displayed_box, turn_image
from engine.types import Formula, PageState

FORMULA_DPI = 200  # the formula model was trained on renders of about this resolution
PAD = 4.0  # points of margin around the formula's box
MAX_BATCH = 16
_WRAPPER = re.compile(
    r"^\s*(\\\[|\$\$|\$|\\begin\{(equation|displaymath|align|gather)\*?\})\s*(?P<body>.*?)\s*"
    r"(\\\]|\$\$|\$|\\end\{(equation|displaymath|align|gather)\*?\})\s*$",
    re.DOTALL,
)


def strip_math_wrapper(latex: str) -> str:
    """The formula without the display-math environment the model may put around it."""
    match = _WRAPPER.match(latex)
    return match.group("body").strip() if match else latex.strip()


_GROUPING = re.compile(r"\\[{}]|\\(begin|end)\s*\{([^}]*)\}|[{}]")


def balance_groups(latex: str) -> str:
    r"""The LaTeX with its groups closed: a `}` or `\end{x}` that closes nothing dropped, and braces and
    environments still open at the end (decoding cut by the length cap) closed in order."""
    parts: list[str] = []
    open_groups: list[str] = []  # "}" for a brace, the name for an environment
    position = 0
    for match in _GROUPING.finditer(latex):
        parts.append(latex[position:match.start()])
        position = match.end()
        token, kind, name = match.group(0), match.group(1), match.group(2)
        if token == "{":
            open_groups.append("}")
        elif token == "}":
            if not open_groups or open_groups[-1] != "}":
                continue
            open_groups.pop()
        elif kind == "begin":
            open_groups.append(name)
        elif kind == "end":
            if name not in open_groups or "}" in open_groups[open_groups.index(name):]:
                continue
            while open_groups[-1] != name:
                parts.append(f"\\end{{{open_groups.pop()}}}")
            open_groups.pop()
        parts.append(token)
    parts.append(latex[position:])
    closing = ["}" if group == "}" else f"\\end{{{group}}}" for group in reversed(open_groups)]
    return "".join(parts + closing)


def flatten_paper(crop: np.ndarray) -> np.ndarray:
    """A scanned crop made to look like the clean renders the model learnt from: paper white, ink stretched.

    Pixels lighter than Otsu's threshold are paper and become white; the rest is stretched from the
    darkest ink to the paper's grey, which keeps the ink's anti-aliased edges.
    """
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    threshold, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    paper = grey > threshold
    if not paper.any() or paper.all():
        return crop
    ink, white = float(np.percentile(grey, 1)), float(np.median(grey[paper]))
    flat = np.clip((grey.astype(np.float32) - ink) * (255.0 / max(1.0, white - ink)), 0, 255)
    flat[paper] = 255
    return cv2.cvtColor(flat.astype(np.uint8), cv2.COLOR_GRAY2RGB)


class FormulaStage:
    """Renders each formula block's box and gives it LaTeX; with no model, formulas keep only their box."""

    def __init__(self, model: FormulaModel | None, dpi: int = FORMULA_DPI):
        self.model = model
        self.dpi = dpi

    def __call__(self, pages: list[PageState]) -> list[PageState]:
        if self.model is None:
            return pages
        blocks = [(page, block) for page in pages for block in page.blocks if block.type == "formula"]
        if not blocks:
            return pages
        crops = self._crops(blocks)
        for start in range(0, len(blocks), MAX_BATCH):
            chunk = blocks[start:start + MAX_BATCH]
            for (_, block), (latex, confidence) in zip(chunk, self.model(crops[start:start + MAX_BATCH])):
                latex = balance_groups(strip_math_wrapper(latex))
                if latex:
                    block.formula = Formula(latex=latex, display=True, confidence=round(confidence, 4))
        return pages

    def _crops(self, blocks) -> list[np.ndarray]:
        crops, documents = [], {}
        try:
            for page, block in blocks:
                path = page.input.pdf_path
                if path not in documents:
                    documents[path] = pymupdf.open(path)
                pdf_page = documents[path][page.input.page_index]
                x0, y0, x1, y1 = displayed_box(page, block.bbox)  # the PDF renders the displayed page
                clip = pymupdf.Rect(x0 - PAD, y0 - PAD, x1 + PAD, y1 + PAD) & pdf_page.rect
                pixmap = pdf_page.get_pixmap(dpi=self.dpi, clip=clip, colorspace=pymupdf.csRGB, alpha=False)
                crop = np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width, 3)
                crop = turn_image(crop, page.turn)  # upright, as the page is read
                scanned = block.confidence is not None  # read by OCR: its pixels come from a scan
                crops.append(flatten_paper(crop) if scanned else crop.copy())
        finally:
            for document in documents.values():
                document.close()
        return crops
