"""Expected failures of the `folio` command, run as a person runs it: one or two lines on stderr, the README's exit
code, no traceback unless asked for; and no run left `running` by a run that could not start."""

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from flows.digitize import digitize
from tests.integration.folio_process import folio_env

UNREACHABLE = "postgresql://folio:secret@127.0.0.1:1/folio"  # nothing listens on port 1


def folio(url: str, home: Path, *arguments: str, **settings: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "folio.cli", *arguments], env=folio_env(url, home, **settings),
                          capture_output=True, text=True, timeout=300)


def assert_one_line(result: subprocess.CompletedProcess, code: int, command: str, *needles: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == code, output
    assert "Traceback" not in output and result.stdout == "", output
    assert result.stderr.startswith(f"folio {command}: ") and result.stderr.count("\n") == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr


@pytest.mark.parametrize(("settings", "needle"), [
    ({"FOLIO_BATCH_SIZE": "abc"}, "FOLIO_BATCH_SIZE=abc: should be a valid integer"),
    ({"FOLIO_DEVICE": "gpu"}, "FOLIO_DEVICE=gpu: should be 'auto', 'cpu' or 'cuda'"),
    ({"FOLIO_BATCH_SIZE": "0"}, "FOLIO_BATCH_SIZE=0: should be greater than or equal to 1"),
])
def test_a_bad_setting_is_one_line(tmp_path: Path, settings: dict[str, str], needle: str):
    assert_one_line(folio(UNREACHABLE, tmp_path, "status", **settings), 2, "status", "bad setting", needle)


@pytest.mark.parametrize("arguments", [["status"], ["search", "harbour"], ["export", "--out", "exports"],
                                       ["run", "."], ["show", "deadbeefdeadbeef"], ["sql", "SELECT 1"]])
def test_a_database_that_cannot_be_reached_is_one_line(tmp_path: Path, arguments: list[str]):
    result = folio(UNREACHABLE, tmp_path, *arguments)
    assert_one_line(result, 2, arguments[0], "cannot use the database", "port 1", "FOLIO_DATABASE_URL")
    assert "secret" not in result.stderr


def test_a_database_that_refuses_is_one_line(server_url: str, tmp_path: Path):
    missing = make_url(server_url).set(database="no_such_database").render_as_string(hide_password=False)
    assert_one_line(folio(missing, tmp_path, "status"), 2, "status", "cannot use the database",
                    "no_such_database")


def test_a_database_without_the_schema_says_what_to_run(empty_database: str, tmp_path: Path):
    assert_one_line(folio(empty_database, tmp_path, "status"), 2, "status", "folio db upgrade")


@pytest.mark.parametrize(("arguments", "needle"), [
    (["run", "--batch-size", "0", "."], "argument --batch-size: must be from 1 to 512, not 0"),
    (["inspect", "3fa1c2d9", "--page", "0", "--out", "p.png"], "argument --page: must be at least 1, not 0"),
    (["export", "--format", "docx", "--out", "x"], "argument --format: invalid choice: 'docx'"),
    (["reprocess", "--since", "yesterday"], "argument --since: not an ISO date or time"),
    (["digitise"], "invalid choice: 'digitise'"),
    (["sql", "--limit", "-1", "SELECT 1"], "argument --limit: must be at least 0, not -1"),
    (["sql", "--format", "xlsx", "SELECT 1"], "argument --format: invalid choice: 'xlsx'"),
])
def test_bad_arguments_are_two_lines(tmp_path: Path, arguments: list[str], needle: str):
    result = folio(UNREACHABLE, tmp_path, *arguments)
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    first, second = result.stderr.splitlines()
    assert first.startswith("folio") and needle in first and second.startswith("See `folio")


def test_debug_shows_the_traceback(tmp_path: Path):
    assert "Traceback" in folio(UNREACHABLE, tmp_path, "status", FOLIO_DEBUG="1").stderr
    assert "Traceback" in folio(UNREACHABLE, tmp_path, "--debug", "status").stderr
    assert "Traceback" in folio(UNREACHABLE, tmp_path, "status", "--debug").stderr


def running_runs(database: Engine) -> int:
    with database.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM runs WHERE status = 'running'")).scalar_one()


def test_a_missing_source_fails_at_once_and_opens_no_run(database: Engine, empty_database: str, tmp_path: Path):
    result = folio(empty_database, tmp_path / "home", "run", str(tmp_path / "no-such-folder"))
    assert_one_line(result, 2, "run", f"source not found: {tmp_path / 'no-such-folder'}")
    with database.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM runs")).scalar_one() == 0


def test_a_flow_that_fails_before_its_summary_leaves_no_running_run(database: Engine, tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="source not found"):
        digitize(source=str(tmp_path / "gone"))  # as a deployment's run would: the flow itself meets it
    with database.connect() as connection:
        assert connection.execute(text("SELECT status FROM runs")).scalars().all() == ["failed"]
    assert running_runs(database) == 0


@pytest.mark.parametrize("settings", [{"FOLIO_DEVICE": "cpu"}, {"CUDA_VISIBLE_DEVICES": ""}])
def test_engine_build_without_a_gpu_is_a_one_line_refusal(tmp_path: Path, settings: dict[str, str]):
    """Asked for the CPU, or with no CUDA device to see (hidden here, as on a machine without one)."""
    assert_one_line(folio(UNREACHABLE, tmp_path, "engine", "build", **settings), 2, "engine",
                    "TensorRT engines need FOLIO_DEVICE auto or cuda, the tensorrt package and a CUDA device")
