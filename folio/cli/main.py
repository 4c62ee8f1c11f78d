"""The `folio` command line: each command's handler, thin; arguments, errors and progress live beside it in
folio.cli, the run's summary in base.run_summary."""

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from base.run_summary import summary_lines
from base.settings import Settings, get_settings
from folio.cli.errors import ExitCode, Failed, UsageError, connection_error, debugging, report
from folio.cli.parser import parse_arguments
from folio.cli.preflight import check_database, check_source
from folio.cli.progress import shown as progress_shown

if TYPE_CHECKING:
    from prefect.states import State

console = Console(width=None if sys.stdout.isatty() else 160)


def prepare_environment(settings: Settings, quiet: bool = True) -> None:
    """Prefect's home under FOLIO_HOME and its telemetry off, before Prefect is first imported; quiet: Prefect's
    and the libraries' log lines kept off the terminal (folio says what matters itself)."""
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_HOME", str(settings.prefect_home))
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    if quiet:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "CRITICAL")
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_DEBUG_LEVEL", "CRITICAL")  # Prefect's internal errors
        logging.raiseExceptions = False  # a log handler that fails (logs to a lost API) does not print on stderr


DEMO_QUERY = """
SELECT regexp_replace(d.first_source, '^.*/', '') AS document, p.page_no AS page,
       b.reading_order AS "order", b.type, left(b.text, 70) AS text
FROM blocks b JOIN pages p ON p.id = b.page_id JOIN documents d ON d.id = p.document_id
ORDER BY d.id, p.page_no, b.reading_order
""".strip()


def cmd_run(args: argparse.Namespace) -> int:
    check_source(args.source)
    check_database()
    from base.database import database
    from flows.nothing_new import record_if_nothing_new
    from sources.listing import path_uri

    source = args.source if args.source.startswith("s3://") else path_uri(Path(args.source))  # a name not UTF-8
    with progress_shown(live=not args.verbose):
        if (summary := record_if_nothing_new(source, database())) is None:
            start_prefect()
            from flows.digitize import digitize  # imported by a run with something to read only

            state = digitize(source=source, batch_size=args.batch_size, return_state=True)
    if summary is not None:
        print("\n".join(summary_lines(summary, source)))
        return ExitCode.OK
    return report_run(state, source)


def start_prefect() -> None:
    """Prefect's temporary server, unless PREFECT_API_URL names a server, while the engine workers load the engine;
    the progress display says so."""
    from flows.progress import Stage, Step, tell
    from folio.cli.leftovers import start_temporary_server
    from pages.parser import start_engine_workers

    tell(Step(Stage.STARTING))
    start_engine_workers()
    start_temporary_server(get_settings().home_dir)


def cmd_reprocess(args: argparse.Namespace) -> int:
    from db.store import OTHER_VERSIONS, Selection
    from flows.reprocess import reprocess

    engine_version = OTHER_VERSIONS if args.engine_version == "" else args.engine_version
    selection = Selection(tuple(args.status or ()), tuple(args.id or ()), args.since, args.until, engine_version,
                          args.force)  # a ValueError here says what is wrong before any flow starts
    check_database()
    with progress_shown(live=not args.verbose):
        start_prefect()
        state = reprocess(selection, batch_size=args.batch_size, return_state=True)
    return report_run(state, f"reprocess: {selection.describe()}")


