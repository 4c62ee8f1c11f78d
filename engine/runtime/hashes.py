"""sha256 of model files, read once per version of a file: remembered in the process and in a small JSON file in
the engine cache, both keyed on the file's path, size and modification time."""

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

CACHE_FILE = "file-sha256.json"  # {path: [size, mtime_ns, sha256]}

_known: dict[tuple[str, int, int], str] = {}
_lock = threading.Lock()


def engine_cache(cache_dir: Path | None) -> Path:
    """Where derived models and file hashes are kept: the engine cache, or folio-engines in the temporary directory."""
    return cache_dir or Path(tempfile.gettempdir()) / "folio-engines"


def file_sha256(path: Path, cache_dir: Path | None = None) -> str:
    """The file's sha256; read from the file only when neither this process nor the cache (`engine_cache`) knows
    this version of it."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key in _known:
        return _known[key]
    folder = engine_cache(cache_dir)
    stored = _read(folder).get(key[0])
    if isinstance(stored, list) and tuple(stored[:2]) == key[1:]:
        digest = stored[2]
    else:
        digest = _hash(path)
        _remember(folder, key, digest)
    _known[key] = digest
    return digest


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _read(cache_dir: Path) -> dict[str, list]:
    try:
        stored = json.loads((cache_dir / CACHE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) else {}


def _remember(cache_dir: Path, key: tuple[str, int, int], digest: str) -> None:
    """Adds the hash to the cache file, replaced whole (a reader never sees half of it); a cache that cannot be
    written is skipped: the hash is only read again next time."""
    with _lock:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            stored = _read(cache_dir)
            stored[key[0]] = [key[1], key[2], digest]
            handle, partial = tempfile.mkstemp(dir=cache_dir, prefix=f".{CACHE_FILE}.")
            with os.fdopen(handle, "w") as out:
                json.dump(stored, out)
            os.replace(partial, cache_dir / CACHE_FILE)
        except OSError:
            return
