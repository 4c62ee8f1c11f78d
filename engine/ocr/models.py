"""Where the PP-OCR ONNX files come from: an operator's folder, else the rapidocr wheel."""

from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

DET_FILE = "PP-OCRv6_det_small.onnx"
REC_FILE = "PP-OCRv6_rec_small.onnx"


@dataclass(frozen=True)
class OcrModelFiles:
    det: Path
    rec: Path


def find_ocr_models(folder: Path | None = None) -> OcrModelFiles:
    """The det/rec files in `folder` (an operator's bigger weights) or in the rapidocr wheel."""
    if folder is None:
        spec = find_spec("rapidocr")
        if spec is None or spec.origin is None:
            raise FileNotFoundError("the rapidocr wheel is not installed and no OCR model folder is set")
        folder = Path(spec.origin).parent / "models"
    files = OcrModelFiles(det=folder / DET_FILE, rec=folder / REC_FILE)
    missing = [str(p) for p in (files.det, files.rec) if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"OCR model files missing: {', '.join(missing)}")
    return files
