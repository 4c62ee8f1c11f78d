"""Where folio keeps what it makes: derived models once per user, not once per home."""

import pytest

from base.settings import Settings


def test_derived_models_are_kept_once_for_every_home_of_the_user(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("FOLIO_ENGINE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first, second = Settings(home=tmp_path / "one"), Settings(home=tmp_path / "two")
    assert first.engine_cache == second.engine_cache == (tmp_path / "cache" / "folio" / "engines").resolve()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert Settings(home=tmp_path / "one").engine_cache == (tmp_path / "user" / ".cache" / "folio" / "engines")


def test_folio_engine_cache_names_the_folder(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FOLIO_ENGINE_CACHE", str(tmp_path / "models"))
    assert Settings(home=tmp_path / "one").engine_cache == (tmp_path / "models").resolve()
