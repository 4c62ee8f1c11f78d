from engine.geometry import merged_spans


def test_merged_spans_joins_spans_no_farther_apart_than_the_gap() -> None:
    spans = [(30.0, 40.0), (0.0, 10.0), (11.0, 12.0), (5.0, 8.0), (42.0, 50.0)]
    assert merged_spans(spans, 1.0) == [(0.0, 12.0), (30.0, 40.0), (42.0, 50.0)]
    assert merged_spans(spans, 2.0) == [(0.0, 12.0), (30.0, 50.0)]
    assert merged_spans([], 1.0) == []
