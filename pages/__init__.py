"""Pages as they are read, parsed and stored: a PDF page read with PyMuPDF (pdf.py, its layout analysis in
pdf_layout.py), a batch's pages parsed by the engine here or in worker processes (parsing.py, engine_processes.py),
what one page may hold and take (budget.py), and engine results turned into rows, one batch in one transaction
(rows.py)."""
