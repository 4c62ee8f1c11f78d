"""Peak memory of `folio run`: on benchmark splits, and on a generated long document next to a short one.

Each run starts from an empty FOLIO_HOME (its own embedded PostgreSQL) in a process of its own, and the
peak resident set size of that process tree's largest process is read from the kernel (getrusage of the
waited-for children), as `/usr/bin/time -v` reports it. The generated documents are born-digital pages of
folio's samples, every page different (so that no page is reused), with a ruled table on every fifth.

    .venv/bin/python benchmarks/memory.py [--split ../shared/bench/dev] [--split ../shared/bench/real] \
        [--pages 10 --pages 400]
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from folio.samples import PARAGRAPHS, TABLE, PageSpec, born_digital_pdf

GIB = 1024**3


def long_document(path: Path, pages: int) -> Path:
    """A born-digital document of `pages` different pages."""
    rng = random.Random(pages)
    specs = [PageSpec(title=f"Chapter {number}: the harbour registers of {1890 + number % 45}",
                      columns=1 + number % 2, paragraphs=rng.sample(PARAGRAPHS, 3),
                      table=TABLE if number % 5 == 0 else None)
             for number in range(1, pages + 1)]
    return born_digital_pdf(path, specs)


def peak_rss(source: Path) -> tuple[float, float]:
    """(peak RSS in bytes, seconds) of `folio run source` from an empty home, in a process of its own."""
    probe = ("import resource, subprocess, sys; "
             "done = subprocess.run([sys.executable, '-m', 'folio.cli', 'run', sys.argv[1]], "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    with tempfile.TemporaryDirectory(prefix="folio-memory-") as home:
        os.chmod(home, 0o711)  # as root the embedded server runs as its own user, which must reach its data
        env = {key: value for key, value in os.environ.items() if not key.startswith("FOLIO_")}
        env["FOLIO_HOME"] = home
        if "FOLIO_ENGINE_CACHE" in os.environ:
            env["FOLIO_ENGINE_CACHE"] = os.environ["FOLIO_ENGINE_CACHE"]
        started = time.perf_counter()
        output = subprocess.run([sys.executable, "-c", probe, str(source)], env=env, capture_output=True, text=True,
                                check=True).stdout.split()
        seconds = time.perf_counter() - started
    if output[0] != "0":
        raise SystemExit(f"folio run {source} failed with exit code {output[0]}")
    return int(output[1]) * 1024.0, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", type=Path, action="append", help="benchmark split folders (repeatable)")
    parser.add_argument("--pages", type=int, action="append", help="generated documents of this many pages")
    args = parser.parse_args()
    splits = args.split if args.split is not None else [Path("../shared/bench/dev"), Path("../shared/bench/real")]
    lengths = args.pages if args.pages is not None else [10, 400]
    print(f"{'source':40} {'peak RSS':>10} {'seconds':>8}")
    for split in splits:
        rss, seconds = peak_rss(split.resolve())
        print(f"{str(split):40} {rss / GIB:8.2f} GiB {seconds:8.0f}{'  over 3 GiB' if rss > 3 * GIB else ''}")
    peaks = {}
    with tempfile.TemporaryDirectory(prefix="folio-long-") as folder:
        for pages in lengths:
            source = Path(folder) / f"pages-{pages}"
            source.mkdir()
            long_document(source / f"generated-{pages}-pages.pdf", pages)
            peaks[pages], seconds = peak_rss(source)
            print(f"{f'generated, {pages} pages':40} {peaks[pages] / GIB:8.2f} GiB {seconds:8.0f}")
    if len(peaks) >= 2:
        shortest, longest = min(peaks), max(peaks)
        print(f"{longest} pages against {shortest}: {peaks[longest] / peaks[shortest] - 1:+.1%} peak RSS")


if __name__ == "__main__":
    main()
