import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from base.settings import get_settings
from sources.failures import BadDocument
from sources.files import HeldFile, hash_file
from sources.listing import list_source, path_uri, uri_path


@pytest.mark.parametrize("name", [b"plain.pdf", b"caf\xc3\xa9.pdf", b"caf\xe9.pdf", b"back\\slash.pdf",
                                  b"looks-escaped-\\xe9.pdf", b"\xff\xfe\\\\x.pdf"])
def test_every_file_name_is_stored_as_text_that_gives_the_file_back(name: bytes):
    path = Path(os.fsdecode(b"/archive/" + name))
    uri = path_uri(path)
    uri.encode("utf-8")  # PostgreSQL text takes it
    assert os.fsencode(uri_path(uri)) == b"/archive/" + name


def test_names_read_as_they_are_when_they_are_utf8_and_with_escapes_when_not():
    assert path_uri(Path("/archive/café.pdf")) == "/archive/café.pdf"
    assert path_uri(Path(os.fsdecode(b"/archive/caf\xe9.pdf"))) == "/archive/caf\\xe9.pdf"
    assert path_uri(Path("/archive/looks-escaped-\\xe9.pdf")) == "/archive/looks-escaped-\\\\xe9.pdf"


def test_links_out_of_the_folder_are_listed_as_refused_unless_followed(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    folder, elsewhere = tmp_path / "folder", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (elsewhere / "outside.pdf").write_bytes(b"%PDF-1.7")
    (folder / "inside.pdf").write_bytes(b"%PDF-1.7 inside")
    (folder / "link-in.pdf").symlink_to(folder / "inside.pdf")
    (folder / "link-out.pdf").symlink_to(elsewhere / "outside.pdf")
    listed = {Path(file.uri).name: file.refused for file in list_source(str(folder))}
    assert listed == {"inside.pdf": None, "link-out.pdf": "refused: a symbolic link out of the source folder "
                                                            "(FOLIO_FOLLOW_SYMLINKS=1 follows it)"}
    monkeypatch.setenv("FOLIO_FOLLOW_SYMLINKS", "1")
    get_settings.cache_clear()
    try:
        assert {Path(file.uri).name: file.refused for file in list_source(str(folder))} == {
            "inside.pdf": None, "outside.pdf": None}
    finally:
        get_settings.cache_clear()


def test_hashing_gives_the_sha256_and_refuses_what_it_cannot_read(tmp_path: Path):
    data = b"%PDF-1.7 some bytes"
    path = tmp_path / "a.pdf"
    path.write_bytes(data)
    assert hash_file(path, 1000)[0] == hashlib.sha256(data).hexdigest()
    with pytest.raises(BadDocument, match=r"^too large: 19 bytes, the limit is 10$"):
        hash_file(path, 10)
    with pytest.raises(BadDocument, match="^vanished during the run$"):
        hash_file(tmp_path / "gone.pdf", 1000)
    os.mkfifo(tmp_path / "pipe.pdf")
    with pytest.raises(BadDocument, match="^unreadable: not a regular file$"):
        hash_file(tmp_path / "pipe.pdf", 1000)  # and does not wait for a writer
    (tmp_path / "link.pdf").symlink_to(path)
    with pytest.raises(BadDocument, match="^refused: the file was replaced by a symbolic link$"):
        hash_file(tmp_path / "link.pdf", 1000)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem")
def test_an_input_output_error_is_a_reason_not_a_crash():
    with pytest.raises(BadDocument, match="^unreadable: input/output error$"):
        hash_file(Path("/proc/self/mem"), 1000)


def test_a_file_without_read_permission_is_unreadable(tmp_path: Path):
    path = tmp_path / "locked.pdf"
    path.write_bytes(b"%PDF-1.7")
    path.chmod(0)
    check = "from pathlib import Path; from sources.files import hash_file\n" \
            f"try: hash_file(Path({str(path)!r}), 1000)\nexcept Exception as error: print(error)"
    command = [sys.executable, "-c", check]
    if os.geteuid() == 0:  # root reads any file: check without the capabilities that let it
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop the capability to read any file")
        command = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
                          timeout=120)
    assert done.stdout.strip() == "unreadable: permission denied", done.stderr


def test_a_held_file_is_the_file_hashed_or_its_document_fails_as_changed(tmp_path: Path):
    path = tmp_path / "a.pdf"
    path.write_bytes(b"%PDF-1.7 first")
    sha256, identity = hash_file(path, 1000)
    with HeldFile(path, sha256, identity, 1000) as held:
        path.rename(tmp_path / "moved.pdf")
        path.write_bytes(b"%PDF-1.7 other")  # replaced while held: the parser still reads what was hashed
        assert Path(held.path).read_bytes() == b"%PDF-1.7 first" and held.unchanged()
    with pytest.raises(BadDocument, match="^changed during the run: the file no longer holds the bytes"):
        HeldFile(path, sha256, identity, 1000)
    path.write_bytes(b"%PDF-1.7 first")  # the same bytes again (copied back): accepted after hashing them
    with HeldFile(path, sha256, identity, 1000) as held:
        with open(path, "ab") as out:
            out.write(b" and more")
        assert not held.unchanged()
    path.unlink()
    with pytest.raises(BadDocument, match="^vanished during the run$"):
        HeldFile(path, sha256, identity, 1000)
