"""A document's HTML report for people to check: a header with what is known of it, page navigation, and each
page's picture beside its blocks, tables rendered and formulas typeset by a MathJax copied into the report."""

import html
import shutil
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path

from db.models import Block, Page
from db.statuses import PageStatus
from folio import __version__
from folio.annotate import StoredDocument, annotate_page

MATHJAX = "tex-svg-full.js"  # every TeX extension in one file, SVG output: no fonts or other files to load


def copy_mathjax(out: Path) -> str:
    """MathJax (from the django-static-mathjax package) and its license copied into out/mathjax; the script's
    path relative to out. The report reaches for no network."""
    source = files("mathjax") / "static" / "mathjax"
    folder = out / "mathjax"
    folder.mkdir(parents=True, exist_ok=True)
    for name, origin in ((MATHJAX, source / "es5" / MATHJAX), ("LICENSE", source / "LICENSE")):
        with origin.open("rb") as reader, open(folder / name, "wb") as writer:
            shutil.copyfileobj(reader, writer)
    return f"mathjax/{MATHJAX}"


def write_report(stored: StoredDocument, out: Path, dpi: int = 110) -> Path:
    """out/index.html with the pages' pictures beside it; returns the index."""
    out.mkdir(parents=True, exist_ok=True)
    script = copy_mathjax(out)
    numbers = [page.page_no for page in stored.pages]
    sections = [_page_section(stored, page, out, dpi, numbers) for page in stored.pages]
    name = Path(stored.sources[0]).name if stored.sources else stored.pdf.name
    index = out / "index.html"
    index.write_text(REPORT.format(title=html.escape(f"{name} ({stored.sha256[:12]})"), script=script,
                                   header=_header(stored, name), nav=_nav(numbers), body="\n".join(sections)),
                     encoding="utf-8")
    return index


def _header(stored: StoredDocument, name: str) -> str:
    by_status: dict[str, int] = {}
    for page in stored.pages:
        by_status[page.status] = by_status.get(page.status, 0) + 1
    pages = f"{len(stored.pages)}" + (": " + ", ".join(f"{n} {status}" for status, n in sorted(by_status.items()))
                                      if stored.pages else "")
    status = stored.status + (f" ({stored.error})" if stored.error else "")
    changed = stored.updated_at.strftime("%Y-%m-%d %H:%M %Z") if stored.updated_at else "unknown"
    facts = [("sha256", f"<code>{stored.sha256}</code>"),
             ("sources", "<br>".join(html.escape(uri) for uri in stored.sources) or html.escape(str(stored.pdf))),
             ("status", html.escape(status)), ("pages", html.escape(pages)),
             ("engine", html.escape(", ".join(stored.engine_versions) or "none")),
             ("last changed", html.escape(changed)),
             ("report", html.escape(f"written {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by folio {__version__}"))]
    rows = "\n".join(f"<tr><th>{key}</th><td>{value}</td></tr>" for key, value in facts)
    return f'<header id="top"><h1>{html.escape(name)}</h1>\n<table class="facts">\n{rows}\n</table></header>'


def _nav(numbers: list[int]) -> str:
    links = " ".join(f'<a href="#page-{n}">{n}</a>' for n in numbers)
    return f'<nav>Pages: {links} <a href="#top">top</a></nav>'


def _page_section(stored: StoredDocument, page: Page, out: Path, dpi: int, numbers: list[int]) -> str:
    at = numbers.index(page.page_no)
    steps = [f'<a href="#page-{numbers[at - 1]}">&larr; page {numbers[at - 1]}</a>' if at else "",
             f'<a href="#page-{numbers[at + 1]}">page {numbers[at + 1]} &rarr;</a>' if at + 1 < len(numbers) else ""]
    parts = [f'<section id="page-{page.page_no}"><h2>Page {page.page_no} <small>{html.escape(page.status)}</small>'
             f'<span class="steps">{" ".join(step for step in steps if step)}</span></h2>']
    if page.status == PageStatus.DONE:
        image = annotate_page(stored, page.page_no, out / f"page-{page.page_no}.png", dpi)
        parts.append(f'<div class="page"><img src="{image.name}" alt="page {page.page_no}"><ol start="0">')
        for block in page.blocks:
            parts.append(f'<li><span class="type">{block.type}</span> {_block_html(block)}</li>')
        parts.append("</ol></div>")
    else:
        parts.append(f"<p>{html.escape(page.error or '')}</p>")
    parts.append("</section>")
    return "\n".join(parts)


def _block_html(block: Block) -> str:
    if block.table is not None:
        return block.table.html
    if block.formula is not None:
        latex = html.escape(block.formula.latex)
        return (f'<div class="formula">\\[{latex}\\]</div>'
                f"<details><summary>LaTeX</summary><pre>{latex}</pre></details>")
    return html.escape(block.text)


REPORT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>folio: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 0 2em 2em; }}
nav {{ position: sticky; top: 0; background: #fff; padding: 0.5em 0; border-bottom: 1px solid #ccc; z-index: 1; }}
nav a {{ margin-right: 0.4em; }}
.facts th {{ text-align: left; padding-right: 1em; vertical-align: top; border: none; }}
.facts td {{ border: none; }}
.steps {{ font-size: 0.6em; font-weight: normal; margin-left: 1em; }} .steps a {{ margin-right: 0.8em; }}
section {{ scroll-margin-top: 3em; }}
.page {{ display: flex; gap: 2em; align-items: flex-start; }}
.page img {{ max-width: 55%; border: 1px solid #ccc; }}
.type {{ font-size: 0.8em; color: #666; }}
table {{ border-collapse: collapse; }} td, th {{ border: 1px solid #999; padding: 2px 6px; }}
.formula {{ overflow-x: auto; }}
pre {{ background: #f4f4f4; padding: 4px; white-space: pre-wrap; }}
</style>
<script>
window.MathJax = {{
  tex: {{ inlineMath: [], displayMath: [["\\\\[", "\\\\]"]] }},
  options: {{ ignoreHtmlClass: "tex2jax_ignore", processHtmlClass: "formula" }},
  svg: {{ fontCache: "global" }}
}};
</script>
<script defer src="{script}"></script>
</head>
<body class="tex2jax_ignore">
{header}
{nav}
{body}
</body></html>
"""
