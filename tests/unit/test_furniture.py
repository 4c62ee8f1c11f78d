"""Page furniture found across a document's pages: running heads, footers, page numbers, margin stamps."""

from pathlib import Path

import pymupdf

from engine.stages.blocks import BlockStage
from engine.stages.classify import ClassifyStage
from engine.stages.furniture import FurnitureStage
from engine.stages.reading_order import ReadingOrderStage
from engine.stages.text_layer import TextLayerStage
from engine.types import Block, Line, PageInput, PageState, Region
from pages.pdf import page_input

WIDTH, HEIGHT = 595.0, 842.0
PARAGRAPHS = [
    "The harbour office kept its ledgers in bound volumes, one for each year, and the clerks entered every "
    "ship that called at the port together with its cargo, its master and the dues it paid.",
    "After the fire of 1921 the surviving volumes were moved to the municipal archive, where they were "
    "re-bound, numbered and described in a typed inventory that is still in use today.",
    "The board's minutes follow the same order and refer to the ledgers by volume and folio, so that the two "
    "series can be read side by side for any question about trade in the harbour.",
]


def write_pdf(path: Path, pages: list[list[tuple[str, float, float, float, str]]]) -> Path:
    """One page per list of (text, x, baseline y, font size, font); long texts wrap in a box from (x, y)."""
    document = pymupdf.open()
    for items in pages:
        page = document.new_page(width=WIDTH, height=HEIGHT)
        for text, x, y, size, font in items:
            if len(text) > 80:
                page.insert_textbox(pymupdf.Rect(x, y, WIDTH - 60, y + 120), text, fontsize=size, fontname=font)
            else:
                page.insert_text((x, y), text, fontsize=size, fontname=font)
    document.save(path)
    document.close()
    return path


def paragraphs(top: float) -> list[tuple[str, float, float, float, str]]:
    return [(text, 60, top + 140 * i, 10, "helv") for i, text in enumerate(PARAGRAPHS)]


def parse(path: Path, furniture: bool = True) -> list[PageState]:
    with pymupdf.open(path) as document:
        inputs = [page_input(page, f"p{page.number}", path) for page in document]
    pages = [PageState(input=page) for page in inputs]
    stages = [TextLayerStage(), BlockStage(), ClassifyStage()] + ([FurnitureStage()] if furniture else [])
    for stage in stages + [ReadingOrderStage()]:
        pages = stage(pages)
    return pages


def body_texts(page: PageState) -> list[str]:
    return [b.text for b in page.blocks if b.type not in ("header", "footer", "page_number")]


def running_document(tmp_path: Path) -> Path:
    """Three pages with a running head (at body size, below the 8% margin), a dated footer and a page number."""
    pages = []
    for number in range(1, 4):
        pages.append([
            ("Harbour Records of the Municipal Archive", 60, 72, 10, "helv"),
            *paragraphs(110),
            (f"Printed 2024-05-0{number} for the reading room", 60, 748, 8, "helv"),
            (str(number + 40), 520, 768, 9, "helv"),
        ])
    return write_pdf(tmp_path / "running.pdf", pages)


def test_a_running_head_footer_and_page_number_on_three_pages_are_furniture_around_the_body(tmp_path: Path):
    path = running_document(tmp_path)
    pages = parse(path)
    without = parse(path, furniture=False)
    for page, plain in zip(pages, without):
        assert not {"header", "footer", "page_number"} & {b.type for b in plain.blocks}  # position alone misses them
        types = [b.type for b in page.blocks]
        assert types[0] == "header" and page.blocks[0].text == "Harbour Records of the Municipal Archive"
        assert types[-2:] == ["footer", "page_number"], types
        assert page.blocks[-1].text == str(page.input.page_index + 41)
        assert "text" not in types[:1] + types[-2:]
        assert [b.order for b in page.blocks] == list(range(len(page.blocks)))
        # the body is what it was without the pass, in the same order
        expected = [b.text for b in plain.blocks if not b.text.startswith(("Harbour Records", "Printed"))
                    and b.text != str(page.input.page_index + 41)]
        assert body_texts(page) == expected
        assert len(expected) == len(PARAGRAPHS)


