"""Words of a justified line the text layer holds as lines of their own, joined (engine/stages/justified.py)."""

from engine.stages.justified import justified_lines
from engine.stages.tables import TableStage
from engine.types import Line, PageInput, PageState


def piece(value: str, x0: float, x1: float, top: float = 100.0, size: float = 9.0) -> Line:
    return Line(text=value, bbox=(x0, top, x1, top + 1.3 * size), size=size)


def test_three_or_more_words_stretched_alike_over_the_paragraphs_next_line_are_one_line():
    """A `p{}` cell's justified line ("Abstracts of biomedical articles", its spaces stretched to 8 pt at 9 pt)
    beside its row's label 19 pt left and its figure, the cell's last line under it: the words are one line; the
    label and the figure are not part of it. Two words stretched apart, words spaced unevenly, words further apart
    than a line's spans may be, and headings spaced evenly over figures stay pieces."""
    label, figure, last = piece("PubMed", 183, 217), piece("19,717", 403, 429), piece("with their topic", 236, 299, 112)
    words = [piece("Abstracts", 236, 275), piece("of", 283, 290), piece("biomedical", 298, 341),
             piece("articles", 349, 378)]
    [(line, parts)] = justified_lines([label, *words, figure, last])
    assert line.text == "Abstracts of biomedical articles" and line.bbox[::2] == (236, 378) and parts == words
    assert justified_lines([label, *words, figure]) == []  # the paragraph's last line is never justified
    below = piece("and more", 100, 140, 112)
    assert justified_lines([piece("Yes", 100, 120), piece("No", 128, 140), below]) == []
    assert justified_lines([piece("Term", 100, 120), piece("Meaning", 122, 160), piece("Use", 170, 185), below]) == []
    assert justified_lines([piece("North", 100, 125), piece("South", 140, 165), piece("East", 180, 200), below]) == []
    headings = [piece("Top-5", 200, 222), piece("AUC", 230, 247), piece("Top-5", 255, 277), piece("AUC", 285, 302)]
    figures = [piece(value, x, x + 20, 112) for value, x in (("0.732", 201), ("65.0", 229), ("0.544", 256),
                                                             ("63.5", 284))]
    assert justified_lines(headings + figures) == []


def test_a_description_column_set_justified_stays_one_column():
    """Each description's first line is justified (PyMuPDF gives each stretched word a line of its own), its last
    line not: one column of descriptions between the labels and the figures."""
    rows = [("Reddit", [("Posts", 236, 262), ("from", 270, 288), ("community", 296, 340), ("forums", 348, 378)],
             "linked by their comments", "232,965"),
            ("PubMed", [("Abstracts", 236, 275), ("of", 283, 290), ("biomedical", 298, 341), ("articles", 349, 378)],
             "with their topic", "19,717"),
            ("SST-2", [("Movie", 236, 262), ("review", 270, 296), ("sentences", 304, 341), ("labelled", 349, 378)],
             "with their sentiment", "70,042")]
    lines = [piece("Dataset", 183, 213, 88), piece("Description", 236, 280, 88), piece("Examples", 393, 429, 88)]
    for r, (name, first, rest, size) in enumerate(rows):
        top = 100 + 24 * r
        lines += [piece(name, 183, 212, top), piece(size, 400, 429, top), piece(rest, 236, 320, top + 12)]
        lines += [piece(word, x0, x1, top) for word, x0, x1 in first]
    state = PageState(input=PageInput(key="p", pdf_path="", page_index=0, width=600, height=400, text_lines=lines,
                                      drawing_boxes=[(180, 86, 432, 86), (180, 99, 432, 99), (180, 172, 432, 172)]),
                      use_text_layer=True, lines=lines)
    [block] = [block for block in TableStage()([state])[0].blocks if block.type == "table"]
    assert block.table.cols == 3
    assert [c.text for c in block.table.cells if c.row == 2] == ["PubMed", "Abstracts of biomedical articles with "
                                                                 "their topic", "19,717"]
    assert sorted(line.text for line in block.lines)[:3] == ["19,717", "232,965", "70,042"]
