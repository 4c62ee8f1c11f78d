"""Reading VLM answers: olmOCR-style page Markdown, dots.ocr-style layout JSON and DeepSeek-OCR's grounded Markdown,
written by hand from the formats the models publish."""

import json
from collections.abc import Callable

import pytest

from engine.vlm.answer import Reading, UnreadableAnswer, is_page_number, plain
from engine.vlm.grounded import read_grounded_markdown
from engine.vlm.layout_json import model_size, read_layout_json
from engine.vlm.markdown import read_markdown
from engine.vlm.tables import html_table, pipe_table
from validation.gate import html_agrees

OLMOCR_PAGE = r"""---
primary_language: en
is_rotation_valid: True
rotation_correction: 0
is_table: False
is_diagram: False
---
# Harbour Office Accounts

The **harbour office** kept its accounts in ledgers, where \(n\) entries
ran over two lines.

## Receipts

- Dues from shipping
- Rents of the quays
  and warehouses
1. First quarter

\[
a^{2} + b^{2} = c^{2}
\]

<table>
<thead><tr><th rowspan="2">Series</th><th colspan="2">Volumes</th></tr>
<tr><th>Boxes</th><th>Pages</th></tr></thead>
<tbody><tr><td>Ledgers &amp; letters</td><td>112</td><td>38,400</td></tr></tbody>
</table>

$$E = m c^{2}$$

![A map of the harbour](page_100_200_300_150.png)

| Year | Total |
|------|------:|
| 1901 | 12 |

Closing words.
"""


def test_olmocr_markdown_with_front_matter():
    reading = read_markdown(OLMOCR_PAGE, (900, 1288))
    assert reading.turn == 0
    assert [(d.type, d.text) for d in reading.drafts if d.type not in ("table", "formula")] == [
        ("title", "Harbour Office Accounts"),
        ("text", "The harbour office kept its accounts in ledgers, where $n$ entries ran over two lines."),
        ("title", "Receipts"),
        ("list_item", "Dues from shipping"),
        ("list_item", "Rents of the quays and warehouses"),
        ("list_item", "1. First quarter"),
        ("figure", "A map of the harbour"),
        ("text", "Closing words."),
    ]
    formulas = [d.latex for d in reading.drafts if d.type == "formula"]
    assert formulas == ["a^{2} + b^{2} = c^{2}", "E = m c^{2}"]
    figure = next(d for d in reading.drafts if d.type == "figure")
    assert figure.box == (100.0, 200.0, 400.0, 350.0)  # olmOCR names the file after the box in the image


def test_html_table_spans_and_headers_reach_the_table():
    table = next(d for d in read_markdown(OLMOCR_PAGE, (900, 1288)).drafts if d.type == "table").table
    assert (table.rows, table.cols) == (3, 3)
    cells = {(c.row, c.col): (c.text, c.row_span, c.col_span, c.header) for c in table.cells}
    assert cells == {(0, 0): ("Series", 2, 1, True), (0, 1): ("Volumes", 1, 2, True), (1, 1): ("Boxes", 1, 1, True),
                     (1, 2): ("Pages", 1, 1, True), (2, 0): ("Ledgers & letters", 1, 1, False),
                     (2, 1): ("112", 1, 1, False), (2, 2): ("38,400", 1, 1, False)}
    assert html_agrees(table)  # the gate's own check: the HTML holds exactly these cells
    assert table.html.startswith('<table><tr><th rowspan="2">Series</th><th colspan="2">Volumes</th>')


def test_pipe_table_header_row():
    table = pipe_table(["| Year | Total |", "|------|------:|", "| 1901 | 12 |", "| 1902 | a \\| b |"])
    assert [(c.row, c.col, c.text, c.header) for c in table.cells] == [
        (0, 0, "Year", True), (0, 1, "Total", True), (1, 0, "1901", False), (1, 1, "12", False),
        (2, 0, "1902", False), (2, 1, "a | b", False)]


def test_html_table_rows_shorter_than_the_grid_are_filled():
    table = html_table("<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td colspan=2>d</td></tr></table>")
    assert (table.rows, table.cols) == (2, 3)
    assert [(c.row, c.col, c.text, c.col_span) for c in table.cells if c.row == 1] == [(1, 0, "d", 2), (1, 2, "", 1)]
    assert html_agrees(table)


