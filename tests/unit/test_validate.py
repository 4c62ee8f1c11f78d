"""The validation gate: its measures (LaTeX balance, table HTML against cells, text-layer coverage, ink), the
repair of blocks that fail a check, and which failures quarantine a page."""

import threading
from dataclasses import replace

import numpy as np
import pytest

from engine.ink import ink_share
from engine.table_grid import make_table
from engine.types import Block, Formula, Line, PageInput, PageResult, TableCell
from validation import gate
from validation.gate import (
    BLOCK,
    CHECKS,
    CLIPPED,
    CLIPPED_AND_WIDENED,
    CONFIDENCE_CHECK,
    CONFIDENCE_REMOVED,
    CORNERS_ORDERED,
    DROPPED,
    GRID_CHECKS,
    HTML_CHECK,
    HTML_REBUILT,
    INK_CHECK,
    INSIDE_CHECK,
    KEPT_AS_TEXT,
    LATEX_CHECKS,
    MIN_SIDE,
    ORDER,
    PAGE,
    PAGE_BOX,
    PLACED_CHECK,
    QUARANTINED,
    RENUMBERED,
    SIDE_CHECK,
    TEXT_CHECK,
    TYPE_CHECK,
    WIDENED,
    Issue,
    braces_balanced,
    environments_balanced,
    html_agrees,
    repair_block,
    repair_page,
    text_coverage,
    validate_results,
)


@pytest.mark.parametrize(("latex", "balanced"), [
    (r"\frac{a}{b}", True), (r"\left\{ x \right\}", True), (r"x^{2", False), (r"a}{b", False), ("", True),
])
def test_braces(latex: str, balanced: bool):
    assert braces_balanced(latex) is balanced


@pytest.mark.parametrize(("latex", "balanced"), [
    (r"\begin{array}{cc} a & b \end{array}", True),
    (r"\begin{pmatrix}\begin{matrix} a \end{matrix}\end{pmatrix}", True),
    (r"\begin{matrix} a \end{array}", False),
    (r"\begin{cases} x", False),
    (r"x \end{cases}", False),
])
def test_environments(latex: str, balanced: bool):
    assert environments_balanced(latex) is balanced


def test_html_made_from_the_cells_agrees_and_an_edited_one_does_not():
    table = make_table(3, 3, [TableCell(0, 0, "Year", header=True, col_span=2), TableCell(0, 2, "A & B", header=True),
                              TableCell(1, 0, "1901", row_span=2), TableCell(1, 1, "<5"), TableCell(2, 2, "7")])
    assert html_agrees(table)
    table.html = table.html.replace("<td>7</td>", "<td>8</td>")
    assert not html_agrees(table)
    table.html = "<table><tr><td>broken"
    assert not html_agrees(table)


def test_coverage_ignores_spacing_hyphenation_ligatures_and_dot_leaders():
    assert text_coverage("The ﬁrst regis-\nter of 1901", "The first register of 1901") == 1.0
    assert text_coverage("abcd", "ab") == 0.5
    assert text_coverage("Alabama . . . . . . . 4,779\nAlaska ........... 710", "Alabama 4,779 Alaska 710") == 1.0
    assert text_coverage("   ", "") == 1.0


def test_ink_share_of_blank_speckled_and_written_pages():
    paper = np.full((400, 300, 3), 235, dtype=np.uint8)
    assert ink_share(paper) == 0.0
    speckled = paper.copy()
    speckled[np.random.default_rng(1).random((400, 300)) < 0.0005] = 120  # scanner dust
    assert ink_share(speckled) < 0.002
    written = paper.copy()
    written[50:60, 20:280] = 20  # a line of text
    assert 0.015 < ink_share(written) < 0.03


# Validation per block: a block that fails a check is repaired or demoted, the page keeps the rest.

WIDTH, HEIGHT = 612.0, 792.0


def page(*blocks: Block, key: str = "1:1") -> PageResult:
    return PageResult(key=key, width=WIDTH, height=HEIGHT, text_layer=True, engine_version="test",
                      stage_seconds={}, blocks=[replace(block, order=order) for order, block in enumerate(blocks)])


def paragraph(text: str = "A paragraph of the register.", y: float = 100.0) -> Block:
    return Block(type="text", bbox=(72, y, 540, y + 40), text=text, confidence=0.9)


def block_issue(check: str, block: int, *observed: str) -> Issue:
    expectation = next(expectation for name, expectation, _, _ in CHECKS if name == check)
    return Issue(check=check, expectation=expectation, blocks=(block,), observed=observed, scope=BLOCK)


