"""The `folio` command line's arguments: every command and option described, with examples, checked on the way in."""

import argparse
import sys
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NoReturn

from db.statuses import FINISHED
from folio.cli.sql_output import FORMATS

DOCUMENT_HELP = "the document: its sha256 (or its first 8+ characters) or a path it was seen at"
SINCE_HELP = "documents last changed at or after (ISO date or time)"


class Parser(argparse.ArgumentParser):
    """argparse with errors in two lines (what is wrong, where to read more) and examples kept as written."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        if kwargs.get("description"):
            kwargs["description"] = textwrap.fill(kwargs["description"], 79)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\nSee `{self.prog} --help`.\n")


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
        if number < low or (high is not None and number > high):
            bounds = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {number}")
        return number

    parse.__name__ = "whole number"
    return parse


def timestamp(value: str) -> datetime:
    """An ISO date or time; without a zone it is UTC."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date or time (2026-11-01, 2026-11-01T08:00): {value!r}") \
            from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class VersionAction(argparse.Action):
    """--version: folio's version, the configured engine's identity with its parts and the newest schema revision,
    looked up only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> NoReturn:
        from base.engines import engine_identity
        from base.migrate import head_revision
        from engine import ENGINE_VERSION
        from folio import __version__

        try:
            identity = engine_identity()
        except (ValueError, FileNotFoundError) as error:  # an engine that cannot be configured: the code version
            engine = f"{ENGINE_VERSION} (the configured engine: {error})"
        else:
            engine = identity.version + "".join(f"\n  {part}: {value}" for part, value in identity.parts())
        print(f"folio {__version__}\nengine {engine}\nschema head {head_revision()}")
        parser.exit()


def examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser() -> Parser:
    def add_common(to: argparse.ArgumentParser, default: object) -> None:
        """--verbose and --debug, before the command or after it (there without a default, not to undo the first)."""
        to.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="show Prefect's and the libraries' own log lines (INFO and up) as they come")
        to.add_argument("--debug", action="store_true", default=default,
                        help="print the traceback of an error (also: FOLIO_DEBUG=1)")

    common = argparse.ArgumentParser(add_help=False)
    add_common(common, argparse.SUPPRESS)

    parser = Parser(prog="folio", description="Digitize archives of PDFs into PostgreSQL: every page's blocks, "
                                              "tables, formulas and reading order, ready for SQL.",
                    epilog=examples("folio run ~/scans/delivery-2026-11", "folio status",
                                    "folio export --format markdown --out exports/",
                                    "folio sql \"SELECT type, count(*) FROM blocks GROUP BY type\"",
                                    "folio run --help    (each command's options and examples)"))
    add_common(parser, False)
    parser.add_argument("--version", action=VersionAction,
                        help="print folio's version, the engine's version and the newest schema revision")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)

    def command(name: str, summary: str, *example_lines: str, description: str | None = None) -> Parser:
        return commands.add_parser(name, help=summary, description=description or summary,
                                   epilog=examples(*example_lines), parents=[common])

    batch_size = dict(type=whole_number(1, 512), default=None, metavar="PAGES",
                      help="pages per batch task, each stored in one transaction (default: FOLIO_BATCH_SIZE, 8)")

    run = command("run", "run the digitize flow on a folder, an S3 prefix or one PDF",
                  "folio run ~/scans/delivery-2026-11", "folio run s3://archive/deliveries/2026-11 --batch-size 16",
                  "folio run minutes-1931.pdf", description=(
                      "Digitize every PDF under a folder or an S3 prefix (recursively), or one PDF. Shows a "
                      "progress bar on a terminal, then a summary: what became of every file, failed and "
                      "quarantined files with their reasons. Exits 0 when the run finished, even if some "
                      "documents failed; 1 when batches failed (a retry completes them)."))
    run.add_argument("source", help="a folder or an s3://bucket/prefix (searched recursively), or one PDF")
    run.add_argument("--batch-size", **batch_size)

    reprocess = command(
        "reprocess", "parse finished documents again: by status, id, date or engine version",
        "folio reprocess --status failed quarantined", "folio reprocess --id 12 40 --force",
        "folio reprocess --engine-version --since 2026-11-01",
        description="Parse finished documents again. Filters combine with AND; without --engine-version or "
                    "--force only failed and quarantined documents are chosen.")
    reprocess.add_argument("--status", nargs="+", choices=[str(status) for status in FINISHED],
                           help="documents with these statuses")
    reprocess.add_argument("--id", nargs="+", type=whole_number(1), metavar="ID", help="documents with these ids")
    reprocess.add_argument("--since", type=timestamp, metavar="DATE", help=SINCE_HELP)
    reprocess.add_argument("--until", type=timestamp, metavar="DATE",
                           help="documents last changed before (ISO date or time)")
    reprocess.add_argument("--engine-version", nargs="?", const="", default=None, metavar="VERSION",
                           help="done documents whose results came from VERSION (0.3.2: any 0.3.2+<identity>); "
                                "without a value: from any version but the configured engine's identity (code, "
                                "settings and model files: folio engine info)")
    reprocess.add_argument("--force", action="store_true",
                           help="parse the chosen documents again even if their results are current, and do not "
                                "reuse stored results of identical pages")
    reprocess.add_argument("--batch-size", **batch_size)

    command("deploy", "register the deployments (nightly-digitization, ingest, reprocess) and their work pool "
                      "with the Prefect API in PREFECT_API_URL",
            "folio deploy", "PREFECT_API_URL=http://prefect.internal:4200/api folio deploy")

    serve = command("serve", "the Prefect UI with folio's deployments and a worker: starts a Prefect server unless "
                             "PREFECT_API_URL answers",
                    "folio serve", "folio serve --port 4300",
                    description="Start the Prefect server (unless the one in PREFECT_API_URL answers), register "
                                "the deployments and run a worker until Ctrl-C or SIGTERM, which stop the server "
                                "and the worker too. nightly-digitization stays paused until FOLIO_NIGHTLY_SOURCE "
                                "names a folder that exists or an S3 prefix.")
    serve.add_argument("--host", default="127.0.0.1", help="address the Prefect server listens on (127.0.0.1)")
    serve.add_argument("--port", type=whole_number(1, 65535), default=4200,
                       help="port of the Prefect server and its UI (4200)")

    metrics = command("metrics", "serve Prometheus metrics of the database on /metrics until Ctrl-C",
                      "folio metrics --port 9464", "folio metrics --host 0.0.0.0 --port 9464",
                      description="Serve /metrics in Prometheus's text format: documents, pages and runs by "
                                  "status, claims, the last finished runs, pages by engine and validation "
                                  "findings, read from the database at each scrape. Runs push their own measures "
                                  "to FOLIO_PUSHGATEWAY_URL. The README's Monitoring section lists every metric.")
    metrics.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    metrics.add_argument("--port", type=whole_number(1, 65535), required=True, help="port to listen on")

    demo = command("demo", "make sample PDFs under FOLIO_HOME, run on them, query the result", "folio demo")
    demo.add_argument("--limit", type=whole_number(0), default=25,
                      help="rows of the example query to print, 0 for all (25)")

    export = command(
        "export", "write stored documents as JSON, Markdown, HTML, text, ALTO XML or searchable PDFs, all or those "
                  "chosen by the filters",
        "folio export --out exports/", "folio export --format markdown --source '*minutes-1931*' --out -",
        "folio export --format html --since 2026-11-01 --out s3://bucket/exports/",
        "folio export --format pdf --source '*scans*' --out searchable/",
        description="Write one file per stored document (<sha256>.json, .md, .html, .txt, .alto.xml or .pdf), read "
                    "back from PostgreSQL; filters combine with AND. Markdown: titles as headings, tables as Markdown "
                    "(HTML where cells span), formulas as $$...$$, running headers, footers and page numbers left "
                    "out. ALTO: ALTO 4, every stored line and word with its box. PDF: the original file (read again "
                    "from where it was seen) with an invisible text layer over the lines read by OCR.")
    export.add_argument("--out", required=True, metavar="DEST",
                        help="folder or s3://bucket/prefix to write into; - for standard output (one document)")
    export.add_argument("--format", choices=("json", "markdown", "html", "text", "alto", "pdf"), default="json",
                        help="json (the export contract, default), markdown, html, text, alto or pdf")
    export.add_argument("--id", nargs="+", type=whole_number(1), metavar="ID", help="documents with these ids")
    export.add_argument("--sha256", nargs="+", metavar="PREFIX",
                        help="documents whose sha256 starts with one of these (8 characters at least)")
    export.add_argument("--source", nargs="+", metavar="GLOB",
                        help="documents seen at a path or URI matching one of these (* and ? as in the shell; "
                             "quote them)")
    export.add_argument("--since", type=timestamp, metavar="DATE", help=SINCE_HELP)

    show = command("show", "print one document as Markdown", "folio show 3fa1c2d9",
                   "folio show ~/scans/minutes-1931.pdf | less")
    show.add_argument("document", help=DOCUMENT_HELP)

    sql = command(
        "sql", "run one read-only SQL query and print the rows: a table, CSV, TSV or JSON",
        "folio sql \"SELECT status, count(*) FROM documents GROUP BY status\"",
        "folio sql --format csv \"SELECT * FROM document_overview\" > documents.csv",
        "folio sql --format json \"SELECT id, sha256, metadata FROM documents\" | jq '.[].sha256'",
        "folio sql --format tsv --limit 100 \"SELECT source, page_no, text FROM block_details\"",
        description="Run one SQL statement as the read-only role folio_reader and print its rows: a table on a "
                    "terminal, CSV when standard output is a pipe or a file. Column names are made unique in "
                    "every format: an unnamed expression is `column`, a repeated name gets _2, _3 (count, "
                    "count_2). CSV, TSV and JSON hold every value whole; the table folds long ones. Exits 1 "
                    "when PostgreSQL (or folio) refuses the query, 2 when the database cannot be used.")
    sql.add_argument("query", help="one SQL statement (quote it); it runs in a read-only transaction")
    sql.add_argument("--format", choices=FORMATS, default=None,
                     help="table (the default on a terminal: long values folded); csv (the default into a pipe "
                          "or file: RFC 4180, NULL an empty unquoted field); tsv (PostgreSQL's text COPY format: "
                          "NULL is \\N, tab, newline and backslash written \\t, \\n, \\\\); json (an array of "
                          "objects, one a line: numbers as numbers, NULL null, json and jsonb nested, timestamps "
                          "ISO 8601, bytea as \\x and hex). All in UTF-8")
    sql.add_argument("--limit", type=whole_number(0), default=None, metavar="ROWS",
                     help="print at most this many rows, 0 for all (default: 1000 as a table, all in the other "
                          "formats); when rows are left out, a line on stderr says so")

    command("status", "documents and pages by status", "folio status")

    search = command("search", "full-text search over the stored text: best blocks first",
                     "folio search '\"harbour board\" minutes -1890'")
    search.add_argument("query", help='words, "a phrase", or, -word (web search syntax)')
    search.add_argument("--limit", type=whole_number(1), default=20, help="print at most this many blocks (20)")

    inspect = command("inspect", "a page as a PNG with every block's box, type and order drawn, and a legend",
                      "folio inspect 3fa1c2d9 --page 2 --out page.png")
    inspect.add_argument("document", help=DOCUMENT_HELP)
    inspect.add_argument("--page", type=whole_number(1), default=1, help="page number, from 1 (1)")
    inspect.add_argument("--out", required=True, help="PNG file to write")
    inspect.add_argument("--dpi", type=whole_number(36, 600), default=110, help="resolution of the picture (110)")

    report = command("report", "an HTML report of a document: pages with overlays, tables, typeset formulas",
                     "folio report 3fa1c2d9 --out report/", "folio report ~/scans/minutes-1931.pdf --out report/")
    report.add_argument("document", help=DOCUMENT_HELP)
    report.add_argument("--out", required=True, help="folder to write index.html, page pictures and MathJax into")
    report.add_argument("--dpi", type=whole_number(36, 600), default=110, help="resolution of the pictures (110)")

    engine = command("engine", "the parsing engine's models and runtimes", "folio engine info", "folio engine build")
    engine.add_argument("action", choices=("info", "build"),
                        help="info: which runtime and device each model uses and why; build: TensorRT plans now")

    db = command("db", "schema migrations and read-only roles", "folio db upgrade", "folio db current",
                 "folio db grant-reader analyst --password 'long secret'")
    db.add_argument("action", choices=("upgrade", "downgrade", "current", "grant-reader"),
                    help="upgrade, downgrade or show the current schema revision; grant-reader NAME: a login role "
                         "that can read every table and view and write nothing")
    db.add_argument("target", nargs="?", help="revision (upgrade: head, downgrade: -1), or the role's name")
    db.add_argument("--password", help="grant-reader: the role's password (else: as the server's rules allow)")
    return parser


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line; `folio` alone prints the help."""
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):
        parser.print_help()
        parser.exit(2)
    return parser.parse_args(argv)
