"""PDFs the tests make: good ones from folio.samples, and every kind of bad input."""

from pathlib import Path

import numpy as np
import pymupdf

from folio.samples import PARAGRAPHS, TABLE, PageSpec, born_digital_pdf, scanned_pdf

TWO_COLUMN = PageSpec(title="Annual Report of the Municipal Archive", columns=2, paragraphs=PARAGRAPHS[:4])
WITH_TABLE = PageSpec(columns=1, paragraphs=PARAGRAPHS[3:], table=TABLE)


def two_column_pdf(folder: Path, name: str = "report.pdf") -> Path:
    return born_digital_pdf(folder / name, [TWO_COLUMN, WITH_TABLE])


def reports(folder: Path, titles: list[str], name: str) -> list[Path]:
    """One two-page born-digital PDF per title in the folder (made if need be), `<name>-<n>.pdf`: two columns of
    paragraphs, then a page with a ruled table."""
    folder.mkdir(exist_ok=True)
    return [born_digital_pdf(folder / f"{name}-{number}.pdf", [
        PageSpec(title=title, columns=2, paragraphs=PARAGRAPHS[number:number + 3]), WITH_TABLE])
        for number, title in enumerate(titles)]


def scan_pdf(folder: Path, name: str = "scan.pdf") -> Path:
    return scanned_pdf(folder / name, [PageSpec(title="Letter to the Harbour Board", paragraphs=PARAGRAPHS[:2])])


def truncated_pdf(folder: Path, source: Path) -> Path:
    data = source.read_bytes()
    path = folder / "truncated.pdf"
    path.write_bytes(data[: len(data) // 3])
    return path


def random_bytes_pdf(folder: Path) -> Path:
    path = folder / "random.pdf"
    path.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(5000)))
    return path


def empty_pdf(folder: Path) -> Path:
    path = folder / "empty.pdf"
    path.write_bytes(b"")
    return path


def not_a_pdf(folder: Path) -> Path:
    path = folder / "notes.pdf"
    path.write_text("These are plain-text meeting notes, saved with the wrong extension.\n")
    return path


def encrypted_pdf(folder: Path, source: Path) -> Path:
    document = pymupdf.open(source)
    path = folder / "protected.pdf"
    document.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    document.close()
    return path


def huge_page_pdf(folder: Path) -> Path:
    """One 14400 x 14400 pt page (the largest PDF allows) with a little text and a drawing."""
    document = pymupdf.open()
    page = document.new_page(width=14400, height=14400)
    page.insert_text((720, 720), "Site plan of the harbour district", fontsize=96)
    page.draw_rect(pymupdf.Rect(1000, 1000, 13000, 13000), width=20)
    path = folder / "site-plan.pdf"
    document.save(path)
    document.close()
    return path


def resaved_pdf(folder: Path, source: Path) -> Path:
    """The same pages written again with other object numbers and compression: other bytes."""
    document = pymupdf.open(source)
    document.set_metadata({"producer": "re-saved by a test"})
    path = folder / f"resaved-{source.name}"
    document.save(path, garbage=4, deflate=True, clean=True)
    document.close()
    return path


def formula_page_pdf(folder: Path, name: str = "formula.pdf") -> Path:
    """A two-column page with a ruled table and a display formula set in italics below the text."""
    path = folder / name
    born_digital_pdf(path, [PageSpec(title="Report", columns=2, paragraphs=PARAGRAPHS[:2], table=TABLE)])
    with pymupdf.open(path) as document:
        document[0].insert_text((250, 340), "a + b = c", fontname="Times-Italic", fontsize=16)
        document.saveIncr()
    return path


def raw_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of these objects (numbered from 1; the first is the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)


def one_page_pdf(path: Path, kids: bytes = b"3 0 R", count: int = 1, content: bytes = b"", info: bytes = b"") -> Path:
    """A PDF whose page tree lists `kids` (objects 2: the tree, 3: its one page) and claims `count` pages."""
    content = content or b"BT /F1 12 Tf 72 720 Td (Minutes of the harbour board) Tj ET"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    if info:
        objects.append(info)
    path.write_bytes(raw_pdf(objects, b"/Info 6 0 R" if info else b""))
    return path


def lying_count_pdf(folder: Path) -> Path:
    """One page, and a page tree that says it holds 3,000."""
    return one_page_pdf(folder / "lying-count.pdf", count=3000)


def repeated_page_pdf(folder: Path) -> Path:
    """One page object listed 3,000 times in the page tree."""
    return one_page_pdf(folder / "repeated-page.pdf", kids=b" ".join([b"3 0 R"] * 3000), count=3000)


def page_tree_cycle_pdf(folder: Path) -> Path:
    """A page tree that lists itself as its only kid: MuPDF fails to load the page (FzErrorFormat)."""
    return one_page_pdf(folder / "page-tree-cycle.pdf", kids=b"2 0 R")


