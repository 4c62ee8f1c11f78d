from engine.region_lines import group_by_regions, in_rows
from engine.types import Line, Region


def line(text: str, x0: float, y0: float, x1: float, height: float = 8.0) -> Line:
    return Line(text=text, bbox=(x0, y0, x1, y0 + height), size=height)


def test_a_code_listing_and_a_bulleted_item_are_one_group_each_in_reading_order():
    code = [line("function", 135, 366, 178), line("add(a, b) {", 185, 366.5, 246), line("return a + b;", 157, 377, 229),
            line("}", 134, 388, 139)]
    bullet, item = line("\u2022", 137, 530, 142), line("Security fundamentals", 151, 530, 250)
    stray = line("Page 4", 300, 700, 330)
    regions = [Region(type="text", bbox=(130, 362, 270, 400), score=1.0),
               Region(type="list_item", bbox=(135, 528, 255, 541), score=1.0),
               Region(type="figure", bbox=(290, 690, 340, 712), score=1.0)]
    groups, rest = group_by_regions([item, *reversed(code), bullet, stray], regions)
    assert [[l.text for l in group] for group in groups] == [
        ["\u2022", "Security fundamentals"], ["function", "add(a, b) {", "return a + b;", "}"]]
    assert rest == [stray]


def test_nested_regions_give_a_line_to_the_smallest():
    inner = line("Caption of the chart", 100, 300, 200)
    outer = line("A paragraph", 100, 100, 200)
    regions = [Region(type="text", bbox=(90, 90, 500, 400), score=1.0),
               Region(type="caption", bbox=(95, 295, 205, 310), score=1.0)]
    groups, rest = group_by_regions([outer, inner], regions)
    assert sorted([l.text for l in group] for group in groups) == [["A paragraph"], ["Caption of the chart"]]
    assert rest == []


def test_rows_are_read_left_to_right():
    assert [l.text for l in in_rows([line("b", 50, 10, 60), line("c", 0, 20, 10), line("a", 0, 10.5, 10)])] == \
        ["a", "b", "c"]
