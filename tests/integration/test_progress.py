"""`folio run` on a terminal (a pseudo-terminal here): a live progress bar, none of Prefect's own log lines, and a
summary that fits 80 columns."""

import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests import pdfs
from tests.integration.folio_process import folio_env

BAR = "\u2501"  # rich's bar is drawn with this character


def run_on_a_terminal(arguments: list[str], env: dict[str, str]) -> tuple[int, str]:
    """The command's exit code and everything it wrote to its terminal (80 columns)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "folio.cli", *arguments], stdin=follower, stdout=follower,
                               stderr=follower, env={**env, "COLUMNS": "80", "LINES": "24", "TERM": "xterm"})
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command and all it started have exited
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    return process.wait(timeout=60), output.decode("utf-8", "replace")


def test_a_run_on_a_terminal_draws_a_progress_bar(new_database_url: Callable[[], str], tmp_path: Path):
    delivery = tmp_path / "delivery"
    delivery.mkdir()
    pdfs.two_column_pdf(delivery)
    pdfs.not_a_pdf(delivery)
    code, screen = run_on_a_terminal(["run", str(delivery)], folio_env(new_database_url(), tmp_path / "home"))
    assert code == 0, screen[-3000:]
    assert BAR in screen and "parsing" in screen and "/2 pages" in screen
    assert "Finished in state" not in screen and "Beginning flow run" not in screen and "INFO" not in screen
    summary = screen[screen.index("folio run "):].replace("\r", "").splitlines()
    assert summary[1] == "  files  2 listed: 1 done, 1 failed"
    assert summary[4:] == ["failed (1):", "  notes.pdf: not a PDF: no %PDF- header in the first 1024 bytes"]
    assert max(len(line) for line in summary[1:]) <= 80  # the first names the source, as long as it is
