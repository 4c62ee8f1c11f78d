"""folio: archives of PDFs turned into relational data."""

__version__ = "0.1.0"
