from engine.mathiness import prose_words, span_math_share, text_math_share
from engine.types import Span


def test_ocr_text_math_share():
    assert text_math_share("F = q (E + v × B)") > 0.8
    assert text_math_share("cos2 α + sin2 α = 1") > 0.8
    assert text_math_share("The harbour ledgers were scanned.") < 0.1
    assert text_math_share("보험회사에서 그동안 판매했거나 (WHO)") < 0.2  # Hangul syllables are not lone variables
    assert text_math_share("政府决定在明年支持全国各地区的小型企业发展") == 0.0


def test_prose_words_ignore_function_names():
    assert prose_words("sin(α ± β) = sin α cos β") == 0
    assert prose_words("for all values of the ledger") == 5


def test_span_math_share_counts_math_fonts_italic_variables_and_scripts():
    spans = [Span("a", (0, 0, 5, 10), 10, "URWPalladioL-Ital", False),
             Span("2", (5, 0, 8, 6), 7, "URWPalladioL-Roma", False),
             Span(" + b = c", (8, 0, 40, 10), 10, "URWPalladioL-Roma", False)]
    assert span_math_share(spans, "URWPalladioL-Roma", 10) >= 0.5
    prose = [Span("Plain words in the body font.", (0, 0, 200, 10), 10, "URWPalladioL-Roma", False)]
    assert span_math_share(prose, "URWPalladioL-Roma", 10) == 0.0
