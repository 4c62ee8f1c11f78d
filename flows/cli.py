"""The `folio` command line: run, export, sql, status, db."""

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from folio.settings import Settings, get_settings

if TYPE_CHECKING:
    from prefect.states import State

    from tasks.runs import RunSummary

console = Console(width=None if sys.stdout.isatty() else 160)


def prepare_environment(settings: Settings) -> None:
    """Prefect's home under FOLIO_HOME and its telemetry off, before Prefect is first imported."""
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_HOME", str(settings.prefect_home))
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


DEMO_QUERY = """
SELECT regexp_replace(d.first_source, '^.*/', '') AS document, p.page_no AS page,
       b.reading_order AS "order", b.type, left(b.text, 70) AS text
FROM blocks b JOIN pages p ON p.id = b.page_id JOIN documents d ON d.id = p.document_id
ORDER BY d.id, p.page_no, b.reading_order
""".strip()


def cmd_run(args: argparse.Namespace) -> int:
    from flows.digitize import digitize
    from tasks.discover import path_uri

    source = args.source if args.source.startswith("s3://") else path_uri(Path(args.source))  # a name not UTF-8
    return report_run(digitize(source=source, batch_size=args.batch_size, return_state=True), source)


def cmd_reprocess(args: argparse.Namespace) -> int:
    from db.store import OTHER_VERSIONS, Selection
    from flows.reprocess import reprocess

    engine_version = OTHER_VERSIONS if args.engine_version == "" else args.engine_version
    selection = Selection(tuple(args.status or ()), tuple(args.id or ()), args.since, args.until, engine_version,
                          args.force)  # a ValueError here says what is wrong before any flow starts
    state = reprocess(statuses=list(selection.statuses), ids=list(selection.ids), since=selection.since,
                      until=selection.until, engine_version=selection.engine_version, force=selection.force,
                      batch_size=args.batch_size, return_state=True)
    return report_run(state, f"reprocess: {selection.describe()}")