def test_front_matter_asking_for_a_turn():
    answer = "---\nprimary_language: null\nis_rotation_valid: false\nrotation_correction: 90\nis_table: false\n" \
             "is_diagram: false\n---\n"
    reading = read_markdown(answer, (1000, 1288))
    assert reading.turn == 270  # olmOCR's pipeline turns the image by PIL's ROTATE_90: 90 degrees counterclockwise
    assert reading.drafts == []


def test_deepseek_grounding_tags_and_nanonets_tags():
    answer = ("<|ref|>title<|/ref|><|det|>[[120, 40, 880, 90]]<|/det|>\n# Minutes of the Board\n\n"
              "<|ref|>text<|/ref|><|det|>[[120, 100, 880, 300]]<|/det|>\nThe board met on Tuesday.\n\n"
              "<img>A photograph of the quay</img>\n<page_number>14</page_number>")
    assert [(d.type, d.text) for d in read_markdown(answer, (1000, 1000)).drafts] == [
        ("title", "Minutes of the Board"), ("text", "The board met on Tuesday."),
        ("figure", "A photograph of the quay"), ("page_number", "14")]


def test_olmocr_json_answer_and_empty_page():
    answer = json.dumps({"primary_language": "en", "is_rotation_valid": True, "rotation_correction": 0,
                         "is_table": False, "is_diagram": False, "natural_text": "One line."})
    assert [(d.type, d.text) for d in read_markdown(answer, (10, 10)).drafts] == [("text", "One line.")]
    assert read_markdown("---\nprimary_language: null\n---\n", (10, 10)).drafts == []


DOTS_PAGE = [
    {"bbox": [120, 60, 800, 110], "category": "Title", "text": "# Harbour Office Accounts"},
    {"bbox": [120, 130, 800, 260], "category": "Text", "text": "The **harbour office** kept its accounts."},
    {"bbox": [120, 270, 800, 300], "category": "List-item", "text": "- Dues from shipping"},
    {"bbox": [300, 320, 620, 360], "category": "Formula", "text": "$$a^{2} + b^{2} = c^{2}$$"},
    {"bbox": [120, 380, 800, 520], "category": "Table",
     "text": "<table><tr><th colspan=\"2\">Volumes</th></tr><tr><td>112</td><td>38,400</td></tr></table>"},
    {"bbox": [120, 540, 500, 700], "category": "Picture"},
    {"bbox": [120, 710, 500, 730], "category": "Caption", "text": "Figure 1: the quay"},
    {"bbox": [120, 1100, 800, 1130], "category": "Footnote", "text": "1 Counted in 1902."},
    {"bbox": [120, 10, 800, 30], "category": "Page-header", "text": "Annual Report"},
    {"bbox": [440, 1200, 480, 1220], "category": "Page-footer", "text": "- 3 -"},
    {"bbox": [120, 1160, 800, 1180], "category": "Page-footer", "text": "Printed by the city"},
    {"bbox": [120, 1185, 800, 1195], "category": "Stamp", "text": "Received"},
]


def test_dots_ocr_layout_json_categories_and_boxes():
    width, height = 900, 1288
    seen_width, seen_height = model_size(width, height)
    assert (seen_width % 28, seen_height % 28) == (0, 0)
    reading = read_layout_json(json.dumps(DOTS_PAGE), (width, height))
    assert [d.type for d in reading.drafts] == ["title", "text", "list_item", "formula", "table", "figure",
                                                "caption", "footnote", "header", "page_number", "footer", "text"]
    title = reading.drafts[0]
    assert title.text == "Harbour Office Accounts"
    assert title.box == pytest.approx((120 * width / seen_width, 60 * height / seen_height,
                                       800 * width / seen_width, 110 * height / seen_height))
    assert reading.drafts[1].text == "The harbour office kept its accounts."
    assert reading.drafts[3].latex == "a^{2} + b^{2} = c^{2}"
    table = reading.drafts[4].table
    assert (table.rows, table.cols) == (2, 2) and table.cells[0].col_span == 2 and table.cells[0].header