def test_a_one_page_documents_title_at_the_top_is_not_a_header(tmp_path: Path):
    items = [("Harbour Records of the Municipal Archive", 60, 60, 18, "hebo"),
             ("A survey of the ledgers", 60, 84, 10, "hebo"),
             *paragraphs(110)]
    [page] = parse(write_pdf(tmp_path / "titled.pdf", [items]))
    types = {b.text: b.type for b in page.blocks}
    assert types["Harbour Records of the Municipal Archive"] == "title"
    assert types["A survey of the ledgers"] == "title"
    assert not {"header", "footer", "page_number"} & set(types.values())


def test_a_short_paragraph_at_the_top_of_a_page_that_is_not_repeated_stays_text(tmp_path: Path):
    openings = ["The ledgers were re-bound in 1952.", "Two volumes are missing since the war.",
                "The inventory lists them all by year."]
    pages = [[(opening, 60, 72, 10, "helv"), *paragraphs(100)]
             for opening in openings]
    for page, opening in zip(parse(write_pdf(tmp_path / "openings.pdf", pages)), openings):
        assert {b.type for b in page.blocks} == {"text"}
        assert page.blocks[0].text == opening


def test_a_running_head_beside_a_page_number_is_found_on_a_single_page(tmp_path: Path):
    items = [("Optimized Table Tokenization for Table Structure Recognition", 150, 100, 9, "helv"),
             ("9", 480, 100, 9, "helv"),
             *paragraphs(130)]
    [page] = parse(write_pdf(tmp_path / "single.pdf", [items]))
    assert [b.type for b in page.blocks[:2]] == ["header", "page_number"]
    assert {b.type for b in page.blocks[2:]} == {"text"}


def test_pages_of_different_documents_are_not_compared(tmp_path: Path):
    pages = []
    for name in ("a", "b", "c"):
        path = write_pdf(tmp_path / f"{name}.pdf", [[
            ("The ledgers were re-bound in 1952.", 60, 72, 10, "helv"),
            *paragraphs(100)]])
        pages += parse(path, furniture=False)
    FurnitureStage()(pages)
    assert all(page.blocks[0].type == "text" for page in pages)


def ocr_block(text: str, bbox: tuple[float, float, float, float], size: float = 10.0) -> Block:
    return Block(type="text", bbox=bbox, lines=[Line(text=text, bbox=bbox, size=size, confidence=0.9)], text=text,
                 confidence=0.9)


def test_a_rotated_stamp_in_the_side_margin_is_kept_out_of_the_body():
    body = [ocr_block(f"Paragraph {i} of the scanned report on the harbour ledgers.",
                      (60, 100 + 60 * i, 540, 112 + 60 * i)) for i in range(8)]
    stamp = ocr_block("arXiv:2305.03393v1 [cs.CV] 5 May 2023", (14, 300, 26, 640))  # read turned by OCR
    page = PageState(input=PageInput(key="p", pdf_path="scan.pdf", page_index=0, width=WIDTH, height=HEIGHT,
                                     text_lines=[]), blocks=body + [stamp])
    ReadingOrderStage()(FurnitureStage()([page]))
    assert stamp.type == "footer"  # its centre is in the lower half of the page
    assert page.blocks[-1] is stamp
    assert [b.type for b in page.blocks[:-1]] == ["text"] * 8


def test_a_download_stamp_below_the_body_of_a_single_page_is_a_footer(tmp_path: Path):
    items = [*paragraphs(100),
             ("Downloaded from https://archive.example.org by guest on 12 May 2024", 60, 760, 7, "helv")]
    [page] = parse(write_pdf(tmp_path / "stamped.pdf", [items]))
    assert page.blocks[-1].type == "footer" and page.blocks[-1].text.startswith("Downloaded from")
    assert {b.type for b in page.blocks[:-1]} == {"text"}


def test_numbers_stacked_on_rows_below_the_body_are_not_page_numbers():
    body = [ocr_block(f"Paragraph {i} of the report on the harbour ledgers.", (60, 100 + 60 * i, 540, 112 + 60 * i))
            for i in range(8)]
    rows = [ocr_block(f"Volume {i} of the ledgers", (60, 740 + 18 * i, 300, 752 + 18 * i)) for i in range(3)]
    counts = [ocr_block(str(12 * i + 3), (400, 740 + 18 * i, 420, 752 + 18 * i)) for i in range(3)]
    page = PageState(input=PageInput(key="p", pdf_path="report.pdf", page_index=0, width=WIDTH, height=HEIGHT,
                                     text_lines=[]), blocks=body + rows + counts)
    FurnitureStage()([page])
    assert {b.type for b in page.blocks} == {"text"}


