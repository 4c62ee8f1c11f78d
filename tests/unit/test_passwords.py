"""The password file under FOLIO_HOME: generated once per role, kept 0600, in libpq's format."""

import base64
import re
import stat
from pathlib import Path

from db.passwords import password, read_password, scram_verifier


def test_a_password_is_generated_once_per_role_and_kept_private(tmp_path: Path):
    path = tmp_path / "home" / "pgpass"
    assert read_password(path, "postgres") is None
    first = password(path, "postgres")
    assert len(first) >= 40 and password(path, "postgres") == first
    reader = password(path, "folio_reader")
    assert reader != first and read_password(path, "folio_reader") == reader
    assert path.read_text() == f"*:*:*:postgres:{first}\n*:*:*:folio_reader:{reader}\n"  # libpq's passfile format
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_file_others_may_read_is_closed_and_escapes_are_read(tmp_path: Path):
    path = tmp_path / "pgpass"
    path.write_text("host:5432:db:odd\\:name:se\\:cret")  # written by hand: no final newline, escaped colons
    path.chmod(0o644)
    assert read_password(path, "odd:name") == "se:cret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # libpq would ignore it otherwise
    added = password(path, "postgres")
    assert path.read_text().splitlines()[1] == f"*:*:*:postgres:{added}"


def test_a_scram_verifier_has_postgresql_s_form():
    verifier = scram_verifier("pencil")
    match = re.fullmatch(r"SCRAM-SHA-256\$4096:([^$]+)\$([^:]+):(.+)", verifier)
    assert match and [len(base64.b64decode(part)) for part in match.groups()] == [16, 32, 32]
    assert scram_verifier("pencil") != verifier  # a new salt each time
