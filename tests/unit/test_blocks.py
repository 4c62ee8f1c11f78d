import random

from engine.mathiness import looks_like_math
from engine.stages.blocks import (
    INDENT,
    LIST_MARKER,
    MAX_GAP,
    MIN_OVERLAP,
    SHORT_LINE,
    group_lines,
    join_lines,
    split_region,
)
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


def reference_grouping(lines: list[Line]) -> list[list[Line]]:
    """group_lines as first written (every block looked at for every line): the rules, without the index."""
    groups: list[list[Line]] = []
    for current in sorted(lines, key=lambda l: (l.bbox[1], l.bbox[0])):
        best, best_gap = None, None
        for group in groups:
            last = group[-1]
            size = max(current.size, last.size)
            gap = current.bbox[1] - last.bbox[3]
            if gap > MAX_GAP * size or current.bbox[1] < last.bbox[1] + 0.5 * last.height:
                continue
            if abs(current.size - last.size) > 0.15 * size or current.bold != last.bold:
                continue
            left, right = min(l.bbox[0] for l in group), max(l.bbox[2] for l in group)
            if min(right, current.bbox[2]) - max(left, current.bbox[0]) < MIN_OVERLAP * min(right - left,
                                                                                            current.width):
                continue
            if best_gap is None or gap < best_gap:
                best, best_gap = group, gap
        if best is not None and not starts_paragraph(best, current):
            best.append(current)
        else:
            groups.append([current])
    return groups


def starts_paragraph(group: list[Line], current: Line) -> bool:
    if LIST_MARKER.match(current.text):
        return True
    previous = group[-1]
    if looks_like_math(previous.text, previous.math) and previous.bbox[0] - current.bbox[0] > INDENT * current.size:
        return True
    if current.bbox[0] - previous.bbox[0] > INDENT * current.size and (
            len(group) >= 2 or not LIST_MARKER.match(previous.text)):
        return True
    left = min(min(l.bbox[0] for l in group), current.bbox[0])
    right = max(max(l.bbox[2] for l in group), current.bbox[2])
    return previous.bbox[2] < left + SHORT_LINE * (right - left)


def random_page(rnd: random.Random, count: int) -> list[Line]:
    """Lines in a few columns with indents, short lines, list markers, formulas, size and weight changes, lines
    set on one row, zero-width and inverted boxes."""
    lines = []
    for _ in range(count):
        x0 = rnd.choice([20, 28, 60, 70, 310, 318]) + rnd.choice([0, 0, 0, rnd.uniform(-5, 5)])
        width = rnd.choice([250, 250, 250, 120, 40, 0, rnd.uniform(0, 300)])
        y0 = rnd.randrange(0, 60) * rnd.choice([12, 12, 6, 13.2]) + rnd.choice([0, 0, rnd.uniform(-3, 3)])
        size = rnd.choice([10, 10, 10, 12, 9, 8.6, 11.4, 0])
        made = line(rnd.choice(["plain text", "1. item", "- dash", "(a) thing", "x = y + z", "∑ a_i = b"]), x0, y0,
                    x0 + width, size=size, bold=rnd.random() < 0.1)
        made.math = rnd.choice([0.0, 0.0, 0.9])
        if rnd.random() < 0.02:
            made.bbox = (made.bbox[2] + 5, made.bbox[1], made.bbox[0], made.bbox[3])
        lines.append(made)
    return lines


def test_grouping_matches_the_rules_applied_to_every_block():
    rnd = random.Random(7)
    for _ in range(400):
        lines = random_page(rnd, rnd.randrange(1, 150))
        assert [[id(l) for l in g] for g in group_lines(lines)] == \
            [[id(l) for l in g] for g in reference_grouping(lines)]


def test_a_page_of_fifty_thousand_lines_is_grouped():
    rnd = random.Random(3)
    lines = [line("a", x, y, x + 2, size=3.0) for x, y in
             ((rnd.uniform(0, 600), rnd.uniform(0, 780)) for _ in range(50_000))]
    groups = group_lines(lines)
    assert sorted(id(l) for g in groups for l in g) == sorted(id(l) for l in lines)


def test_a_word_broken_with_a_soft_hyphen_or_a_hyphen_proper_is_joined_and_inner_soft_hyphens_vanish():
    """Word processors break words with U+00AD (shown only at a line's end) and some set U+2010, not '-'."""
    assert join_lines([line("the conserva\u00ad", 60, 100, 300), line("tion studio", 60, 113, 300)]) == (
        "the conservation studio")
    assert join_lines([line("the Conserva\u00ad", 60, 100, 300), line("Tion", 60, 113, 300)]) == "the ConservaTion"
    assert join_lines([line("the conser\u2010", 60, 100, 300), line("vation studio", 60, 113, 300)]) == (
        "the conservation studio")
    assert join_lines([line("a con\u00adserva\u00adtion studio", 60, 100, 300)]) == "a conservation studio"


def test_a_layout_region_is_cut_at_its_list_items_and_where_the_font_changes():
    items = [line("• Enhance the performance of your", 60, 100, 200), line("database operations", 66, 112, 160),
             line("• Earn greater return on IT projects", 60, 126, 200), line("• Rely on expert help", 60, 140, 160)]
    assert [[l.text for l in part] for part in split_region(items)] == [
        ["• Enhance the performance of your", "database operations"], ["• Earn greater return on IT projects"],
        ["• Rely on expert help"]]
    heading = [line("We build confident clients", 60, 100, 200, size=12.5),
               line("No one else has the vast consulting experience", 60, 116, 300),
               line("2. this line merely starts with a number", 60, 128, 300),
               line("Who we are", 60, 142, 120, bold=True), line("Global engagements cover:", 60, 154, 200)]
    assert [[l.text for l in part] for part in split_region(heading)] == [
        ["We build confident clients"],
        ["No one else has the vast consulting experience", "2. this line merely starts with a number"],
        ["Who we are"], ["Global engagements cover:"]]
    bullet_apart = [line("•", 60, 100, 64, size=6), line("Bullet set apart from its text", 70, 100, 200)]
    assert len(split_region(bullet_apart)) == 1