def test_a_page_number_at_the_same_place_on_a_taller_page_is_found_by_the_page_that_has_it_in_its_band(
        tmp_path: Path):
    document = pymupdf.open()
    for number, height in ((1, 792.0), (2, 860.0)):  # the second page is taller: its number sits above its band
        page = document.new_page(width=WIDTH, height=height)
        for text, x, y, size, font in paragraphs(100):
            page.insert_textbox(pymupdf.Rect(x, y, WIDTH - 60, y + 120), text, fontsize=size, fontname=font)
        page.insert_text((300, 700), str(number), fontsize=10, fontname="helv")
    path = tmp_path / "sizes.pdf"
    document.save(path)
    document.close()
    pages = parse(path)
    assert [page.blocks[-1].type for page in pages] == ["page_number", "page_number"]
    assert [page.blocks[-1].text for page in pages] == ["1", "2"]
    [alone] = parse(write_pdf(tmp_path / "alone.pdf", [[*paragraphs(100), ("2", 300, 700, 10, "helv")]]))
    assert alone.blocks[-1].type == "text"  # the same number on a one-page document: not in the band, not confirmed


def test_the_first_pages_title_stays_a_title_when_later_pages_run_it_as_their_head(tmp_path: Path):
    head = "Harbour Records of the Municipal Archive"
    pages = [[(head, 60, 72, 18, "hebo"), *paragraphs(110)]]
    pages += [[(head, 60, 72, 9, "helv"), *paragraphs(110)] for _ in range(2)]
    first, *rest = parse(write_pdf(tmp_path / "titled-run.pdf", pages))
    assert (first.blocks[0].text, first.blocks[0].type) == (head, "title")
    assert all((page.blocks[0].text, page.blocks[0].type) == (head, "header") for page in rest)


def test_a_one_page_documents_revision_line_and_the_layout_models_page_header_are_furniture(tmp_path: Path):
    path = write_pdf(tmp_path / "bulletin.pdf", [[
        ("Statistical Bulletin 12/2024", 60, 72, 10, "helv"),
        ("Rev. 3, 2024-03-12", 460, 72, 8, "helv"),
        *paragraphs(110),
        ("Revision history is kept in the register", 60, 770, 9, "helv"),
    ]])
    [plain] = parse(path, furniture=False)
    assert not {"header", "footer"} & {b.type for b in plain.blocks}  # below the top margin, nothing repeats it
    with pymupdf.open(path) as document:
        [item] = [page_input(document[0], "p0", path)]
    page = PageState(input=item)
    for stage in (TextLayerStage(), BlockStage(), ClassifyStage()):
        [page] = stage([page])
    [head] = [b for b in page.blocks if b.text == "Statistical Bulletin 12/2024"]
    page.regions = [Region(type="header", bbox=head.bbox, score=1.0)]  # as PyMuPDF's layout model marks it
    [page] = ReadingOrderStage()(FurnitureStage()([page]))
    types = {b.text: b.type for b in page.blocks}
    assert types["Rev. 3, 2024-03-12"] == "header" and types["Statistical Bulletin 12/2024"] == "header"
    assert types["Revision history is kept in the register"] != "footer"  # no number or date: a sentence


def test_a_caption_the_layout_model_takes_for_a_page_header_stays_a_caption(tmp_path: Path):
    path = write_pdf(tmp_path / "table.pdf", [[("Table 9. Enterprise statistics", 60, 84, 10, "helv"),
                                                *paragraphs(110)]])
    with pymupdf.open(path) as document:
        page = PageState(input=page_input(document[0], "p0", path))
    for stage in (TextLayerStage(), BlockStage(), ClassifyStage()):
        [page] = stage([page])
    [caption] = [b for b in page.blocks if b.text.startswith("Table 9.")]
    page.regions = [Region(type="header", bbox=caption.bbox, score=0.9)]
    [page] = FurnitureStage()([page])
    assert caption.type == "caption"