def test_a_box_thinner_than_min_side_is_widened_when_it_holds_text_and_dropped_when_empty():
    glyph = Block(type="text", bbox=(300.0, 100.0, 300.48, 112.0), text="l")  # 0.48 pt: a thin glyph
    repaired, done = repair_block(glyph, {SIDE_CHECK}, WIDTH, HEIGHT)
    x0, y0, x1, y1 = repaired.bbox
    assert x1 - x0 >= MIN_SIDE and x0 <= 300.0 and x1 >= 300.48 and (y0, y1) == (100.0, 112.0)
    assert (repaired.text, repaired.type, done) == ("l", "text", {SIDE_CHECK: WIDENED})
    assert glyph.bbox == (300.0, 100.0, 300.48, 112.0)  # the engine's block is left as it was

    rule = Block(type="figure", bbox=(72.0, 400.0, 540.0, 400.48))  # a thin rule: no text, nothing to keep
    assert repair_block(rule, {SIDE_CHECK}, WIDTH, HEIGHT) == (None, {SIDE_CHECK: DROPPED})

    at_the_edge = Block(type="text", bbox=(WIDTH - 0.1, 100.0, WIDTH, 112.0), text="|")
    x0, _, x1, _ = repair_block(at_the_edge, {SIDE_CHECK}, WIDTH, HEIGHT)[0].bbox
    assert x1 <= WIDTH and x1 - x0 >= MIN_SIDE

    inverted = Block(type="text", bbox=(540.0, 140.0, 72.0, 100.0), text="backwards")
    repaired, done = repair_block(inverted, {SIDE_CHECK}, WIDTH, HEIGHT)
    assert (repaired.bbox, done) == ((72.0, 100.0, 540.0, 140.0), {SIDE_CHECK: CORNERS_ORDERED})


def test_a_box_past_the_page_is_clipped_to_it():
    overhanging = Block(type="text", bbox=(72.0, 72.0, WIDTH + 40, 90.0), text="wide")
    repaired, done = repair_block(overhanging, {INSIDE_CHECK}, WIDTH, HEIGHT)
    assert (repaired.bbox, done) == ((72.0, 72.0, WIDTH, 90.0), {INSIDE_CHECK: CLIPPED})
    off_the_page = Block(type="text", bbox=(WIDTH + 10, 72.0, WIDTH + 40, 90.0), text="beyond")
    repaired, done = repair_block(off_the_page, {INSIDE_CHECK}, WIDTH, HEIGHT)
    assert repaired.bbox[2] == WIDTH and repaired.bbox[2] - repaired.bbox[0] >= MIN_SIDE
    assert done == {INSIDE_CHECK: CLIPPED_AND_WIDENED}


@pytest.mark.parametrize("check", LATEX_CHECKS)
def test_a_formula_without_trustworthy_latex_is_kept_as_text_with_its_text(check: str):
    formula = Block(type="formula", bbox=(100, 620, 400, 660), text="E = mc2", confidence=0.8,
                    formula=Formula(r"E = m c^{2", confidence=0.7))
    repaired, done = repair_block(formula, {check}, WIDTH, HEIGHT)
    assert (repaired.type, repaired.text, repaired.formula, repaired.bbox, repaired.confidence) == (
        "text", "E = mc2", None, formula.bbox, 0.8)
    assert done == {check: KEPT_AS_TEXT}
    assert formula.formula is not None  # the engine's block is left as it was
    assert repair_block(replace(formula, text=" "), {check}, WIDTH, HEIGHT) == (None, {check: DROPPED})


def test_a_table_whose_cells_collide_becomes_text_and_one_with_wrong_html_gets_html_from_its_cells():
    cells = [TableCell(r, c, f"{r}{c}") for r in range(2) for c in range(2)]
    colliding = Block(type="table", bbox=(72, 600, 300, 700), table=make_table(2, 2, cells))
    colliding.table.cells.append(TableCell(0, 0, "again"))
    repaired, done = repair_block(colliding, {GRID_CHECKS[1]}, WIDTH, HEIGHT)
    assert (repaired.type, repaired.table, repaired.text) == ("text", None, "00 again 01\n10 11")
    assert done == {GRID_CHECKS[1]: KEPT_AS_TEXT}

    edited = Block(type="table", bbox=(72, 600, 300, 700), text="00 01 10 11",
                   table=make_table(2, 2, [TableCell(r, c, f"{r}{c}") for r in range(2) for c in range(2)]))
    edited.table.html = edited.table.html.replace("<td>11</td>", "<td>eleven</td>")
    assert not html_agrees(edited.table)
    repaired, done = repair_block(edited, {HTML_CHECK}, WIDTH, HEIGHT)
    assert repaired.type == "table" and html_agrees(repaired.table) and "<td>11</td>" in repaired.table.html
    assert done == {HTML_CHECK: HTML_REBUILT}


