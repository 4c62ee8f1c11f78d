import errno
import time
from pathlib import Path

import pymupdf
import pytest

from db.store import storable, storable_metadata
from pages.budget import PageBudget, TimeLimit
from sources.failures import OutOfTime, OverBudget, reason
from tests import pdfs


def test_a_block_over_its_time_is_interrupted_and_one_within_it_is_not():
    started = time.monotonic()
    with pytest.raises(OutOfTime):
        with TimeLimit(0.2):
            while True:
                pass
    assert time.monotonic() - started < 5
    with TimeLimit(0.2):
        total = sum(range(1000))
    time.sleep(0.5)  # nothing is raised after the block
    assert total == 499500


def test_a_block_that_ends_after_its_time_is_out_of_time_even_if_nothing_interrupted_it():
    with pytest.raises(OutOfTime):
        with TimeLimit(0.05):
            time.sleep(0.3)  # native code: the interruption waits for it to return


def test_time_running_out_inside_python_code_that_native_code_called_is_out_of_time():
    """Native code that calls Python code (PyMuPDF reading a Rect) and returns with the interruption still set
    fails with a SystemError caused by it, as CPython's check of a function's result makes it."""
    with pytest.raises(OutOfTime) as raised:
        with TimeLimit(0.05):
            try:
                while True:
                    pass
            except OutOfTime as interruption:
                raise SystemError("<built-in function util_transform_rect> returned a result with an exception "
                                  "set") from interruption
    assert isinstance(raised.value.__cause__, SystemError)
    with pytest.raises(SystemError):  # a failure of its own within the time stays what it is
        with TimeLimit(5):
            raise SystemError("a library's own fault")


def test_a_page_over_its_budget_says_which_and_where_to_change_it():
    budget = PageBudget(text_objects=100, characters=1000, drawings=10, seconds=5)
    budget.check(100, 1000, 10)
    with pytest.raises(OverBudget, match=r"^over budget: 2,000 characters of text on the page, "
                                         r"FOLIO_PAGE_MAX_CHARACTERS is 1,000$"):
        budget.check(10, 2000, 0)
    with pytest.raises(OverBudget, match="FOLIO_PAGE_MAX_DRAWINGS is 10$"):
        budget.check(10, 10, 11)
    assert budget.out_of_time("parsing the page") == \
        "over budget: parsing the page took more than 5 s (FOLIO_PAGE_TIMEOUT_SECONDS)"


def test_errors_of_one_file_or_page_become_readable_reasons(tmp_path: Path):
    with pymupdf.open(pdfs.page_tree_cycle_pdf(tmp_path)) as document:
        with pytest.raises(Exception) as cycle:
            document.load_page(0)
    assert reason(cycle.value) == "corrupt: cycle in page tree"
    with pymupdf.open(pdfs.lying_count_pdf(tmp_path)) as document:
        with pytest.raises(Exception) as count:
            len(document)
    assert reason(count.value) == "corrupt: invalid number of pages"
    assert reason(PermissionError(errno.EACCES, "Permission denied")) == "unreadable: permission denied"
    assert reason(FileNotFoundError(errno.ENOENT, "No such file or directory")) == "vanished during the run"
    assert reason(OSError(errno.EIO, "Input/output error")) == "unreadable: input/output error"
    assert reason(KeyError("glyph")) == "error: KeyError: 'glyph'"


def test_text_postgresql_cannot_store_is_replaced_and_metadata_says_where():
    assert storable("A\udced\udca0\udc80 B\x00C") == "A\ufffd\ufffd\ufffd B\ufffdC"
    assert storable_metadata({"title": "A\ud800", "author": "Harbour Board", "repaired": True}) == {
        "title": "A\ufffd", "author": "Harbour Board", "repaired": True, "sanitized": ["title"]}
    assert storable_metadata({"title": "Minutes"}) == {"title": "Minutes"}
