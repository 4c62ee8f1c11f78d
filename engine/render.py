"""Page pixels from PyMuPDF, within a pixel budget so that huge pages cannot exhaust memory."""

import math

import numpy as np
import pymupdf


def render_scale(width_pt: float, height_pt: float, dpi: float, max_pixels: int) -> float:
    """Pixels per point: `dpi` unless the page would exceed `max_pixels`, then less."""
    scale = dpi / 72.0
    pixels = width_pt * height_pt * scale * scale
    if pixels > max_pixels:
        scale *= math.sqrt(max_pixels / pixels)
    return scale


def render_page(page: pymupdf.Page, scale: float) -> np.ndarray:
    """The page as an RGB uint8 array (H, W, 3) at `scale` pixels per point."""
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csRGB, alpha=False)
    return np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width, 3).copy()
