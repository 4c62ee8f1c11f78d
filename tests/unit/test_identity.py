"""The pipeline's identity: the code version, the settings that change results and the sha256 of each model file."""

import dataclasses
import os
import re
import shutil
from pathlib import Path

import pytest

from engine import ENGINE_VERSION
from engine.config import RESULT_FIELDS, EngineConfig, VlmConfig
from engine.identity import NOT_LOADED, Identity, identify
from engine.layout_model import CDLA_FILE, find_cdla_model
from engine.ocr.models import find_ocr_models
from engine.pipeline import Pipeline
from engine.pipeline_models import pipeline_identity
from engine.runtime import hashes
from engine.types import PageInput
from engine.vlm import vlm_identity

# EngineConfig fields that change where or how fast a model runs, or where its files are found, not what it reads:
# the files found are in the identity by their sha256
NOT_RESULTS = {"device", "threads", "engine_cache", "ocr_model_dir", "ocr_models", "layout_model_dir",
               "formula_model"}


@pytest.fixture
def config(tmp_path: Path) -> EngineConfig:
    return EngineConfig(engine_cache=tmp_path / "engines", formula_model="none")


def version(config: EngineConfig, **changes) -> str:
    return pipeline_identity(dataclasses.replace(config, **changes)).version


def test_the_version_is_the_code_version_and_a_short_digest(config: EngineConfig):
    identity = pipeline_identity(config)
    assert re.fullmatch(rf"{re.escape(ENGINE_VERSION)}\+[0-9a-f]{{12}}", identity.version)
    assert identity.version == version(config)  # the same config: the same version
    parts = dict(identity.parts())
    assert parts["code"] == ENGINE_VERSION and parts["setting ocr_dpi"] == "150"
    assert parts["model formula"] == NOT_LOADED and re.fullmatch("[0-9a-f]{12}", parts["model text detection"])


def test_every_engine_setting_is_either_in_the_identity_or_cannot_change_results():
    fields = {field.name for field in dataclasses.fields(EngineConfig)}
    assert set(RESULT_FIELDS) | NOT_RESULTS == fields and not set(RESULT_FIELDS) & NOT_RESULTS


def test_settings_that_change_results_change_the_version(config: EngineConfig):
    versions = {version(config), version(config, ocr_dpi=200), version(config, max_page_pixels=30_000_000),
                version(config, ocr_int8=False)}
    assert len(versions) == 4


def test_where_and_how_fast_models_run_do_not_change_the_version(config: EngineConfig, tmp_path: Path):
    wheel = find_ocr_models(tier="small").det.parent
    small = dataclasses.replace(config, ocr_models="small")  # the files an operator's folder of small's would hold
    assert version(small, threads=3, device="cpu", engine_cache=tmp_path / "other-cache",
                   ocr_model_dir=wheel) == version(small)


def test_each_ocr_tier_has_its_own_version(config: EngineConfig):
    small, tiny, two_pass = (dict(pipeline_identity(dataclasses.replace(config, ocr_models=tier)).parts())
                             for tier in ("small", "tiny", "two-pass"))
    assert small["model text detection"] != tiny["model text detection"]
    assert small["model text recognition"] != tiny["model text recognition"]  # tiny's file and its characters
    assert two_pass["model text detection"] == small["model text detection"]
    assert two_pass["model text recognition"] == tiny["model text recognition"]
    assert two_pass["model text recognition again"] == small["model text recognition"]
    assert len({version(config, ocr_models=tier) for tier in ("small", "tiny", "two-pass")}) == 3


def test_enabling_the_formula_model_changes_the_version(config: EngineConfig):
    pytest.importorskip("latex_ocr_junia")
    assert version(config, formula_model="auto") == version(config, formula_model="junia") != version(config)


def test_another_model_file_changes_the_version(config: EngineConfig, tmp_path: Path):
    wheel = find_ocr_models(tier="small")
    small = dataclasses.replace(config, ocr_models="small")
    folder = tmp_path / "ocr"
    folder.mkdir()
    for path in (wheel.det, wheel.rec):
        (folder / path.name).symlink_to(path)
    assert version(small, ocr_model_dir=folder) == version(small)  # the same files found elsewhere
    (folder / wheel.det.name).unlink()
    shutil.copy(wheel.det, folder / wheel.det.name)
    with open(folder / wheel.det.name, "ab") as handle:
        handle.write(b"\0")
    assert version(small, ocr_model_dir=folder) != version(small)
    layout = tmp_path / "layout"
    layout.mkdir()
    (layout / CDLA_FILE).write_bytes(find_cdla_model().read_bytes()[:-1])
    assert version(config, layout_model_dir=layout) != version(config)


def test_file_hashes_are_read_once_per_version_of_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    reads: list[Path] = []
    real = hashes._hash
    monkeypatch.setattr(hashes, "_hash", lambda path: reads.append(path) or real(path))
    monkeypatch.setattr(hashes, "_known", {})
    cache = tmp_path / "engines"
    first = hashes.file_sha256(model, cache)
    assert hashes.file_sha256(model, cache) == first and len(reads) == 1
    monkeypatch.setattr(hashes, "_known", {})  # another process: the cache file knows it
    assert hashes.file_sha256(model, cache) == first and len(reads) == 1
    model.write_bytes(b"other weights")
    os.utime(model, ns=(1, 1))
    assert hashes.file_sha256(model, cache) != first and len(reads) == 2


def test_a_pipelines_results_carry_its_version(tmp_path: Path):
    identity = identify(ENGINE_VERSION, {"ocr_dpi": 150}, {"layout": None})
    page = PageInput(key="1:1", pdf_path=str(tmp_path / "a.pdf"), page_index=0, width=100, height=100, text_lines=[])
    [result] = Pipeline([], identity=identity)([page])
    assert result.engine_version == identity.version == Pipeline([], identity=identity).version
    assert Pipeline([]).version == Identity(ENGINE_VERSION).version != identity.version


def test_the_vlm_engines_version_names_its_model_and_format(tmp_path: Path):
    config = VlmConfig(url="http://localhost:1/v1", model="olmocr", engine_cache=tmp_path)
    version = vlm_identity(config).version
    assert re.fullmatch(rf"vlm:olmocr:markdown:{re.escape(ENGINE_VERSION)}\+[0-9a-f]{{12}}", version)
    assert vlm_identity(dataclasses.replace(config, url="http://gpu-2:8000/v1", concurrency=4)).version == version
    assert vlm_identity(dataclasses.replace(config, image_side=1600)).version != version
    assert vlm_identity(dataclasses.replace(config, anchor_text=True)).version != version
