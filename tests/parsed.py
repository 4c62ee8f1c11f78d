"""Test PDFs through the engine's whole pipeline on CPU (without the formula model), as folio parses a batch."""

from functools import cache
from pathlib import Path

import pymupdf

from engine.config import EngineConfig
from engine.pipeline import Pipeline, build_pipeline
from engine.types import PageResult, Table
from pages.pdf import page_input


@cache
def cpu_pipeline() -> Pipeline:
    return build_pipeline(EngineConfig(device="cpu", formula_model="none"))


def parsed_pages(pdfs: list[Path]) -> list[PageResult]:
    """The first page of each PDF, parsed in one batch (keyed by its position: "0", "1", ...)."""
    inputs = []
    for index, pdf in enumerate(pdfs):
        with pymupdf.open(pdf) as opened:
            inputs.append(page_input(opened[0], str(index), pdf))
    return cpu_pipeline()(inputs)


def parsed_page(pdf: Path) -> PageResult:
    [result] = parsed_pages([pdf])
    return result


def only_table(result: PageResult) -> Table:
    """The one table found on the page."""
    [table] = [block.table for block in result.blocks if block.type == "table"]
    return table


def cell_rows(table: Table) -> list[list[str]]:
    """The table's cell texts, row by row."""
    return [[cell.text for cell in table.cells if cell.row == row] for row in range(table.rows)]
