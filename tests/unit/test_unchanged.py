"""Which listed files are unchanged since they were last seen, decided from the listing alone."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from db.store import Sighting, SourceFile, finished_for_good
from runs.register import unchanged_files

WHEN = datetime(2026, 11, 3, 9, 30, 15, 123456, tzinfo=UTC)


def sighting(uri: str = "/archive/a.pdf", document_id: int = 1, size: int = 1000, modified_at: datetime | None = WHEN,
             etag: str | None = None, finished: bool = True) -> Sighting:
    return Sighting(10 + document_id, uri, document_id, f"{document_id:064x}", size, modified_at, etag, finished)


def listed(uri: str = "/archive/a.pdf", size: int = 1000, modified_at: datetime | None = WHEN,
           etag: str | None = None, refused: str | None = None) -> SourceFile:
    return SourceFile(uri, size, modified_at, etag, Path(uri), refused)


def test_a_file_is_unchanged_with_the_same_size_and_time_and_its_document_finished():
    record = SourceFile("/archive/a.pdf", 1000, WHEN)
    assert sighting().unchanged(record)
    assert not sighting().unchanged(replace(record, size_bytes=1001))
    assert not sighting().unchanged(replace(record, modified_at=WHEN + timedelta(microseconds=1)))
    assert not sighting(finished=False).unchanged(record)  # pending, processing, or failed for what its file did
    assert not sighting(modified_at=None).unchanged(replace(record, modified_at=None))  # time unknown: read it
    # as PostgreSQL gives it back in the session's time zone: the same instant
    assert sighting(modified_at=WHEN.astimezone(timezone(timedelta(hours=5, minutes=30)))).unchanged(record)


def test_an_s3_object_is_unchanged_with_the_same_size_and_etag_whatever_its_time():
    seen = sighting("s3://archive/a.pdf", etag="9b2cf535f27731c974343645a3985328")
    record = SourceFile("s3://archive/a.pdf", 1000, WHEN + timedelta(days=1), "9b2cf535f27731c974343645a3985328")
    assert seen.unchanged(record)
    assert not seen.unchanged(replace(record, etag="0f343b0931126a20f133d67c2b018a3b"))
    assert not seen.unchanged(replace(record, size_bytes=999))


def test_only_documents_finished_for_good_are_left_alone():
    assert finished_for_good("done", None) and finished_for_good("quarantined", "1 of 3 pages quarantined")
    assert finished_for_good("failed", "encrypted: password required")  # its bytes fail again: reprocess them
    assert not finished_for_good("failed", "vanished during the run")  # its file's doing: read it again
    assert not finished_for_good("failed", "unreadable: permission denied")
    assert not finished_for_good("processing", "incomplete: 2 of 5 pages not stored")
    assert not finished_for_good("pending", None)


def test_listed_files_are_matched_with_the_sightings_of_their_own_path():
    files = [listed("/archive/a.pdf"), listed("/archive/b.pdf"), listed("/archive/c.pdf", size=5),
             listed("/archive/new.pdf"), listed("/archive/link.pdf", refused="refused: a symbolic link")]
    seen = {
        "/archive/a.pdf": [sighting("/archive/a.pdf", 1)],
        # b.pdf held other bytes once (another size) and holds document 3 now
        "/archive/b.pdf": [sighting("/archive/b.pdf", 2, size=7), sighting("/archive/b.pdf", 3)],
        "/archive/c.pdf": [sighting("/archive/c.pdf", 4)],
        "/archive/link.pdf": [sighting("/archive/link.pdf", 5)],
    }
    found = unchanged_files(files, seen)
    assert {uri: s.document_id for uri, s in found.items()} == {"/archive/a.pdf": 1, "/archive/b.pdf": 3}
    assert unchanged_files(files, {}) == {}
