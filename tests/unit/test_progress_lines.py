"""The plain progress lines of `folio run` away from a terminal: one for each new stage, then pages now and then."""

import pytest

from flows.progress import Stage, Step, tell, watching
from folio.cli.progress import PlainProgress, describe


def test_every_stage_is_described_in_words_of_its_own():
    words = [describe(Step(stage, 0, 3, detail="/archive")) for stage in Stage]
    assert len(set(words)) == len(Stage) and all(words)


def test_a_line_for_each_new_stage_then_pages_with_their_rate(capsys: pytest.CaptureFixture[str]):
    with watching(PlainProgress()):
        tell(Step(Stage.LISTING, detail="/archive"))
        tell(Step(Stage.LISTING, detail="/archive"))  # the same stage again: no new line
        tell(Step(Stage.REGISTERING, 0, 2))
        tell(Step(Stage.PARSING, 0, 3))
        tell(Step(Stage.PARSING, 3, 3))  # the last pages: always told
        tell(Step(Stage.FINISHING))
    lines = capsys.readouterr().err.splitlines()
    assert lines[:3] == ["folio: listing /archive", "folio: registering 2 files", "folio: parsing 3 pages"]
    assert lines[3].startswith("folio: 3/3 pages, ") and "pages/s, ETA 0:00:00" in lines[3]
    assert lines[4:] == ["folio: storing the summary"]
