"""`folio run s3://…` end to end against a real S3-compatible server on loopback (moto in server mode)."""

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from urllib.request import Request, urlopen

import boto3
import pytest
from sqlalchemy import text

from base.database import database as configured_database
from base.settings import Settings
from tests import pdfs
from tests.integration.folio_process import FolioProcess, FolioRun, free_port

SECRET = "folio-test-secret-key-never-logged"


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    urlopen(Request(f"http://127.0.0.1:{port}/moto-api/reset", method="POST"))
    yield f"http://127.0.0.1:{port}"
    server.stop()


class Network:
    """Moto's S3 app behind a network the test steers: it counts the GETs of each object (by the key's last part)
    and runs a hook in place of the first GET of the objects named in `first_read`."""

    def __init__(self, app: Callable):
        self.app = app
        self.reads: Counter[str] = Counter()
        self.first_read: dict[str, Callable[[dict, Callable], Iterable[bytes]]] = {}

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        name = environ["PATH_INFO"].rsplit("/", 1)[-1]
        if environ["REQUEST_METHOD"] != "GET" or not name.endswith(".pdf"):
            return self.app(environ, start_response)
        self.reads[name] += 1
        hook = self.first_read.pop(name, None)
        return self.app(environ, start_response) if hook is None else hook(environ, start_response)

    def _started(self, environ: dict, start_response: Callable) -> bytes:
        """The app's answer: its status and headers sent on, its body given back whole to send as the hook likes."""
        answer: dict = {}
        body = b"".join(self.app(environ, lambda status, headers, *_: answer.update(status=status, headers=headers)))
        start_response(answer["status"], answer["headers"])
        return body

    def stall(self, seconds: float) -> Callable[[dict, Callable], Iterable[bytes]]:
        """A read that sends half the object, then nothing for `seconds` (the reader times out), then drops."""
        def stalled(environ: dict, start_response: Callable) -> Iterable[bytes]:
            body = self._started(environ, start_response)
            yield body[:len(body) // 2]
            time.sleep(seconds)
        return stalled

    def hold(self, reached: threading.Event, release: threading.Event) -> Callable[[dict, Callable], Iterable[bytes]]:
        """A read that sends half the object, says so (`reached`), and sends the rest once `release` is set."""
        def held(environ: dict, start_response: Callable) -> Iterable[bytes]:
            body = self._started(environ, start_response)
            yield body[:len(body) // 2]
            reached.set()
            release.wait(120)
            yield body[len(body) // 2:]
        return held

    def replace_before(self, put: Callable[[], object]) -> Callable[[dict, Callable], Iterable[bytes]]:
        """A read that finds the object replaced (`put`) since it was listed."""
        def replaced(environ: dict, start_response: Callable) -> Iterable[bytes]:
            put()
            return self.app(environ, start_response)
        return replaced


@pytest.fixture
def network() -> Iterator[tuple[str, Network]]:
    """An S3 endpoint (moto, on loopback) behind a Network, with no buckets."""
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    steered = Network(DomainDispatcherApplication(create_backend_app))
    server = make_server("127.0.0.1", 0, steered, threaded=True)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    endpoint = f"http://127.0.0.1:{server.server_port}"
    urlopen(Request(f"{endpoint}/moto-api/reset", method="POST"))  # moto's buckets live in the process, not the server
    yield endpoint, steered
    server.shutdown()
    serving.join()


def credentials(endpoint: str) -> dict[str, str]:
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "folio-test", "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_DEFAULT_REGION": "us-east-1"}


def test_a_run_over_an_s3_prefix(s3_endpoint: str, tmp_path: Path, new_database_url):
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="folio-test",
                      aws_secret_access_key=SECRET, region_name="us-east-1")
    s3.create_bucket(Bucket="archive")
    local = tmp_path / "local"
    local.mkdir()
    report, scan = pdfs.two_column_pdf(local), pdfs.scan_pdf(local)
    s3.upload_file(str(report), "archive", "deliveries/2026-11/report.pdf")
    s3.upload_file(str(scan), "archive", "deliveries/2026-11/box 3/scan.PDF")
    s3.upload_file(str(report), "archive", "deliveries/2026-11/.trash/report.pdf")  # hidden: skipped
    s3.put_object(Bucket="archive", Key="deliveries/2026-11/notes.txt", Body=b"not a pdf")
    s3.upload_file(str(scan), "archive", "deliveries/2026-110/other.pdf")  # another prefix
    etag = s3.head_object(Bucket="archive", Key="deliveries/2026-11/report.pdf")["ETag"].strip('"')

    url = new_database_url()
    home = tmp_path / "home"
    run = FolioRun("s3://archive/deliveries/2026-11", url, home, **credentials(s3_endpoint))
    assert run.finish() == 0, "".join(run.lines)[-3000:]
    output = "".join(run.lines)
    assert SECRET not in output

    database = configured_database(Settings(database_url=url))
    with database.connect() as connection:
        sources = connection.execute(text(
            "SELECT s.uri, s.etag, d.status FROM document_sources s JOIN documents d ON d.id = s.document_id "
            "ORDER BY s.uri")).all()
        pages = connection.execute(text("SELECT count(*) FROM pages WHERE status = 'done'")).scalar()
        found = connection.execute(text("SELECT count(*) FROM blocks WHERE text LIKE '%Harbour Board%'")).scalar()
    assert [(uri, status) for uri, _, status in sources] == [
        ("s3://archive/deliveries/2026-11/box 3/scan.PDF", "done"),
        ("s3://archive/deliveries/2026-11/report.pdf", "done")]
    assert sources[1].etag == etag
    assert pages == 3 and found == 1
    assert not list((home / "spool").glob("*")), "streamed objects are removed once their documents are done"

    export = FolioProcess(["export", "--out", "s3://archive/exports/2026-11"], url, home, **credentials(s3_endpoint))
    assert export.finish() == 0, "".join(export.lines)[-3000:]
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket="archive", Prefix="exports/")["Contents"]]
    assert len(keys) == 2 and all(key.startswith("exports/2026-11/") and key.endswith(".json") for key in keys)
    exported = json.loads(s3.get_object(Bucket="archive", Key=keys[0])["Body"].read())
    assert exported["document"]["status"] == "done"

    # searchable PDFs of documents seen in S3: each original read again from its object
    export = FolioProcess(["export", "--format", "pdf", "--out", "s3://archive/searchable"], url, home,
                          **credentials(s3_endpoint))
    assert export.finish() == 0, "".join(export.lines)[-3000:]
    written = {item["Key"]: s3.get_object(Bucket="archive", Key=item["Key"])
               for item in s3.list_objects_v2(Bucket="archive", Prefix="searchable/")["Contents"]}
    assert {response["ContentType"] for response in written.values()} == {"application/pdf"}
    bodies = [response["Body"].read() for response in written.values()]
    assert report.read_bytes() in bodies  # born-digital: the original as it is
    [searchable] = [body for body in bodies if body != report.read_bytes()]
    assert searchable.startswith(scan.read_bytes()) and len(searchable) > len(scan.read_bytes())

    again = FolioRun("s3://archive/deliveries/2026-11", url, home, **credentials(s3_endpoint))
    assert again.finish() == 0, "".join(again.lines)[-3000:]
    assert "  files  2 listed: 2 unchanged\n" in "".join(again.lines)  # same ETags: unread
    assert not (home / "spool").exists() or not list((home / "spool").glob("*"))


