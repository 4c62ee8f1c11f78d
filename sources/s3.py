"""S3 (and S3-compatible) sources through boto3: listing a prefix, and objects streamed to a local spool.

Credentials come only from boto3's own chain (environment, config files, instance roles) and are
never logged. The endpoint is boto3's too (AWS_ENDPOINT_URL), or FOLIO_S3_ENDPOINT_URL.
"""

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from base.settings import get_settings
from db.store import SourceFile
from sources.failures import s3_error_code
from sources.files import FileIdentity

_CHUNK = 1 << 20


def split_uri(uri: str) -> tuple[str, str]:
    """(bucket, key or prefix) of s3://bucket/key."""
    if not uri.startswith("s3://"):
        raise ValueError(f"not an S3 URI: {uri}")
    bucket, _, key = uri[len("s3://"):].partition("/")
    if not bucket:
        raise ValueError(f"no bucket in {uri}")
    return bucket, key


@lru_cache(maxsize=4)
def s3_client(endpoint_url: str | None = None, read_timeout: float = 60.0) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("s3", endpoint_url=endpoint_url or None,
                        config=Config(retries={"mode": "adaptive", "max_attempts": 5}, read_timeout=read_timeout))


def client() -> Any:
    settings = get_settings()
    return s3_client(settings.s3_endpoint_url, settings.s3_read_timeout_seconds)


def list_objects(uri: str) -> list[SourceFile]:
    """The PDFs under an S3 "folder" (recursively, hidden parts skipped), or the one object named."""
    from botocore.exceptions import ClientError

    bucket, key = split_uri(uri)
    single = key.lower().endswith(".pdf")
    prefix = key if single or not key else key.rstrip("/") + "/"

    try:
        pages = list(client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix))
    except ClientError as error:
        code = s3_error_code(error)
        if code in ("NoSuchBucket", "AccessDenied", "AllAccessDisabled"):
            raise FileNotFoundError(f"source not found: {uri} ({code})") from None
        raise
    found = []
    for page in pages:
        for item in page.get("Contents", []):
            name = item["Key"]
            if single and name != key:
                continue  # an object was named: not others whose keys start with its key
            if not name.lower().endswith(".pdf") or any(part.startswith(".") for part in
                                                        name[len(prefix):].split("/")):
                continue
            found.append(SourceFile(uri=f"s3://{bucket}/{name}", path=None, size_bytes=int(item["Size"]),
                                    modified_at=item["LastModified"], etag=item["ETag"].strip('"')))
    return found


def spool_path(uri: str, spool: Path) -> Path:
    return spool / (hashlib.sha256(uri.encode()).hexdigest()[:32] + ".pdf")


def fetch(file: SourceFile, spool: Path) -> tuple[SourceFile, str, FileIdentity]:
    """The object streamed to the spool, its sha256 and the spooled file's identity. The read fails if the object
    changed since it was listed (another ETag); the size limit is checked before, on the listed size. A read that
    stalls for FOLIO_S3_READ_TIMEOUT_SECONDS raises botocore's ReadTimeoutError, which the task retries."""
    bucket, key = split_uri(file.uri)
    response = client().get_object(Bucket=bucket, Key=key, **({"IfMatch": file.etag} if file.etag else {}))
    digest = hashlib.sha256()
    spool.mkdir(parents=True, exist_ok=True)
    target = spool_path(file.uri, spool)
    partial = target.with_suffix(".part")
    try:
        with open(partial, "wb") as out:
            for chunk in response["Body"].iter_chunks(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
    except BaseException:  # a read that timed out or broke off leaves no part of the object behind
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return replace(file, path=target), digest.hexdigest(), FileIdentity.of(target.stat())


def put_files(files: Iterable[tuple[str, bytes]], prefix_uri: str, content_type: str) -> int:
    """Write each (name, bytes) as an object under the S3 prefix; returns how many."""
    bucket, prefix = split_uri(prefix_uri)
    prefix = prefix.rstrip("/") + "/" if prefix else ""
    count = 0
    for name, body in files:
        client().put_object(Bucket=bucket, Key=prefix + name, Body=body, ContentType=content_type)
        count += 1
    return count


def read_object(uri: str) -> bytes:
    """The bytes of the object at an s3:// URI."""
    bucket, key = split_uri(uri)
    return client().get_object(Bucket=bucket, Key=key)["Body"].read()