def invalid_unicode_metadata_pdf(folder: Path) -> Path:
    """A good page, and a UTF-16 title ending in a lone high surrogate (PyMuPDF reads lone surrogates)."""
    return one_page_pdf(folder / "odd-title.pdf", info=b"<< /Title <FEFF0041D800> /Author (Harbour Board) >>")


def text_objects_pdf(folder: Path, count: int = 50_000) -> Path:
    """One page of `count` one-character text objects, in 100 columns of 1.2 pt letters 1.5 pt apart."""
    content = b"\n".join(b"BT /F1 1.2 Tf %d %.1f Td (x) Tj ET" % (8 + 6 * (i % 100), 772 - 1.5 * (i // 100))
                         for i in range(count))
    return one_page_pdf(folder / f"text-objects-{count}.pdf", content=content)


def type3_text_pdf(path: Path, lines: list[str], standard_names: bool = False) -> Path:
    """A page whose lines are set in a Type3 font without ToUnicode: each glyph draws a Helvetica letter, and
    the codes are punctuation from "!" on. With private glyph names (g84 for "T") MuPDF can only guess the
    characters (glyph soup); with standard names (T, h, e, space; letters and . , only) it reads the text right."""
    letters = sorted(set("".join(lines)))
    helvetica = pymupdf.Font("helv")
    document = pymupdf.open()
    page = document.new_page(width=420, height=120 + 18 * len(lines))

    def new_object(body: str, stream: bytes | None = None) -> int:
        xref = document.get_new_xref()
        document.update_object(xref, body)
        if stream is not None:
            document.update_stream(xref, stream)
        return xref

    font = new_object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    standard = {" ": "space", ".": "period", ",": "comma"}
    names = [standard.get(c, c) if standard_names else f"g{ord(c)}" for c in letters]
    widths = [round(helvetica.glyph_advance(ord(c)) * 1000) for c in letters]
    procs = [new_object("<<>>", f"{w} 0 d0 BT /H 1000 Tf ({c}) Tj ET".encode()) for c, w in zip(letters, widths)]
    first = ord("!")
    type3 = new_object(
        "<< /Type /Font /Subtype /Type3 /FontBBox [0 -200 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] "
        f"/CharProcs << {' '.join(f'/{n} {x} 0 R' for n, x in zip(names, procs))} >> "
        f"/Encoding << /Type /Encoding /Differences [{first} {' '.join('/' + n for n in names)}] >> "
        f"/FirstChar {first} /LastChar {first + len(letters) - 1} /Widths [{' '.join(map(str, widths))}] "
        f"/Resources << /Font << /H {font} 0 R >> >> >>")
    codes = {c: chr(first + i) for i, c in enumerate(letters)}

    def encoded(line: str) -> str:
        return "".join("\\" + codes[c] if codes[c] in "()\\" else codes[c] for c in line)

    shown = " ".join(f"({encoded(line)}) Tj T*" for line in lines)
    content = new_object("<<>>", f"BT /T3 14 Tf 1 0 0 1 30 {page.rect.height - 60} Tm 18 TL {shown} ET".encode())
    document.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    document.xref_set_key(page.xref, "Resources", f"<< /Font << /T3 {type3} 0 R >> >>")
    document.save(path)
    return path


STATISTICS = [  # (title, header rows of (text, column span), body rows): a two-level header, then a plain table
    ("Table 1. Employment by region (thousands)",
     [[("2019", 2), ("2020", 2)], [("Men", 1), ("Women", 1), ("Men", 1), ("Women", 1)]],
     [["North", "412", "398", "405", "391"], ["South", "287", "301", "279", "296"], ["Capital", "655", "671",
                                                                                        "640", "662"]]),
    ("Table 2. Enterprises by size class",
     [[("Enterprises", 1), ("Persons", 1), ("Turnover", 1), ("Exports", 1)]],
     [["Small", "12,408", "61,220", "3,104", "511"], ["Medium", "1,362", "88,017", "9,950", "2,437"],
      ["Large", "214", "142,655", "41,372", "18,006"]]),
]


LEADERS_TABLE = [("Ensemble", "7 590 669", "7 813 311"), ("Agriculture", "982 982", "1 124 476"),
                 ("Industrie", "3 703 635", "3 647 461"), ("Construction", "1 060 731", "1 192 165")]


def leaders_pdf(folder: Path, name: str = "leaders.pdf") -> Path:
    """A statistical office's table on top of its page: its title ("Tableau 2 - ..."), row labels with dot leaders
    out to their figures, figures whose digits are grouped by spaces ("7 590 669")."""
    document = pymupdf.open()
    page = document.new_page(width=420, height=300)
    page.insert_text((40, 22), "Tableau 2 - Emploi salarie par secteur", fontname="Helvetica-Bold", fontsize=9)
    page.draw_line((40, 30), (380, 30), width=0.6)
    page.insert_text((40, 42), "Secteur", fontname="Helvetica", fontsize=8)
    rights = (300, 380)
    for right, year in zip(rights, ("2021", "2022")):
        page.insert_text((right - pymupdf.get_text_length(year, "Helvetica", 8), 42), year, fontname="Helvetica",
                         fontsize=8)
    page.draw_line((40, 46), (380, 46), width=0.6)
    for index, (label, *figures) in enumerate(LEADERS_TABLE):
        y = 58 + 12 * index
        page.insert_text((40, y), f"{label} {'.' * (48 - 2 * len(label))}", fontname="Helvetica", fontsize=8)
        for right, figure in zip(rights, figures):
            page.insert_text((right - pymupdf.get_text_length(figure, "Helvetica", 8), y), figure,
                             fontname="Helvetica", fontsize=8)
    page.draw_line((40, 58 + 12 * len(LEADERS_TABLE) - 6), (380, 58 + 12 * len(LEADERS_TABLE) - 6), width=0.6)
    page.insert_text((40, 130), "Source: annual survey of employment. Figures for 2022 are provisional.",
                     fontname="Helvetica", fontsize=8)
    path = folder / name
    document.save(path)
    document.close()
    return path


NARROW_TABLE = [("Region", "2018", "2019", "2020", "2021", "2022", "2023"),
                ("Upper basin", "8,669,908", "7,057,071", "8,416,372", "2,193,943", "313,915", "7,384,170"),
                ("Coastal", "8,696,548", "66,076", "9,318,868", "8,094,888", "1,780,320", "9,400,309"),
                ("Lakeside", "708,079", "1,639,993", "8,518,127", "7,586,353", "9,424,355", "467,609"),
                ("Northern Islands", "8,592,743", "3,345,530", "4,650,501", "7,589,203", "8,525,545", "8,947,144")]


def narrow_gutters_pdf(folder: Path, name: str = "narrow.pdf") -> Path:
    """A statistical table of six year columns 3.2 pt apart at 8 pt (a 0.4 em gutter, as narrow as a word space),
    its figures right-aligned, ruled over and under its header and under its body, under its title."""
    document = pymupdf.open()
    page = document.new_page(width=400, height=160)
    page.insert_text((20, 22), "Table 4. Residents by region", fontname="Helvetica-Bold", fontsize=8)
    gutter, left = 3.2, 20.0
    widths = [max(pymupdf.get_text_length(row[c], "helv", 8) for row in NARROW_TABLE) for c in range(7)]
    rights = [left + widths[0]]
    for width in widths[1:]:
        rights.append(rights[-1] + gutter + width)
    for r, row in enumerate(NARROW_TABLE):
        for c, value in enumerate(row):
            x = left if c == 0 else rights[c] - pymupdf.get_text_length(value, "helv", 8)
            page.insert_text((x, 40 + 11 * r), value, fontname="helv", fontsize=8)
    for y in (31, 43, 87):
        page.draw_line((left - 2, y), (rights[-1] + 2, y), width=0.5)
    path = folder / name
    document.save(path)
    document.close()
    return path


TYPED_TABLE = [("Alabama", "1,048,774", "1,636,537", "1.7", "7.7"), ("District of Columbia", "6,134,620", "702,710",
                                                                       "6.4", "2.5"),
               ("Wyoming", "2,859,657", "9,503,803", "2.4", "2.8")]


def typed_table_pdf(folder: Path, name: str = "typed.pdf") -> Path:
    """A statistical release printed from a text file: a table typed in Courier, its columns lined up by spaces,
    a two-level header ruled off by a line of dashes."""
    lines = ["Table 3. Civilian labor force by state", "",
             "                               Labor force           Unemployed",
             "State                        2021        2022       2021     2022",
             "-" * 65]
    lines += [f"{state:<25}{a:>10}  {b:>10}  {c:>7}  {d:>7}" for state, a, b, c, d in TYPED_TABLE]
    lines += ["", "NOTE: Data refer to place of residence."]
    document = pymupdf.open()
    page = document.new_page(width=612, height=300)
    for index, line in enumerate(lines):
        page.insert_text((40, 40 + 11 * index), line, fontname="Courier", fontsize=9)
    path = folder / name
    document.save(path)
    document.close()
    return path


def statistics_pdf(folder: Path, name: str = "statistics.pdf") -> Path:
    """One page of two tables stacked under their titles, set without vertical rules (booktabs style) and with
    the same columns: the first under a two-level header ("2019" over "Men" and "Women"), with a stub header
    "Region" beside both header rows."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    columns = [72.0, 192.0, 252.0, 312.0, 372.0, 432.0]  # left edges; the last is the table's right edge
    y = 90.0
    for title, header, body in STATISTICS:
        page.insert_text((72, y), title, fontname="Helvetica-Bold", fontsize=10)
        top = y + 8
        page.draw_line((72, top), (432, top), width=0.6)
        line = top + 12
        for cells in header:
            col = 1
            for text, span in cells:
                width = pymupdf.get_text_length(text, "Helvetica-Bold", 9)
                page.insert_text(((columns[col] + columns[col + span]) / 2 - width / 2, line), text,
                                 fontname="Helvetica-Bold", fontsize=9)
                if span > 1:
                    page.draw_line((columns[col] + 4, line + 3), (columns[col + span] - 4, line + 3), width=0.4)
                col += span
            line += 13
        page.insert_text((72, top + 12), "Region" if len(header) > 1 else "Size class", fontname="Helvetica-Bold",
                         fontsize=9)
        page.draw_line((72, line - 8), (432, line - 8), width=0.4)
        line += 2
        for row in body:
            page.insert_text((74, line), row[0], fontname="Helvetica", fontsize=9)
            for col, text in enumerate(row[1:], start=1):
                width = pymupdf.get_text_length(text, "Helvetica", 9)
                page.insert_text((columns[col + 1] - 6 - width, line), text, fontname="Helvetica", fontsize=9)
            line += 13
        page.draw_line((72, line - 8), (432, line - 8), width=0.6)
        y = line + 30
    path = folder / name
    document.save(path)
    document.close()
    return path


WRAPPED_STATISTICS = [
    (["Municipal waste collected", "separately for recycling"], ["49.7", "92.0", "1,204", "-3.1"]),
    (["Mining and quarrying"], ["7.3", "23,374", "618", "+0.4"]),
    (["Passenger cars registered", "for the first time in the", "reporting year"], ["12.8", "641,475", "2,980", "n/a"]),
    (["Electricity, gas and steam", "supply"], ["949.7", "975,492", "40,116", "+12.6"]),
    (["Visits to general", "practitioners per inhabitant"], ["(15.0)", "965,533", "7,002", "-0.2"]),
]


def wrapped_statistics_pdf(folder: Path, name: str = "wrapped.pdf") -> Path:
    """A statistical table set without rules under a paragraph and a title: row labels wrapped over two or three
    lines in a stub 130 pt wide, the figures on each label's last line in four right-aligned columns 40 pt
    apart (the widest figures 9 pt apart), a note under it."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    page.insert_text((72, 90), "Estimates are based on a sample of households and are subject to sampling error.",
                     fontname="Helvetica", fontsize=10)
    page.insert_text((72, 120), "Table 7. Environment and transport", fontname="Helvetica-Bold", fontsize=10)
    rights = [232.0, 272.0, 312.0, 352.0]  # the figure columns' right edges
    line = 140.0
    page.insert_text((74, line), "Sector", fontname="Helvetica-Bold", fontsize=9)
    for right, year in zip(rights, ["2019", "2020", "2021", "2022"]):
        page.insert_text((right - pymupdf.get_text_length(year, "Helvetica-Bold", 9), line), year,
                         fontname="Helvetica-Bold", fontsize=9)
    for label, figures in WRAPPED_STATISTICS:
        for part in label:
            line += 12
            page.insert_text((74, line), part, fontname="Helvetica", fontsize=9)
        for right, text in zip(rights, figures):
            page.insert_text((right - pymupdf.get_text_length(text, "Helvetica", 9), line), text, fontname="Helvetica",
                             fontsize=9)
        line += 3
    page.insert_text((72, line + 20), "Note: figures may not add up to totals because of rounding.",
                     fontname="Helvetica", fontsize=8)
    path = folder / name
    document.save(path)
    document.close()
    return path


CELL_COLUMNS = (72, 200, 260, 320)  # left edges of `rendered_rows`' cells


def rendered_rows(rows: list[tuple[str, ...]], pitch: float = 14.0, dpi: int = 150
                  ) -> tuple[np.ndarray, float, list[tuple[str, tuple[float, float, float, float]]]]:
    """Rows of cells in Helvetica 9 pt (baselines `pitch` apart from y 100, cells at CELL_COLUMNS) rendered grey at
    `dpi`: the image, its pixels per point, and each non-empty cell's text with the box OCR would give its line."""
    document = pymupdf.open()
    page = document.new_page()
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("helv")
    cells = []
    for r, row in enumerate(rows):
        y = 100 + pitch * r
        for x, text in zip(CELL_COLUMNS, row):
            if text:
                writer.append((x, y), text, font=font, fontsize=9)
                cells.append((text, (x - 1, y - 8, x + font.text_length(text, fontsize=9) + 1, y + 2.5)))
    writer.write_text(page)
    pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    return np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.height, pixmap.width), dpi / 72, cells