def test_a_missing_bucket_is_a_clear_error(s3_endpoint: str, tmp_path: Path, new_database_url):
    run = FolioRun("s3://no-such-bucket/x", new_database_url(), tmp_path / "home", **credentials(s3_endpoint))
    assert run.finish() == 2
    assert "source not found: s3://no-such-bucket/x (NoSuchBucket)" in "".join(run.lines)


def test_a_read_that_times_out_is_retried_and_the_document_stored(network: tuple[str, Network], tmp_path: Path,
                                                                   new_database_url):
    endpoint, steered = network
    s3 = client(endpoint)
    s3.create_bucket(Bucket="archive")
    s3.upload_file(str(pdfs.two_column_pdf(tmp_path)), "archive", "inbox/report.pdf")
    steered.first_read["report.pdf"] = steered.stall(6.0)
    url, home = new_database_url(), tmp_path / "home"
    run = FolioRun("s3://archive/inbox", url, home, FOLIO_S3_READ_TIMEOUT_SECONDS="1",
                   FOLIO_RETRY_DELAY_SECONDS="0.1", **credentials(endpoint))
    assert run.finish() == 0, "".join(run.lines)[-3000:]
    output = "".join(run.lines)
    assert "ReadTimeoutError" in output and "Retry 1/4 will start" in output
    assert steered.reads["report.pdf"] == 2
    with configured_database(Settings(database_url=url)).connect() as connection:
        assert connection.execute(text("SELECT status FROM documents")).scalars().all() == ["done"]
        assert connection.execute(text("SELECT count(*) FROM pages WHERE status = 'done'")).scalar() == 2
    assert not list((home / "spool").glob("*")), "nothing of the broken read is left in the spool"