def test_an_unknown_type_becomes_text_a_bad_confidence_is_removed_an_empty_text_block_dropped():
    repaired, done = repair_block(replace(paragraph(), type="banner"), {TYPE_CHECK}, WIDTH, HEIGHT)
    assert (repaired.type, repaired.text, done) == ("text", paragraph().text, {TYPE_CHECK: KEPT_AS_TEXT})
    repaired, done = repair_block(replace(paragraph(), confidence=1.7), {CONFIDENCE_CHECK}, WIDTH, HEIGHT)
    assert (repaired.confidence, done) == (None, {CONFIDENCE_CHECK: CONFIDENCE_REMOVED})
    assert repair_block(paragraph("  "), {TEXT_CHECK}, WIDTH, HEIGHT) == (None, {TEXT_CHECK: DROPPED})


def test_a_page_keeps_its_good_blocks_with_the_issue_against_the_repaired_one():
    broken = Block(type="formula", bbox=(100, 300, 400, 340), text="x = 1", formula=Formula(r"\frac{x}{1"))
    result = page(paragraph(y=100), broken, paragraph("After the formula.", y=400))
    verdict = repair_page(result, [block_issue(LATEX_CHECKS[1], 1, "False")])
    assert not verdict.quarantined and verdict.flagged_blocks == 1
    assert [(b.type, b.text, b.order) for b in verdict.result.blocks] == [
        ("text", "A paragraph of the register.", 0), ("text", "x = 1", 1), ("text", "After the formula.", 2)]
    (issue,) = verdict.issues
    assert (issue.check, issue.blocks, issue.position, issue.action, issue.observed) == (
        LATEX_CHECKS[1], (1,), 1, KEPT_AS_TEXT, ("False",))
    assert result.blocks[1].formula is not None  # the engine's result is left as it was


def test_a_dropped_block_closes_the_reading_order_and_moves_the_positions():
    rule = Block(type="figure", bbox=(72, 200, 540, 200.3))
    verdict = repair_page(page(paragraph(y=100), rule, paragraph("Last.", y=400)),
                          [block_issue(SIDE_CHECK, 1, "0.3")])
    assert [(b.text, b.order) for b in verdict.result.blocks] == [("A paragraph of the register.", 0), ("Last.", 1)]
    assert [(i.position, i.action) for i in verdict.issues] == [(None, DROPPED)]
    assert not verdict.quarantined and verdict.flagged_blocks == 1


def test_a_broken_reading_order_is_renumbered_by_the_engine_list():
    result = page(paragraph("first", y=100), paragraph("second", y=200), paragraph("third", y=300))
    result.blocks[2].order = 0  # a repeat
    order_issue = Issue(check="reading order without repeats", expectation="expect_column_values_to_be_unique",
                        blocks=(0, 2), observed=("1:1#0", "1:1#0"), scope=ORDER)
    verdict = repair_page(result, [order_issue])
    assert [(b.text, b.order) for b in verdict.result.blocks] == [("first", 0), ("second", 1), ("third", 2)]
    assert [i.action for i in verdict.issues] == [RENUMBERED] and not verdict.quarantined
    assert verdict.flagged_blocks == 0


def test_page_level_failures_and_pages_left_with_nothing_are_quarantined():
    result = page(paragraph())
    coverage = Issue(check="stored text covers the text layer", expectation="expect_column_values_to_be_between",
                     blocks=(-1,), observed=("0.4",), scope=PAGE)
    verdict = repair_page(result, [coverage, block_issue(CONFIDENCE_CHECK, 0, "1.7")])
    assert verdict.quarantined and verdict.result is result and verdict.flagged_blocks == 0
    assert {i.action for i in verdict.issues} == {QUARANTINED}

    empty = page(paragraph(" "))
    verdict = repair_page(empty, [block_issue(TEXT_CHECK, 0, "True")], needs_blocks=True)
    assert verdict.quarantined and [i.check for i in verdict.issues] == [TEXT_CHECK, INK_CHECK]
    verdict = repair_page(empty, [block_issue(TEXT_CHECK, 0, "True")], needs_blocks=False)  # a blank page
    assert not verdict.quarantined and verdict.result.blocks == []