@pytest.mark.parametrize(("read", "answer", "reason"), [
    (read_markdown, "---\nprimary_language: en\nis_rotation_valid: [\n---\nText", "front matter is not YAML"),
    (read_markdown, "---\nprimary_language: en\nThe page text with no closing line", "never closed"),
    (read_markdown, "---\nis_rotation_valid: false\nrotation_correction: 45\n---\nText", "rotation_correction 45"),
    (read_markdown, "---\n- a list\n---\nText", "not a mapping"),
    (read_layout_json, '[{"bbox": [1, 2, 3, 4], "category": "Text", "text": "cut off', "does not parse"),
    (read_layout_json, '{"page": 1}', "not a list of blocks"),
    (read_layout_json, '[{"bbox": [1, 2, 3], "category": "Text", "text": "x"}]', "bbox"),
    (read_layout_json, '["a block"]', "not an object"),
    (read_grounded_markdown, "# Minutes\n\nThe board met.", "no <|ref|>"),
    (read_grounded_markdown, "<|ref|>text<|/ref|><|det|>[[10, 20, 30]]<|/det|>\nx",
     "element 1: '\\[\\[10, 20, 30\\]\\]' is not"),
    (read_grounded_markdown, "<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>x\n<|ref|>text<|/ref|><|det|>"
                             "[[1, 2, 3, 4]<|/det|>y", "element 2"),
])
def test_a_malformed_answer_is_unreadable(read: Callable[[str, tuple[int, int]], Reading], answer: str, reason: str):
    with pytest.raises(UnreadableAnswer, match=reason):
        read(answer, (900, 1288))


def test_layout_json_in_a_code_fence():
    answer = '```json\n[{"bbox": [1, 2, 30, 40], "category": "Text", "text": "Fenced."}]\n```'
    assert [d.text for d in read_layout_json(answer, (900, 1288)).drafts] == ["Fenced."]


def test_plain_text_and_page_numbers():
    assert plain("A **bold** and *emphasised* word, x<sup>2</sup>, \\(y\\) &amp; z<br>next") == \
        "A bold and emphasised word, x2, $y$ & z next"
    assert plain("a * b * c stays") == "a * b * c stays"
    assert [is_page_number(t) for t in ("12", "- 3 -", "xiv", "Page 3 of 9", "Printed by the city")] == \
        [True, True, True, True, False]


DEEPSEEK_PAGE = """<|ref|>header<|/ref|><|det|>[[100, 10, 900, 25]]<|/det|>
Annual Report

<|ref|>title<|/ref|><|det|>[[100, 40, 900, 80]]<|/det|>
# Harbour Office Accounts

<|ref|>text<|/ref|><|det|>[[100, 90, 900, 200], [100, 205, 600, 230]]<|/det|>
The **harbour office** kept its accounts in ledgers,
one for each quarter.

<|ref|>text<|/ref|><|det|>[[110, 240, 600, 255]]<|/det|>
- Dues from shipping

<|ref|>table<|/ref|><|det|>[[100, 270, 900, 400]]<|/det|>
<table><tr><td rowspan="2">Series</td><td colspan="2">Volumes</td></tr><tr><td>Boxes</td><td>Pages</td></tr>\
<tr><td>Ledgers</td><td>112</td><td>38,400</td></tr></table>

<|ref|>equation<|/ref|><|det|>[[300, 420, 700, 460]]<|/det|>
\\[
a^{2} + b^{2} = c^{2}
\\]

<|ref|>image<|/ref|><|det|>[[0, 480, 999, 999]]<|/det|>

<|ref|>image_caption<|/ref|><|det|>[[100, 900, 500, 920]]<|/det|>
<center>Figure 1: the quay</center>

<|ref|>footer<|/ref|><|det|>[[480, 960, 520, 980]]<|/det|>
- 3 -
"""


def test_deepseek_ocr_grounded_markdown_types_boxes_tables_and_equations():
    width, height = 1000, 1998
    reading = read_grounded_markdown(DEEPSEEK_PAGE, (width, height))
    assert [d.type for d in reading.drafts] == ["header", "title", "text", "list_item", "table", "formula", "figure",
                                                "caption", "page_number"]
    header, title, text, item, table, formula, figure, caption, _ = reading.drafts
    assert (header.text, title.text, item.text, caption.text) == (
        "Annual Report", "Harbour Office Accounts", "Dues from shipping", "Figure 1: the quay")
    assert text.text == "The harbour office kept its accounts in ledgers, one for each quarter."
    assert text.box == pytest.approx((100 * width / 999, 90 * height / 999, 900 * width / 999, 230 * height / 999))
    assert figure.box == pytest.approx((0.0, 480 * height / 999, width, height))  # 999: the image's far edges
    assert (table.table.rows, table.table.cols) == (3, 3)
    assert table.table.cells[0].row_span == 2 and table.table.cells[1].col_span == 2
    assert formula.latex == "a^{2} + b^{2} = c^{2}"
