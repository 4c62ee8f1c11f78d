"""A parser's identity: what its results depend on (the engine's code version, the settings that change results,
the sha256 of every model file it loads), as one readable version stored with each page."""

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.runtime.hashes import file_sha256

NOT_LOADED = "not loaded"
SHOWN = 12  # hex digits of a digest shown in versions and by `folio engine info`

Setting = str | int | float | bool


@dataclass(frozen=True)
class Identity:
    code: str  # ENGINE_VERSION, or vlm:<model>:<format>:<ENGINE_VERSION>
    settings: tuple[tuple[str, Setting], ...] = ()  # (name, value) of each setting that changes results
    models: tuple[tuple[str, str], ...] = ()  # (role, sha256 of its files, or NOT_LOADED)

    @property
    def digest(self) -> str:
        parts = {"code": self.code, "settings": dict(self.settings), "models": dict(self.models)}
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    @property
    def version(self) -> str:
        """`<code>+<12 hex>`: equal for two parsers exactly when their identities are."""
        return f"{self.code}+{self.digest[:SHOWN]}"

    def parts(self) -> list[tuple[str, str]]:
        """(part, value) rows: the code version, each setting, and each model's files' digest."""
        return [("code", self.code),
                *((f"setting {name}", json.dumps(value)) for name, value in self.settings),
                *((f"model {role}", digest[:SHOWN]) for role, digest in self.models)]


def identify(code: str, settings: Mapping[str, Setting], models: Mapping[str, Sequence[Path] | None],
             cache_dir: Path | None = None, labels: Mapping[str, str] | None = None) -> Identity:
    """The identity of a parser of this code, with these settings and these models' files by role (None: the role
    has no model). A label (a program's version) counts with a role's files. File hashes are cached (runtime.hashes)."""
    labels = labels or {}
    return Identity(code, tuple(sorted(settings.items())), tuple(
        (role, NOT_LOADED if files is None else files_digest(files, cache_dir, labels.get(role, "")))
        for role, files in sorted(models.items())))


def files_digest(files: Sequence[Path], cache_dir: Path | None = None, label: str = "") -> str:
    """The sha256 of a model's files: the file's own for a single file, else that of their names and hashes."""
    if len(files) == 1 and not label:
        return file_sha256(files[0], cache_dir)
    listed = [label, *(f"{path.name} {file_sha256(path, cache_dir)}" for path in files)]
    return hashlib.sha256("\n".join(listed).encode()).hexdigest()
