"""A document's export as ALTO 4 XML, the format libraries and archives exchange OCR text in.

One `Page` per page, its `PrintSpace` the whole page; one block a `TextBlock` (a figure without text an
`Illustration`) in reading order, its type a `LayoutTag` it refers to; each stored line a `TextLine` of `String`s
(one a word, `WC` the line's OCR confidence where it has one) with `SP` between. A formula block refers to an
`OtherTag` of TYPE "latex" whose DESCRIPTION is its LaTeX. Positions are in inch1200 (1200 units an inch, 16.67 a
PDF point), from the top-left of the page as folio's boxes are. A block stored without lines (a VLM's) has its text
as lines over its box, the words placed as long as their characters.
"""

from typing import Any
from xml.etree import ElementTree as etree

from folio.block_lines import block_lines

NAMESPACE = "http://www.loc.gov/standards/alto/ns-v4#"
SCHEMA = "http://www.loc.gov/standards/alto/v4/alto-4-2.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
UNITS_PER_POINT = 1200 / 72  # inch1200


def to_alto(export: dict[str, Any]) -> str:
    """The document as an ALTO 4 XML document."""
    alto = etree.Element("alto", {"xmlns": NAMESPACE, "xmlns:xsi": XSI, "xsi:schemaLocation": f"{NAMESPACE} {SCHEMA}"})
    description = _child(alto, "Description")
    _child(description, "MeasurementUnit").text = "inch1200"
    source = _child(description, "sourceImageInformation")
    _child(source, "fileName").text = export["document"]["source"]
    versions = sorted({page["engine_version"] for page in export["pages"] if page.get("engine_version")})
    step = _child(_child(description, "OCRProcessing", ID="OCR_0"), "ocrProcessingStep")
    software = _child(step, "processingSoftware")
    _child(software, "softwareName").text = "folio"
    if versions:
        _child(software, "softwareVersion").text = ", ".join(versions)
    tags = _child(alto, "Tags")
    types = sorted({block["type"] for page in export["pages"] for block in page["blocks"]})
    for kind in types:
        _child(tags, "LayoutTag", ID=f"TYPE_{kind}", LABEL=kind)
    layout = _child(alto, "Layout")
    for page in export["pages"]:
        _page(layout, tags, page)
    etree.indent(alto)
    return etree.tostring(alto, encoding="unicode", xml_declaration=True)


def _page(layout: etree.Element, tags: etree.Element, page: dict[str, Any]) -> None:
    number = page["page_no"]
    width, height = page["width"] or 0.0, page["height"] or 0.0
    element = _child(layout, "Page", ID=f"P{number}", PHYSICAL_IMG_NR=str(number), WIDTH=_unit(width),
                     HEIGHT=_unit(height))
    space = _child(element, "PrintSpace", HPOS="0", VPOS="0", WIDTH=_unit(width), HEIGHT=_unit(height))
    for block in page["blocks"]:
        ident = f"P{number}_B{block['order']}"
        lines = block_lines(block)
        if block["type"] == "figure" and not lines:
            _child(space, "Illustration", ID=ident, TAGREFS="TYPE_figure", **_box(block["bbox"]))
            continue
        refs = [f"TYPE_{block['type']}"]
        if block["type"] == "formula" and block.get("latex"):
            _child(tags, "OtherTag", ID=f"LATEX_{ident}", TYPE="latex", LABEL="LaTeX", DESCRIPTION=block["latex"])
            refs.append(f"LATEX_{ident}")
        text_block = _child(space, "TextBlock", ID=ident, TAGREFS=" ".join(refs), **_box(block["bbox"]))
        for index, line in enumerate(lines):
            _line(text_block, f"{ident}_L{index}", line)


def _line(block: etree.Element, ident: str, line: dict[str, Any]) -> None:
    element = _child(block, "TextLine", ID=ident, **_box(line["bbox"]))
    confidence = {} if line.get("confidence") is None else {"WC": _unit(line["confidence"], 1)}
    for index, (text, *box) in enumerate(line["words"]):
        if index:
            _child(element, "SP")
        _child(element, "String", ID=f"{ident}_W{index}", CONTENT=text, **_box(box), **confidence)


def _child(parent: etree.Element, name: str, **attributes: str) -> etree.Element:
    return etree.SubElement(parent, name, attributes)


def _box(box: list[float]) -> dict[str, str]:
    x0, y0, x1, y1 = box
    return {"HPOS": _unit(x0), "VPOS": _unit(y0), "WIDTH": _unit(x1 - x0), "HEIGHT": _unit(y1 - y0)}


def _unit(points: float, per_point: float = UNITS_PER_POINT) -> str:
    """A length in points as ALTO's units (or a share as itself, `per_point` 1), two decimals at most."""
    return f"{points * per_point:.2f}".rstrip("0").rstrip(".")