def cmd_deploy(args: argparse.Namespace) -> int:
    from deployments.definitions import register_deployments

    settings = get_settings()
    for name, deployment_id in register_deployments(settings).items():
        console.print(f"deployment {name}: {deployment_id} (work pool {settings.work_pool})")
    console.print(f"Start a worker to run them: prefect worker start --pool {settings.work_pool}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from flows.serve import serve

    return serve(get_settings(), args.host, args.port, lambda message: console.print(message, highlight=False))


def cmd_search(args: argparse.Namespace) -> int:
    from db.query import search_blocks

    print_rows(*search_blocks(args.query, limit=args.limit))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from db.session import get_engine
    from folio.annotate import annotate_page, load_document

    out = annotate_page(load_document(get_engine(), args.document), args.page, Path(args.out), args.dpi)
    console.print(f"page {args.page} with its blocks drawn: {out}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from db.session import get_engine
    from folio.annotate import load_document, write_report

    console.print(f"report: {write_report(load_document(get_engine(), args.document), Path(args.out), args.dpi)}")
    return 0


def report_run(state: "State", source: str) -> int:
    """Print a finished flow run's summary; 1 when batches failed (the summary says what was stored)."""
    from flows.digitize import RunFailed

    outcome = state.result(raise_on_failure=False)
    if isinstance(outcome, RunFailed):
        print_summary(outcome.summary, source)
        console.print(f"folio: the run failed: {outcome}\nRetry the flow run (Prefect UI) or run again: "
                      "pages already stored are kept.", style="red", markup=False, highlight=False)
        return 1
    if isinstance(outcome, BaseException):
        raise outcome
    print_summary(outcome, source)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from db.query import read_only_query
    from flows.digitize import digitize
    from folio.samples import write_samples

    folder = get_settings().home_dir / "samples"
    write_samples(folder)
    if code := report_run(digitize(source=str(folder), return_state=True), str(folder)):
        return code
    console.print("Example query (run your own with: folio sql \"SELECT ...\"):", style="bold")
    console.print(DEMO_QUERY, markup=False, highlight=False)
    print_rows(*read_only_query(DEMO_QUERY, limit=args.limit))
    return 0


def print_summary(summary: "RunSummary", source: str) -> None:
    table = Table(title=f"folio run {summary.run_id}: {source}")
    for column in ("files", "done", "duplicate", "reused", "failed", "quarantined", "pages parsed", "pages reused",
                   "seconds", "pages/s"):
        table.add_column(column, justify="right")
    table.add_row(
        str(summary.files_listed), str(summary.documents_done), str(summary.documents_duplicate),
        str(summary.documents_reused), str(summary.documents_failed), str(summary.documents_quarantined),
        str(summary.pages_parsed) + (f" (+{summary.pages_failed} failed)" if summary.pages_failed else "")
        + (f" ({summary.pages_quarantined} quarantined)" if summary.pages_quarantined else "")
        + (f" ({summary.blocks_flagged} blocks flagged)" if summary.blocks_flagged else ""),
        str(summary.pages_reused),
        f"{summary.seconds:.1f}", f"{summary.pages_per_second:.2f}",
    )
    console.print(table)


def cmd_export(args: argparse.Namespace) -> int:
    from db.export import write_exports
    from db.session import get_engine

    if args.out.startswith("s3://"):
        from db.export import export_files
        from tasks.s3 import put_files

        count = put_files(export_files(get_engine()), args.out, "application/json")
    else:
        count = write_exports(get_engine(), Path(args.out))
    console.print(f"{count} documents exported to {args.out}")
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    import psycopg

    from db.query import QueryRefused, read_only_query
    from db.roles import ReaderUnavailable
    from db.server import error_line

    try:
        columns, rows = read_only_query(args.query, limit=args.limit)
    except (psycopg.Error, QueryRefused, ReaderUnavailable) as error:
        console.print(f"folio sql: {error_line(error)}", style="red", markup=False, highlight=False)
        return 1
    print_rows(columns, rows)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from db.query import status_counts

    for title, counts in status_counts().items():
        print_rows([title, "status", "count"], [(title, status, count) for status, count in counts])
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    from db.migrate import current_revision, downgrade, head_revision, upgrade
    from db.session import get_engine

    engine = get_engine()
    if args.action == "grant-reader":
        from db.roles import grant_reader

        if not args.target:
            raise ValueError("name the role: folio db grant-reader NAME")
        upgrade(engine)
        grant_reader(engine, args.target, args.password)
        console.print(f"role {args.target} may read every table and view of {engine.url.database}, and write nothing"
                      + ("" if args.password else "; without a password it cannot log in where the server asks for "
                                                  "one (the embedded server always does)"))
        return 0
    if args.action == "upgrade":
        upgrade(engine, args.target or "head")
    elif args.action == "downgrade":
        downgrade(engine, args.target or "-1")
    current, head = current_revision(engine), head_revision()
    console.print(f"schema revision: {current or 'none'}" + (" (head)" if current == head else f" (head is {head})"))
    return 0


def cmd_engine(args: argparse.Namespace) -> int:
    from engine.pipeline import build_pipeline
    from engine.runtime.select import cuda_visible, tensorrt_installed
    from engine.vlm import build_vlm_engine
    from tasks.parse import engine_config, vlm_config

    config = engine_config()
    vlm = get_settings().engine == "vlm"
    if args.action == "build":
        if vlm:
            console.print("[red]folio engine build: FOLIO_ENGINE=vlm: the model runs on its server; there is "
                          "nothing to build here[/red]")
            return 2
        if config.device == "cpu" or not tensorrt_installed() or not cuda_visible():
            console.print("[red]folio engine build: TensorRT engines need FOLIO_DEVICE auto or cuda, the tensorrt "
                          "package and a CUDA device; ONNX Runtime needs no build[/red]")
            return 2
    if vlm:
        pipeline = build_vlm_engine(vlm_config(), check_model=False)
        print_rows(["VLM engine", ""], pipeline.describe())
    else:
        pipeline = build_pipeline(config)
        console.print(f"engine: pipeline ({pipeline.version})")
    rows = []
    for role, model in pipeline.models.items():
        if model is None:
            rows.append((role, "-", "not loaded", "", pipeline.missing.get(role, "")))
        else:
            rows.append((role, Path(str(model.path)).name, model.runtime, ", ".join(model.providers), model.why))
    print_rows(["model", "file", "runtime", "device", "why"], rows)
    return 0


def print_rows(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    table = Table(show_lines=False)
    for column in columns:
        table.add_column(str(column), overflow="fold")
    for row in rows:
        table.add_row(*("" if value is None else escape(str(value)) for value in row))  # values are not markup
    console.print(table)
    console.print(f"({len(rows)} rows)")


def timestamp(value: str) -> datetime:
    """An ISO date or time; without a zone it is UTC."""
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="folio", description="Digitize archives of PDFs into PostgreSQL.")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run the digitize flow on a folder or a PDF")
    run.add_argument("source", help="a folder or an s3://bucket/prefix (searched recursively), or one PDF")
    run.add_argument("--batch-size", type=int, default=None, help="pages per batch task (FOLIO_BATCH_SIZE)")
    run.set_defaults(handler=cmd_run)

    reprocess = commands.add_parser(
        "reprocess", help="parse finished documents again: by status, id, date or engine version",
        description="Parse finished documents again. Filters combine with AND; without --engine-version or "
                    "--force only failed and quarantined documents are chosen.")
    reprocess.add_argument("--status", nargs="+", choices=("failed", "quarantined", "done"),
                           help="documents with these statuses")
    reprocess.add_argument("--id", nargs="+", type=int, help="documents with these ids")
    reprocess.add_argument("--since", type=timestamp, help="documents last changed at or after (ISO date or time)")
    reprocess.add_argument("--until", type=timestamp, help="documents last changed before (ISO date or time)")
    reprocess.add_argument("--engine-version", nargs="?", const="", default=None, metavar="VERSION",
                           help="done documents whose results came from VERSION; without a value: from any "
                                "version but the running engine's")
    reprocess.add_argument("--force", action="store_true",
                           help="parse the chosen documents again even if their results are current, and do not "
                                "reuse stored results of identical pages")
    reprocess.add_argument("--batch-size", type=int, default=None, help="pages per batch task (FOLIO_BATCH_SIZE)")
    reprocess.set_defaults(handler=cmd_reprocess)

    deploy = commands.add_parser("deploy", help="register the deployments (nightly-digitization, ingest, "
                                                "reprocess) and their work pool with the Prefect API")
    deploy.set_defaults(handler=cmd_deploy)

    serve = commands.add_parser("serve", help="the Prefect UI with folio's deployments and a worker: starts a "
                                              "Prefect server unless PREFECT_API_URL answers")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=4200)
    serve.set_defaults(handler=cmd_serve)

    demo = commands.add_parser("demo", help="make sample PDFs under FOLIO_HOME, run on them, query the result")
    demo.add_argument("--limit", type=int, default=25, help="rows of the example query to print")
    demo.set_defaults(handler=cmd_demo)

    export = commands.add_parser("export", help="write <sha256>.json per stored document, read from PostgreSQL")
    export.add_argument("--out", required=True, help="folder, or s3://bucket/prefix, to write into")
    export.set_defaults(handler=cmd_export)

    sql = commands.add_parser("sql", help="run one read-only SQL query and print the rows")
    sql.add_argument("query")
    sql.add_argument("--limit", type=int, default=1000, help="print at most this many rows")
    sql.set_defaults(handler=cmd_sql)

    status = commands.add_parser("status", help="documents and pages by status")
    status.set_defaults(handler=cmd_status)

    search = commands.add_parser("search", help="full-text search over the stored text: best blocks first")
    search.add_argument("query", help='words, "a phrase", or, -word (web search syntax)')
    search.add_argument("--limit", type=int, default=20)
    search.set_defaults(handler=cmd_search)

    inspect = commands.add_parser("inspect", help="a page as a PNG with every block's box, type and order drawn")
    inspect.add_argument("document", help="sha256 (or 8+ leading characters) or a path the document was seen at")
    inspect.add_argument("--page", type=int, default=1)
    inspect.add_argument("--out", required=True, help="PNG file to write")
    inspect.add_argument("--dpi", type=int, default=110)
    inspect.set_defaults(handler=cmd_inspect)

    report = commands.add_parser("report", help="an HTML report of a document: pages with overlays, tables, "
                                                "formulas")
    report.add_argument("document", help="sha256 (or 8+ leading characters) or a path the document was seen at")
    report.add_argument("--out", required=True, help="folder to write index.html and page pictures into")
    report.add_argument("--dpi", type=int, default=110)
    report.set_defaults(handler=cmd_report)

    engine = commands.add_parser("engine", help="the parsing engine's models and runtimes")
    engine.add_argument("action", choices=("info", "build"),
                        help="info: which runtime and device each model uses and why; build: TensorRT plans now")
    engine.set_defaults(handler=cmd_engine)

    db = commands.add_parser("db", help="schema migrations")
    db.add_argument("action", choices=("upgrade", "downgrade", "current", "grant-reader"),
                    help="grant-reader NAME: a login role that can read every table and view and write nothing")
    db.add_argument("target", nargs="?", help="revision (upgrade: head, downgrade: -1), or the role's name")
    db.add_argument("--password", help="grant-reader: the role's password (else: as the server's rules allow)")
    db.set_defaults(handler=cmd_db)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = get_settings()
    prepare_environment(settings)
    try:
        return args.handler(args)
    except (FileNotFoundError, NotImplementedError, ValueError) as error:
        console.print(f"[red]folio {args.command}: {error}[/red]")
        return 2
    finally:
        from db.session import dispose_engines

        dispose_engines()


if __name__ == "__main__":
    sys.exit(main())
