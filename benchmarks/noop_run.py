"""What a `folio run` with nothing new costs: over a benchmark split next to `folio status`, and per seen file.

A run whose every file was seen before, as it is now, reads no file and parses nothing; what it costs is
start-up (imports, the embedded PostgreSQL; Prefect's temporary server is not started), listing and one
lookup of every listed path. Both parts use one FOLIO_HOME of their own (its own embedded PostgreSQL);
every command is a process of its own, as a person starts it, timed from start to exit, best of --repeat.

1. The split is run once to fill the database (parsing it takes minutes on CPU; --home reuses a home that
   holds it already), then `folio status` and the no-op `folio run` are timed. Bar: the run costs at most
   5 s more than status.
2. --files tiny generated PDFs (one line each, every file's bytes different, the same page: the first run
   parses one page and copies it to the rest) and a folder of one of them are run once, then again; the
   second runs are timed, and their difference over the file count is the cost of a seen file. Bar: 5 ms.

    .venv/bin/python benchmarks/noop_run.py [--split ../shared/bench/dev] [--files 2000] [--repeat 3] \
        [--home /tmp/noop-home]

The first run of the generated files parses one page and copies it to every other file: about 16 minutes on
2 shared cores for 2,000 files.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

EXTRA_SECONDS_BAR = 5.0
PER_FILE_MS_BAR = 5.0


def folio(home: Path, *arguments: str) -> float:
    """Seconds `folio ARGUMENTS` took with this FOLIO_HOME; SystemExit if it failed."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("FOLIO_", "PREFECT_"))}
    env["FOLIO_HOME"] = str(home)
    if "FOLIO_ENGINE_CACHE" in os.environ:
        env["FOLIO_ENGINE_CACHE"] = os.environ["FOLIO_ENGINE_CACHE"]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "folio.cli", *arguments], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"folio {' '.join(arguments)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def best(repeat: int, home: Path, *arguments: str) -> float:
    return min(folio(home, *arguments) for _ in range(repeat))


def tiny_pdfs(folder: Path, count: int) -> None:
    """`count` one-page PDFs showing the same line, each with its own title (other bytes, the same page)."""
    folder.mkdir(parents=True)
    for number in range(count):
        document = pymupdf.open()
        document.new_page(width=200, height=100).insert_text((20, 50), "Register of the harbour, 1931")
        document.set_metadata({"title": f"register {number}", "producer": "folio benchmark"})
        document.save(folder / f"register-{number:05}.pdf", no_new_id=True)
        document.close()


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, default=Path("../shared/bench/dev"))
    parser.add_argument("--files", type=int, default=2000,
                        help="generated files for the cost per seen file (0: not measured)")
    parser.add_argument("--repeat", type=int, default=3, help="timings of each command; the best is kept")
    parser.add_argument("--home", type=Path, help="a FOLIO_HOME to use for the split (kept; filled if empty)")
    args = parser.parse_args()
    split = str(args.split.resolve())

    with tempfile.TemporaryDirectory(prefix="folio-noop-") as scratch:
        os.chmod(scratch, 0o711)  # as root the embedded server runs as its own user, which must reach its data
        home = args.home or Path(scratch) / "split-home"
        home.mkdir(parents=True, exist_ok=True)
        home.chmod(0o711)
        print(f"filling the database: folio run {split} (first run) ...", flush=True)
        print(f"  {folio(home, 'run', split):.1f} s")
        status = best(args.repeat, home, "status")
        run = best(args.repeat, home, "run", split)
        extra = run - status
        print(f"\n{'command':48} {'seconds':>8}")
        print(f"{'folio status':48} {status:8.2f}")
        print(f"{f'folio run {args.split} (nothing new)':48} {run:8.2f}")
        print(f"no-op run over status: {extra:+.2f} s (bar: <= {EXTRA_SECONDS_BAR:.0f} s): "
              f"{verdict(extra <= EXTRA_SECONDS_BAR)}")

        if args.files < 2:
            return
        files_home = Path(scratch) / "files-home"
        files_home.mkdir(mode=0o711)
        many, one = Path(scratch) / "many", Path(scratch) / "one"
        tiny_pdfs(many, args.files)
        tiny_pdfs(one, 1)
        print(f"\nfirst runs: {args.files} generated files {folio(files_home, 'run', str(many)):.1f} s, "
              f"one file {folio(files_home, 'run', str(one)):.1f} s")
        seen_many = best(args.repeat, files_home, "run", str(many))
        seen_one = best(args.repeat, files_home, "run", str(one))
        per_file_ms = 1000 * (seen_many - seen_one) / (args.files - 1)
        print(f"{f'folio run, {args.files} files seen before':48} {seen_many:8.2f}")
        print(f"{'folio run, 1 file seen before':48} {seen_one:8.2f}")
        print(f"per seen file: {per_file_ms:.2f} ms (bar: <= {PER_FILE_MS_BAR:.0f} ms): "
              f"{verdict(per_file_ms <= PER_FILE_MS_BAR)}")


if __name__ == "__main__":
    main()
