"""Markdown, text and HTML from an export: what Docling and Marker users expect of each block type."""

from folio.formats import to_html, to_markdown, to_text


def block(kind: str, text: str = "", **extra) -> dict:
    return {"order": 0, "type": kind, "bbox": [0, 0, 1, 1], "text": text, **extra}


def export(*blocks: dict, status: str = "done") -> dict:
    return {"document": {"sha256": "ab" * 32, "source": "/archive/minutes.pdf", "page_count": 1, "status": status,
                         "error": None},
            "pages": [{"page_no": 1, "status": "done", "error": None, "blocks": list(blocks)}]}


def table(rows: list[list[str]], spans: dict[tuple[int, int], tuple[int, int]] | None = None) -> dict:
    spans = spans or {}
    cells = [{"row": r, "col": c, "row_span": spans.get((r, c), (1, 1))[0], "col_span": spans.get((r, c), (1, 1))[1],
              "text": cell, "header": r == 0} for r, row in enumerate(rows) for c, cell in enumerate(row) if cell]
    return {"rows": len(rows), "cols": len(rows[0]), "html": "<table><tr><th colspan=\"2\">Total</th></tr></table>",
            "cells": cells}


def test_a_table_with_spans_stays_html_and_pipes_are_escaped():
    spanned = to_markdown(export(block("table", "Total", table=table([["Total", ""], ["1", "2"]], {(0, 0): (1, 2)}))))
    assert spanned == "<table><tr><th colspan=\"2\">Total</th></tr></table>\n"
    plain = to_markdown(export(block("table", "a|b", table=table([["a|b", "c"], ["1", ""]]))))
    assert plain == "| a\\|b | c |\n|---|---|\n| 1 |  |\n"


def test_list_items_keep_their_numbers_and_lose_their_bullets():
    markdown = to_markdown(export(block("list_item", "1. First"), block("list_item", "– Second"),
                                  block("text", "After the list.")))
    assert markdown == "1. First\n- Second\n\nAfter the list.\n"


def test_a_formula_without_latex_is_its_text_and_furniture_is_left_out():
    document = export(block("page_number", "7"), block("formula", "a + b = c", latex=None),
                      block("footer", "Printed 1931"))
    assert to_markdown(document) == "a + b = c\n"
    assert to_text(document) == "a + b = c\n"


def test_html_has_headings_lists_and_formulas_for_a_typesetter():
    page = to_html(export(block("title", "Minutes"), block("title", "Tonnage"), block("list_item", "• One"),
                          block("formula", "x", latex="x^{2} < y")))
    assert "<h1>Minutes</h1>\n<h2>Tonnage</h2>\n<ul>\n<li>One</li>\n</ul>" in page
    assert '<div class="formula">\\[x^{2} &lt; y\\]</div>' in page
