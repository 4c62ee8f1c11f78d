"""A fake parser and helpers for tests that call the plain functions behind the tasks on real PostgreSQL."""

from pathlib import Path

from sqlalchemy import Engine, text

from db.store import Claim
from engine.page_source import PageSource
from engine.types import Block, PageInput, PageResult
from pages.batch import Batch
from runs.batches import make_batches
from runs.register import Registered, register_files
from sources.listing import list_source

CLAIM = Claim("test-run", 600)


class FakeParser:
    """A PageParser that reads nothing: each page's text layer as one text block per line, the keys of the pages
    it was called on kept; the pages whose keys are in `broken` make it raise."""

    models: dict[str, object] = {}
    missing: dict[str, str] = {}

    def __init__(self, version: str, broken: frozenset[str] = frozenset()):
        self.version = version
        self.broken = broken
        self.keys: list[str] = []

    def __call__(self, inputs: list[PageInput], source: PageSource | None = None) -> list[PageResult]:
        self.keys += [item.key for item in inputs]
        if broken := self.broken & {item.key for item in inputs}:
            raise RuntimeError(f"cannot parse {', '.join(sorted(broken))}")
        return [PageResult(key=item.key, width=item.width, height=item.height, text_layer=True,
                           blocks=[Block("text", line.bbox, [line], line.text, order=order)
                                   for order, line in enumerate(item.text_lines)],
                           engine_version=self.version, stage_seconds={"FakeParser": 0.0}) for item in inputs]


def registered(database: Engine, folder: Path) -> list[Registered]:
    return register_files(list_source(str(folder)), database, 10**9, CLAIM)


def batch(database: Engine, folder: Path, reuse: bool = True) -> Batch:
    (only,) = make_batches(registered(database, folder), 16, CLAIM, reuse)
    return only


def pages(database: Engine, folder: Path) -> list[tuple]:
    """(page no, status, engine version, copied from a stored page, error) of each page of the folder's documents."""
    with database.connect() as connection:
        return [tuple(row) for row in connection.execute(text(
            "SELECT p.page_no, p.status, p.engine_version, p.reused_from IS NOT NULL, p.error FROM pages p "
            "JOIN documents d ON d.id = p.document_id WHERE d.first_source LIKE :folder ORDER BY d.id, p.page_no"),
            {"folder": f"{folder}/%"})]
