from engine.geometry import in_line, merged_spans, text_rows
from engine.types import Line


def test_merged_spans_joins_spans_no_farther_apart_than_the_gap() -> None:
    spans = [(30.0, 40.0), (0.0, 10.0), (11.0, 12.0), (5.0, 8.0), (42.0, 50.0)]
    assert merged_spans(spans, 1.0) == [(0.0, 12.0), (30.0, 40.0), (42.0, 50.0)]
    assert merged_spans(spans, 2.0) == [(0.0, 12.0), (30.0, 50.0)]
    assert merged_spans([], 1.0) == []


def test_tight_rows_chained_by_a_label_set_between_them_are_parted_again() -> None:
    """Rows 8 points apart with lines 8 points high (a scanned table set tightly): a label set between the last two
    rows overlaps both by half, and the two rows' lines, one above the other in their columns, do not make one row.
    The label stands on a row of its own between them."""
    def line(text: str, x: float, top: float) -> Line:
        return Line(text=text, bbox=(x, top, x + 40, top + 8), size=8)

    lines = [line("Random forest", 100, 100), line("40.1", 200, 100.5), line("+ label smoothing", 100, 108.2),
             line("89.7", 200, 108), line("Fine-tuned", 40, 112.0), line("Transformer", 100, 116.0),
             line("80.3", 200, 116.1)]
    rows = [[piece.text for piece in sorted(row.lines, key=lambda l: l.bbox[0])] for row in text_rows(lines)]
    assert rows == [["Random forest", "40.1"], ["+ label smoothing", "89.7"], ["Fine-tuned"], ["Transformer", "80.3"]]
    side_by_side = [line("North", 100, 100), line("12", 141, 101), line("South", 100, 112)]
    assert [len(row.lines) for row in text_rows(side_by_side)] == [2, 1]


def test_boxes_in_line_share_a_left_edge_a_right_edge_or_a_centre() -> None:
    assert in_line((100, 0, 140, 9), (100.5, 12, 180, 21), 1.0)  # left
    assert in_line((120, 0, 180, 9), (60, 12, 179.5, 21), 1.0)  # right
    assert in_line((110, 0, 130, 9), (100, 12, 140, 21), 1.0)  # centre
    assert not in_line((105, 0, 125, 9), (100, 12, 160, 21), 1.0)
