"""Where the PP-OCR ONNX files come from: an operator's folder, else the rapidocr wheel (the text-line
direction classifier, which an operator's folder may lack, from the wheel where the folder has none)."""

from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from engine.runtime.tensorrt import Profile

DET_FILE = "PP-OCRv6_det_small.onnx"
REC_FILE = "PP-OCRv6_rec_small.onnx"
CLS_FILE = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"  # text-line direction: upright or upside down
DET_MAX_BATCH, DET_MAX_SIDE = 4, 2048
REC_MAX_BATCH, REC_MAX_WIDTH, REC_HEIGHT = 8, 2400, 48
DET_PROFILE = Profile("x", (1, 3, 32, 32), (DET_MAX_BATCH, 3, 1664, 1280),
                      (DET_MAX_BATCH, 3, DET_MAX_SIDE, DET_MAX_SIDE))
REC_PROFILE = Profile("x", (1, 3, REC_HEIGHT, 16), (REC_MAX_BATCH, 3, REC_HEIGHT, 800),
                      (REC_MAX_BATCH, 3, REC_HEIGHT, REC_MAX_WIDTH))
CLS_MAX_BATCH, CLS_HEIGHT, CLS_WIDTH = 16, 48, 192
CLS_PROFILE = Profile("x", (1, 3, CLS_HEIGHT, CLS_WIDTH), (CLS_MAX_BATCH, 3, CLS_HEIGHT, CLS_WIDTH),
                      (CLS_MAX_BATCH, 3, CLS_HEIGHT, CLS_WIDTH))


@dataclass(frozen=True)
class OcrModelFiles:
    det: Path
    rec: Path
    cls: Path | None = None  # None: pages are read the way they lie (no orientation detection)


def find_ocr_models(folder: Path | None = None) -> OcrModelFiles:
    """The det/rec files in `folder` (an operator's bigger weights) or in the rapidocr wheel."""
    wheel = _wheel_models()
    if folder is None:
        if wheel is None:
            raise FileNotFoundError("the rapidocr wheel is not installed and no OCR model folder is set")
        folder = wheel
    candidates = [folder / CLS_FILE] + ([wheel / CLS_FILE] if wheel is not None else [])
    cls = next((path for path in candidates if path.is_file()), None)
    files = OcrModelFiles(det=folder / DET_FILE, rec=folder / REC_FILE, cls=cls)
    missing = [str(p) for p in (files.det, files.rec) if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"OCR model files missing: {', '.join(missing)}")
    return files


def _wheel_models() -> Path | None:
    spec = find_spec("rapidocr")
    return None if spec is None or spec.origin is None else Path(spec.origin).parent / "models"