def test_great_expectations_reports_block_checks_per_block_and_page_checks_per_page():
    layer = [Line(text="A paragraph of the register.", bbox=(72, 100, 540, 112), size=10)]
    kept = page(paragraph(), Block(type="text", bbox=(300.0, 150.0, 300.48, 162.0), text="l"),
                Block(type="formula", bbox=(100, 300, 400, 340), text="x = 1", formula=Formula(r"\frac{x}{1")),
                key="1:1")
    lost = page(paragraph("Something else entirely."), key="1:2")
    clean = page(paragraph(), key="1:3")
    inputs = {key: PageInput(key=key, pdf_path="x.pdf", page_index=0, width=WIDTH, height=HEIGHT, text_lines=layer)
              for key in ("1:1", "1:2", "1:3")}
    verdicts = validate_results([kept, lost, clean], inputs)
    assert set(verdicts) == {"1:1", "1:2"}
    assert not verdicts["1:1"].quarantined and len(verdicts["1:1"].result.blocks) == 3
    assert sorted((i.check, i.blocks, i.position, i.action) for i in verdicts["1:1"].issues) == [
        (SIDE_CHECK, (1,), 1, WIDENED), (LATEX_CHECKS[1], (2,), 2, KEPT_AS_TEXT)]
    assert verdicts["1:2"].quarantined
    assert [(i.check, i.blocks, i.scope) for i in verdicts["1:2"].issues] == [
        ("stored text covers the text layer", (-1,), PAGE)]


def test_a_block_the_engine_could_not_place_is_kept_with_the_page_as_its_box_and_flagged():
    layer = [Line(text="A paragraph of the register.", bbox=(72, 100, 540, 112), size=10)]
    unplaced = Block(type="text", bbox=(0.0, 0.0, WIDTH, HEIGHT), text="Words painted on a photograph.",
                     placed=False)
    result = page(paragraph(), unplaced, key="1:1")
    inputs = {"1:1": PageInput(key="1:1", pdf_path="x.pdf", page_index=0, width=WIDTH, height=HEIGHT,
                               text_lines=layer)}
    verdict = validate_results([result], inputs)["1:1"]
    assert not verdict.quarantined and verdict.result.blocks[1].text == "Words painted on a photograph."
    assert [(i.check, i.blocks, i.position, i.action) for i in verdict.issues] == [(PLACED_CHECK, (1,), 1, PAGE_BOX)]


def test_lines_of_mojibake_the_engine_read_by_ocr_count_for_nothing_in_the_coverage():
    layer = [Line(text="A paragraph of the register.", bbox=(72, 100, 540, 112), size=10),
             Line(text="]üìÜüéê •ìê °ê£ë†£ûÜüéê †ë ∞†¶£ èÜ•ÜáÜ§ê †°ê£Ü•î†ü§", bbox=(72, 120, 540, 132), size=10)]
    read = page(paragraph(), paragraph("Enhance the performance of your database operations", y=120.0))
    inputs = {"1:1": PageInput(key="1:1", pdf_path="x.pdf", page_index=0, width=WIDTH, height=HEIGHT,
                               text_lines=layer)}
    assert validate_results([read], inputs) == {}


def test_a_check_that_cannot_run_quarantines_every_page_of_the_batch():
    """Great Expectations catches what an expectation raises and reports it failed without failing rows: nothing
    in the batch can be trusted then, not only the page that broke the check."""
    layer = [Line(text="A paragraph of the register.", bbox=(72, 100, 540, 112), size=10)]
    broken = page(replace(paragraph(), confidence="high"), key="1:1")  # compared with numbers, it raises
    clean = page(paragraph(), key="1:2")
    inputs = {key: PageInput(key=key, pdf_path="x.pdf", page_index=0, width=WIDTH, height=HEIGHT, text_lines=layer)
              for key in ("1:1", "1:2")}
    verdicts = validate_results([broken, clean], inputs)
    assert set(verdicts) == {"1:1", "1:2"} and all(verdict.quarantined for verdict in verdicts.values())
    assert [(i.check, i.observed, i.action) for i in verdicts["1:2"].issues] == [
        (CONFIDENCE_CHECK, ("check failed to run",), QUARANTINED)]


def test_the_validator_prepared_in_a_thread_is_the_one_the_batch_then_takes(monkeypatch):
    """A batch prepares the validator while its engine workers parse, and takes it when it validates. While the
    preparing thread holds the making, a caller waits and gets the same validator: it is made once."""
    made = []
    real = gate.Validator
    monkeypatch.setattr(gate, "Validator", lambda: made.append(real()) or made[-1])
    monkeypatch.setattr(gate, "_validator", None)  # restored after the test: no other test sees this one's
    with gate._validator_made:  # the caller below comes while the validator is being made
        gate.prepare_validator()
        taken: list = []
        caller = threading.Thread(target=lambda: taken.append(gate.get_validator()))
        caller.start()
    caller.join(timeout=60)
    assert len(made) == 1 and taken == made
    gate.prepare_validator()  # made already: nothing more is made
    assert gate.get_validator() is made[0] and len(made) == 1
