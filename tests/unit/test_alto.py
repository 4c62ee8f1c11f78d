"""ALTO 4 from a document's full export (folio/alto.py), parsed back with ElementTree."""

from xml.etree import ElementTree as etree

import pytest

from folio.alto import NAMESPACE, UNITS_PER_POINT, to_alto

ALTO = {"a": NAMESPACE}
TITLE_LINE = {"text": "Annual report", "bbox": [72.0, 70.0, 300.0, 90.0], "confidence": 0.97,
              "words": [["Annual", 72.0, 70.0, 150.0, 90.0], ["report", 160.0, 70.0, 300.0, 90.0]]}


def export(blocks: list[dict]) -> dict:
    return {"document": {"sha256": "ab" * 32, "source": "/archive/report.pdf", "page_count": 1, "status": "done",
                         "error": None},
            "pages": [{"page_no": 1, "width": 612.0, "height": 792.0, "text_layer": False, "fingerprint": "f",
                       "status": "done", "error": None, "engine_version": "0.4.2+abc", "blocks": blocks}]}


def parsed(blocks: list[dict]) -> etree.Element:
    return etree.fromstring(to_alto(export(blocks)).encode())


def test_blocks_lines_and_words_in_inch1200_with_their_types():
    root = parsed([{"order": 0, "type": "title", "bbox": [72.0, 70.0, 300.0, 90.0], "text": "Annual report",
                    "lines": [TITLE_LINE]}])
    assert root.findtext("a:Description/a:MeasurementUnit", namespaces=ALTO) == "inch1200"
    assert root.findtext(".//a:softwareVersion", namespaces=ALTO) == "0.4.2+abc"
    page = root.find(".//a:Page", ALTO)
    assert (page.get("WIDTH"), page.get("HEIGHT")) == ("10200", "13200")
    block = page.find("a:PrintSpace/a:TextBlock", ALTO)
    assert block.get("TAGREFS") == "TYPE_title"
    assert root.find(".//a:LayoutTag[@ID='TYPE_title']", ALTO).get("LABEL") == "title"
    strings = block.findall("a:TextLine/a:String", ALTO)
    assert [s.get("CONTENT") for s in strings] == ["Annual", "report"]
    assert [s.get("WC") for s in strings] == ["0.97", "0.97"]
    assert float(strings[1].get("HPOS")) == pytest.approx(160 * UNITS_PER_POINT, abs=0.01)
    assert len(block.findall("a:TextLine/a:SP", ALTO)) == 1


def test_a_formula_refers_to_its_latex_and_a_figure_without_text_is_an_illustration():
    root = parsed([
        {"order": 0, "type": "formula", "bbox": [200.0, 420.0, 412.0, 450.0], "text": "E = mc2",
         "latex": "E = m c^{2}", "display": True, "lines": []},
        {"order": 1, "type": "figure", "bbox": [72.0, 500.0, 300.0, 700.0], "text": "", "lines": []},
    ])
    formula = root.find(".//a:TextBlock", ALTO)
    assert formula.get("TAGREFS") == "TYPE_formula LATEX_P1_B0"
    tag = root.find(".//a:OtherTag[@ID='LATEX_P1_B0']", ALTO)
    assert (tag.get("TYPE"), tag.get("DESCRIPTION")) == ("latex", "E = m c^{2}")
    figure = root.find(".//a:Illustration", ALTO)
    assert (figure.get("ID"), figure.get("TAGREFS")) == ("P1_B1", "TYPE_figure")


def test_a_block_stored_without_lines_gives_its_text_as_lines_over_its_box():
    root = parsed([{"order": 0, "type": "text", "bbox": [72.0, 100.0, 272.0, 140.0],
                    "text": "First line of it\nsecond line", "lines": []}])
    lines = root.findall(".//a:TextLine", ALTO)
    assert [[s.get("CONTENT") for s in line.findall("a:String", ALTO)] for line in lines] == [
        ["First", "line", "of", "it"], ["second", "line"]]
    assert [float(line.get("VPOS")) / UNITS_PER_POINT for line in lines] == pytest.approx([100.0, 120.0], abs=0.01)