def cmd_deploy(args: argparse.Namespace) -> int:
    from deployments.definitions import nightly_paused_because, register_deployments

    settings = get_settings()
    for name, deployment_id in register_deployments(settings).items():
        console.print(f"deployment {name}: {deployment_id} (work pool {settings.work_pool})", highlight=False)
    if reason := nightly_paused_because(settings):
        console.print(f"nightly-digitization is paused: {reason}", highlight=False)
    console.print(f"Start a worker to run them: prefect worker start --pool {settings.work_pool}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from folio.cli.serve import serve

    return serve(get_settings(), args.host, args.port, lambda message: console.print(message, highlight=False))


def cmd_metrics(args: argparse.Namespace) -> int:
    from base.database import database
    from folio.cli.serve import wait_for_interrupt
    from runs.metrics import serve_metrics

    server, _ = serve_metrics(args.host, args.port, database, get_settings().last_run_metrics)
    console.print(f"metrics: http://{args.host}:{args.port}/metrics — Ctrl-C stops", highlight=False)
    try:
        wait_for_interrupt()
    finally:
        server.shutdown()
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from base.database import database
    from db.query import search_blocks

    print_rows(*search_blocks(database(), args.query, limit=args.limit))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from base.database import database
    from folio.annotate import annotate_page, load_document

    out = annotate_page(load_document(database(), args.document), args.page, Path(args.out), args.dpi)
    console.print(f"page {args.page} with its blocks drawn: {out}", highlight=False)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from base.database import database
    from folio.annotate import load_document
    from folio.report import write_report

    index = write_report(load_document(database(), args.document), Path(args.out), args.dpi)
    console.print(f"report: {index}", highlight=False)
    return 0


def report_run(state: "State", source: str) -> int:
    """Print a finished flow run's summary; 1 when batches failed (the summary says what was stored)."""
    from flows.digitize import RunFailed

    outcome = state.result(raise_on_failure=False)
    if isinstance(outcome, RunFailed):
        print("\n".join(summary_lines(outcome.summary, source)))
        print(f"folio: the run failed: {outcome}\nRetry the flow run (Prefect UI) or run again: pages already "
              "stored are kept.", file=sys.stderr)
        return ExitCode.FAILED
    if isinstance(outcome, BaseException):
        raise outcome
    print("\n".join(summary_lines(outcome, source)))
    return ExitCode.OK


def cmd_demo(args: argparse.Namespace) -> int:
    from base.database import analyst_query
    from flows.digitize import digitize
    from folio.samples import write_samples

    folder = get_settings().home_dir / "samples"
    write_samples(folder)
    check_database()
    with progress_shown(live=not args.verbose):
        start_prefect()
        state = digitize(source=str(folder), return_state=True)
    if code := report_run(state, str(folder)):
        return code
    console.print("Example query (run your own with: folio sql \"SELECT ...\"):", style="bold")
    console.print(DEMO_QUERY, markup=False, highlight=False)
    print_rows(*analyst_query(DEMO_QUERY, args.limit or None))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from base.database import database
    from db.documents import DocumentFilter
    from db.export import export_files, one_export, write_exports
    from folio.formats import FORMATS
    from folio.searchable_pdf import SourceMissing

    chosen = DocumentFilter(tuple(args.id or ()), tuple(args.sha256 or ()), tuple(args.source or ()), args.since)
    form = FORMATS[args.format]
    missing: list[str] = []

    def render(export: dict) -> str | bytes | None:
        """The document rendered; None, with a line on stderr, when its PDF is no longer where it was seen."""
        try:
            return form.render(export)
        except SourceMissing as error:
            missing.append(str(error))
            print(f"folio export: {error}", file=sys.stderr)
            return None

    if args.out == "-":
        body = render(one_export(database(), chosen, full=form.full))
        if isinstance(body, bytes):
            sys.stdout.buffer.write(body)
        elif body is not None:
            sys.stdout.write(body)
    elif args.out.startswith("s3://"):
        from sources.s3 import put_files

        count = put_files(export_files(database(), chosen, render, form.suffix, form.full), args.out,
                          form.content_type)
    else:
        count = write_exports(database(), Path(args.out), chosen, render, form.suffix, form.full)
    if args.out != "-":
        console.print(f"{count} documents exported to {args.out} ({args.format})", highlight=False)
    if missing:
        raise Failed(f"{len(missing)} document(s) not exported: their PDF is no longer where it was seen")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from base.database import database
    from db.export import one_export
    from folio.formats import to_markdown

    sys.stdout.write(to_markdown(one_export(database(), reference=args.document)))
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    from folio.cli.sql_output import WRITERS, text, unique_names

    form = args.format or ("table" if sys.stdout.isatty() else "csv")
    limit = (1000 if form == "table" else 0) if args.limit is None else args.limit
    columns, rows = sql_rows(args.query, limit + 1 if limit else None)  # one more: were rows left out?
    if not columns:
        print("folio sql: the statement returns no rows", file=sys.stderr)
        return 0
    cut = bool(limit) and len(rows) > limit
    columns, rows = unique_names(columns), rows[:limit] if cut else rows
    try:
        if form == "table":
            print_rows(columns, [[None if value is None else text(value) for value in row] for row in rows])
        else:
            sys.stdout.reconfigure(encoding="utf-8")
            sys.stdout.writelines(WRITERS[form](columns, rows))
            sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error, and nothing more to say at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if cut:
        print(f"folio sql: only the first {limit} rows; --limit 0 prints them all", file=sys.stderr)
    return 0


def sql_rows(query: str, limit: int | None) -> tuple[list[str], list[tuple]]:
    """read_only_query's columns and rows; a query refused is Failed (exit 1), folio_reader unusable a UsageError,
    a database that cannot be reached stays what it is (errors.explain: exit 2)."""
    import psycopg

    from base.database import analyst_query
    from db.query import QueryRefused
    from db.roles import ReaderUnavailable
    from db.server import error_line

    try:
        return analyst_query(query, limit)
    except ReaderUnavailable as error:
        raise UsageError(str(error)) from error
    except (psycopg.Error, QueryRefused) as error:
        if connection_error(error) is not None:
            raise
        raise Failed(error_line(error)) from error


def cmd_status(args: argparse.Namespace) -> int:
    from base.database import database
    from db.query import status_counts

    for title, counts in status_counts(database()).items():
        print_rows([title, "status", "count"], [(title, status, count) for status, count in counts])
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    from base.database import database
    from base.migrate import current_revision, downgrade, head_revision, upgrade

    db = database()
    if args.action == "grant-reader":
        from db.roles import grant_reader

        if not args.target:
            raise ValueError("name the role: folio db grant-reader NAME")
        upgrade(db)
        grant_reader(db, args.target, args.password)
        console.print(f"role {args.target} may read every table and view of {db.url.database}, and write nothing"
                      + ("" if args.password else "; without a password it cannot log in where the server asks for "
                                                  "one (the embedded server always does)"))
        return 0
    if args.action == "upgrade":
        upgrade(db, args.target or "head")
    elif args.action == "downgrade":
        downgrade(db, args.target or "-1")
    current, head = current_revision(db), head_revision()
    console.print(f"schema revision: {current or 'none'}" + (" (head)" if current == head else f" (head is {head})"))
    return 0


def cmd_engine(args: argparse.Namespace) -> int:
    from base.engines import engine_config, vlm_config
    from engine.pipeline import build_pipeline
    from engine.runtime.select import cuda_visible, tensorrt_installed
    from engine.vlm import build_vlm_engine

    config = engine_config()
    vlm = get_settings().engine == "vlm"
    if args.action == "build":
        if vlm:
            raise UsageError("FOLIO_ENGINE=vlm: the model runs on its server; there is nothing to build here")
        if config.device == "cpu" or not tensorrt_installed() or not cuda_visible():
            raise UsageError("TensorRT engines need FOLIO_DEVICE auto or cuda, the tensorrt package and a CUDA "
                             "device; ONNX Runtime needs no build")
    if vlm:
        pipeline = build_vlm_engine(vlm_config(), check_model=False)
        print_rows(["VLM engine", ""], pipeline.describe())
    else:
        pipeline = build_pipeline(config)
        console.print(f"engine: pipeline ({pipeline.version})")
    print_rows([f"identity {pipeline.version}", "part"], pipeline.identity.parts())
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


HANDLERS = {
    "run": cmd_run, "reprocess": cmd_reprocess, "deploy": cmd_deploy, "serve": cmd_serve, "metrics": cmd_metrics,
    "demo": cmd_demo, "export": cmd_export, "show": cmd_show, "sql": cmd_sql, "status": cmd_status,
    "search": cmd_search, "inspect": cmd_inspect, "report": cmd_report, "engine": cmd_engine, "db": cmd_db,
}


DATABASE_COMMANDS = ("export", "sql", "status", "search", "inspect", "report", "db", "metrics")


def recover(command: str, settings: Settings) -> None:
    """Before a command: what killed folio processes left running is stopped, and their runs are marked crashed
    (a command that runs a flow does that as its run opens, once it has started Prefect's temporary server,
    recorded so that it cannot outlive it: `start_prefect`)."""
    from folio.cli.leftovers import stop_leftovers

    stop_leftovers(settings)
    if command in DATABASE_COMMANDS:
        from base.database import database
        from runs.recovery import recover_crashed_runs

        recover_crashed_runs(database())


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every expected failure is a line on stderr and an exit code (folio.cli.errors)."""
    args = parse_arguments(None if argv is None else list(argv))
    try:
        settings = get_settings()
        prepare_environment(settings, quiet=not args.verbose and args.command != "serve")
        recover(args.command, settings)
        return HANDLERS[args.command](args)
    except (Exception, KeyboardInterrupt) as error:
        return report(args.command, error, debugging(args.debug))
    finally:
        from db.session import dispose_databases

        dispose_databases()
