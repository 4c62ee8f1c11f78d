"""Tables typed in a monospaced font, their columns lined up with spaces: a text-layer line a row of cells.

Reports printed from text files (statistical releases, listings, mainframe output) set a table's row as one line
of text in Courier or the like, its cells lined up by runs of spaces. The text layer holds each such row as one
run of text, so the table finders see one piece a row and no columns. Two spaces or more of a monospaced font
(SPACED_CELL ems) part two cells there; a single space stays inside a cell ("District of Columbia").
"""

import re

from engine.types import Line
from engine.words import cut_between

MONOSPACED = re.compile(r"cour|mono|consol|typewriter|fixed|lucidaconsole|cmtt|menlo", re.IGNORECASE)
SPACED_CELL = 1.1  # ems: two spaces of a monospaced font are 1.2


def spaced_apart(line: Line) -> list[Line]:
    """A text-layer line set in a monospaced font, cut into one piece a cell where its words stand SPACED_CELL ems
    or more apart; any other line whole."""
    if line.confidence is not None or len(line.words) < 2 or not line.spans \
            or not all(MONOSPACED.search(span.font) for span in line.spans):
        return [line]
    return cut_between(line, lambda before, word: word.bbox[0] - before.bbox[2] >= SPACED_CELL * line.size)