def test_an_object_replaced_after_listing_or_over_the_size_limit_fails_alone(network: tuple[str, Network],
                                                                             tmp_path: Path, new_database_url):
    """Reached through FOLIO_S3_ENDPOINT_URL (boto3 is given no endpoint): an object replaced between listing and
    download fails as changed (the read asks for the listed ETag), one over FOLIO_MAX_FILE_BYTES fails without
    being downloaded, and the rest is stored."""
    endpoint, steered = network
    s3 = client(endpoint)
    s3.create_bucket(Bucket="archive")
    small, scan = pdfs.two_column_pdf(tmp_path), pdfs.scan_pdf(tmp_path)
    limit = max(small.stat().st_size, scan.stat().st_size) + 1
    s3.upload_file(str(small), "archive", "inbox/report.pdf")
    s3.upload_file(str(scan), "archive", "inbox/changing.pdf")
    s3.put_object(Bucket="archive", Key="inbox/large.pdf", Body=small.read_bytes() + b"%" * limit)
    steered.first_read["changing.pdf"] = steered.replace_before(
        lambda: s3.put_object(Bucket="archive", Key="inbox/changing.pdf", Body=small.read_bytes() + b"% v2\n"))
    url = new_database_url()
    given = {name: value for name, value in credentials(endpoint).items() if name != "AWS_ENDPOINT_URL"}
    run = FolioRun("s3://archive/inbox", url, tmp_path / "home", FOLIO_S3_ENDPOINT_URL=endpoint,
                   FOLIO_MAX_FILE_BYTES=str(limit), **given)
    assert run.finish() == 0, "".join(run.lines)[-3000:]
    with configured_database(Settings(database_url=url)).connect() as connection:
        outcomes = dict(connection.execute(text(
            "SELECT s.uri, coalesce(d.error, d.status) FROM document_sources s JOIN documents d ON d.id = "
            "s.document_id")).all())
    assert outcomes == {
        "s3://archive/inbox/report.pdf": "done",
        "s3://archive/inbox/changing.pdf": "changed during the run: the object no longer has the ETag it was "
                                           "listed with",
        "s3://archive/inbox/large.pdf": f"too large: {small.stat().st_size + limit} bytes, the limit is {limit}"}
    assert steered.reads == {"report.pdf": 1, "changing.pdf": 1}  # the large object was never read


def client(endpoint: str):
    return boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="folio-test", aws_secret_access_key=SECRET,
                        region_name="us-east-1")


def test_two_runs_of_one_home_stream_the_same_object_each_to_its_own_spool(network: tuple[str, Network],
                                                                          tmp_path: Path, new_database_url):
    """The first run's download is held half way while a second run of the same home reads the same object in
    full, parses and stores it: each run streams to a folder of its own, so neither finds the other's file moved
    or cut short; the first then leaves the document, done by the second."""
    endpoint, steered = network
    s3 = client(endpoint)
    s3.create_bucket(Bucket="archive")
    s3.upload_file(str(pdfs.two_column_pdf(tmp_path)), "archive", "inbox/report.pdf")
    reached, release = threading.Event(), threading.Event()
    steered.first_read["report.pdf"] = steered.hold(reached, release)
    url, home = new_database_url(), tmp_path / "home"
    first = FolioRun("s3://archive/inbox", url, home, **credentials(endpoint))
    assert reached.wait(300), "".join(first.lines)[-3000:]
    second = FolioRun("s3://archive/inbox", url, home, **credentials(endpoint))
    assert second.finish() == 0, "".join(second.lines)[-3000:]
    release.set()
    assert first.finish() == 0, "".join(first.lines)[-3000:]
    assert "  files  1 listed: 1 done\n" in second.lines, "".join(second.lines)[-1500:]
    assert "  files  1 listed: 1 duplicate\n" in first.lines, "".join(first.lines)[-1500:]
    assert not list((home / "spool").glob("**/*")), "each run removes its spool folder once it is done"
