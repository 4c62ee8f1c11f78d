from engine.stages.blocks import group_lines, join_lines
from engine.types import Line


def line(text: str, x0: float, y0: float, x1: float, size: float = 10.0, bold: bool = False) -> Line:
    return Line(text=text, bbox=(x0, y0, x1, y0 + size * 1.2), size=size, bold=bold)


def test_lines_of_a_paragraph_form_one_block_and_an_indent_starts_the_next():
    lines = [
        line("First paragraph starts here", 80, 100, 300),
        line("and goes on to the margin", 60, 113, 300),
        line("and ends short.", 60, 126, 150),
        line("Second paragraph starts", 80, 139, 300),
        line("and goes on.", 60, 152, 300),
    ]
    groups = group_lines(lines)
    assert [[l.text for l in g] for g in groups] == [
        ["First paragraph starts here", "and goes on to the margin", "and ends short."],
        ["Second paragraph starts", "and goes on."],
    ]


def test_columns_side_by_side_stay_apart():
    lines = [line(f"left {i}", 60, 100 + 13 * i, 290) for i in range(3)]
    lines += [line(f"right {i}", 310, 100 + 13 * i, 540) for i in range(3)]
    groups = group_lines(lines)
    assert sorted(len(g) for g in groups) == [3, 3]
    assert all(len({l.text.split()[0] for l in g}) == 1 for g in groups)


def test_list_items_and_font_changes_start_blocks():
    lines = [
        line("1. Scope", 60, 100, 120, size=12, bold=True),
        line("The survey covers all holdings.", 60, 116, 300),
        line("(a) ledgers of the harbour office,", 60, 129, 300),
        line("(b) minutes of the board.", 60, 142, 300),
    ]
    assert [len(g) for g in group_lines(lines)] == [1, 1, 1, 1]


def test_hyphenated_words_are_joined_across_lines():
    lines = [line("the conser-", 60, 100, 300), line("vation studio", 60, 113, 300)]
    assert join_lines(lines) == "the conservation studio"
    assert join_lines([line("pre-", 60, 100, 300), line("1900 maps", 60, 113, 300)]) == "pre- 1900 maps"


def test_a_display_formula_line_ends_its_block_when_prose_starts_left_of_it():
    formula = line("sin(α ± β) = sin α cos β ± cos α sin β", 104, 100, 260)
    formula.math = 0.9
    prose = line("In most cases you can use the tab key to complete.", 69, 111, 297)
    assert [len(g) for g in group_lines([formula, prose])] == [1, 1]
