"""PDFs the tests make: good ones from folio.samples, and every kind of bad input."""

from pathlib import Path

import pymupdf

from folio.samples import PARAGRAPHS, TABLE, PageSpec, born_digital_pdf, scanned_pdf

TWO_COLUMN = PageSpec(title="Annual Report of the Municipal Archive", columns=2, paragraphs=PARAGRAPHS[:4])
WITH_TABLE = PageSpec(columns=1, paragraphs=PARAGRAPHS[3:], table=TABLE)


def two_column_pdf(folder: Path, name: str = "report.pdf") -> Path:
    return born_digital_pdf(folder / name, [TWO_COLUMN, WITH_TABLE])


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
